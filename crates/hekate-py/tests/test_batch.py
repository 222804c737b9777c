"""hekate.batch with the serial, threads and processes backends: byte-identical results."""

import numpy as np
import pytest

import hekate as hk
from circuits import nand, poly_rotate


@pytest.fixture(scope="module")
def ckks_batch(ckks):
    ctx, sk, pk, evk, ev = ckks
    xs = pk.encrypt(np.random.default_rng(3).uniform(-1, 1, (12, 16)))
    serial = [c.to_bytes() for c in hk.batch.evaluate(poly_rotate, xs, evk, backend="serial")]
    return xs, serial


@pytest.mark.parametrize("backend", ["threads", "processes"])
def test_ckks_backends_match_serial(ckks, ckks_batch, backend):
    ctx, sk, pk, evk, ev = ckks
    xs, serial = ckks_batch
    out = hk.batch.evaluate(poly_rotate, xs, evk, backend=backend, workers=2, chunk=2)
    assert [c.to_bytes() for c in out] == serial
    v = sk.decrypt(xs[0])
    assert np.max(np.abs(sk.decrypt(out[0]) - (v * v + 0.5 * np.roll(v, -1)))) < 2**-16


def test_fhew_threads_match_serial(fhew):
    ctx, sk, bk, ev = fhew
    rng = np.random.default_rng(4)
    a, b = rng.integers(0, 2, (2, 8)).astype(bool)
    pairs = [(sk.encrypt(a[i : i + 1]), sk.encrypt(b[i : i + 1])) for i in range(8)]
    serial = hk.batch.evaluate(nand, pairs, bk, backend="serial")
    threads = hk.batch.evaluate(nand, pairs, bk, backend="threads", workers=2)
    assert [x.to_bytes() for x in threads] == [x.to_bytes() for x in serial]
    assert [bool(sk.decrypt(x)[0]) for x in threads] == list(~(a & b))


def test_bad_arguments(ckks):
    evk = ckks[3]
    with pytest.raises(ValueError, match="backend"):
        hk.batch.evaluate(poly_rotate, [], evk, backend="gpu")
    with pytest.raises(TypeError, match="EvaluationKeys"):
        hk.batch.evaluate(poly_rotate, [], ckks[1])
