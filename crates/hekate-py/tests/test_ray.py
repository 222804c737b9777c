"""Batch evaluation on a local Ray cluster (loopback only; two 1-CPU workers)."""

import functools
import os

import numpy as np
import pytest

ray = pytest.importorskip("ray")

import hekate as hk  # noqa: E402
from circuits import die_once, nand, poly_rotate, rotate_missing  # noqa: E402
from conftest import toy_context  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    assert os.environ.get("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER") == "0", "loopback only"
    here = os.path.dirname(__file__)
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=256 << 20,
        runtime_env={"env_vars": {"PYTHONPATH": here}},
    )
    yield
    ray.shutdown()


def test_ckks_batch_of_64(cluster, ckks):
    ctx, sk, pk, evk, ev = ckks
    xs = pk.encrypt(np.random.default_rng(5).uniform(-1, 1, (64, 16)))
    serial = [c.to_bytes() for c in hk.batch.evaluate(poly_rotate, xs, evk, backend="serial")]
    with hk.ray.BatchPool(evk, workers=2) as pool:
        out = pool.map(poly_rotate, xs)
        out2 = pool.map(poly_rotate, xs[:8], chunk=3)
        loads = pool.key_loads()
    assert [c.to_bytes() for c in out] == serial  # byte for byte, in input order
    assert [c.to_bytes() for c in out2] == serial[:8]
    v = sk.decrypt(xs[5])
    assert np.max(np.abs(sk.decrypt(out[5]) - (v * v + 0.5 * np.roll(v, -1)))) < 2**-16
    # Two worker processes, each of which deserialized the keys exactly once for 72 inputs.
    assert len({pid for pid, _ in loads}) == 2
    assert [n for _, n in loads] == [1, 1]


def test_fhew_nands(cluster, fhew):
    ctx, sk, bk, ev = fhew
    rng = np.random.default_rng(6)
    a, b = rng.integers(0, 2, (2, 64)).astype(bool)
    pairs = [(sk.encrypt(a[i : i + 8]), sk.encrypt(b[i : i + 8])) for i in range(0, 64, 8)]
    serial = hk.batch.evaluate(nand, pairs, bk, backend="serial")
    out = hk.batch.evaluate(nand, pairs, bk, backend="ray", workers=2)
    assert [x.to_bytes() for x in out] == [x.to_bytes() for x in serial]
    assert (np.concatenate([sk.decrypt(x) for x in out]) == ~(a & b)).all()


def test_missing_key_reaches_the_driver(cluster, ckks):
    ctx, sk, pk, evk, ev = ckks
    with hk.ray.BatchPool(evk, workers=1) as pool:
        with pytest.raises(hk.MissingKeyError, match="rotation by 7"):
            pool.map(rotate_missing, [pk.encrypt([1.0])])


def test_secret_key_cannot_enter_the_store(cluster, ckks):
    with pytest.raises(TypeError, match="does not pickle secret keys"):
        ray.put(ckks[1])


def test_two_clients_in_one_cluster(cluster):
    results = []
    for seed in range(2):
        ctx = toy_context()
        sk = ctx.secret_key()
        evk = sk.evaluation_keys(rotations=[1])
        x = sk.encrypt([0.5, 0.25])
        with hk.ray.BatchPool(evk, workers=1) as pool:
            (y,) = pool.map(poly_rotate, [x])
        results.append(sk.decrypt(y)[:2])
    for r in results:
        assert np.max(np.abs(r - [0.375, 0.0625])) < 2**-16  # x*x + 0.5*(x << 1)


def test_dead_worker_is_retried(cluster, ckks, tmp_path):
    ctx, sk, pk, evk, ev = ckks
    marker = tmp_path / "died"
    xs = pk.encrypt(np.random.default_rng(7).uniform(-1, 1, (6, 8)))
    serial = [c.to_bytes() for c in hk.batch.evaluate(poly_rotate, xs, evk, backend="serial")]
    with hk.ray.BatchPool(evk, workers=2) as pool:
        out = pool.map(functools.partial(die_once, str(marker)), xs)
    assert marker.exists()  # a worker did die
    assert [c.to_bytes() for c in out] == serial  # and nothing was lost or duplicated
