"""numpy in and out: read-only, strided and integer arrays, lists, shapes, dtypes."""

import numpy as np
import pytest

import hekate as hk
from conftest import CKKS_TOL, padded


def test_inputs_accepted(ckks):
    ctx, sk, pk, _, _ = ckks
    base = np.linspace(-1, 1, 16)
    ro = base.copy()
    ro.flags.writeable = False
    strided = np.linspace(-1, 1, 32)[::2]
    for v in (base, ro, strided, list(base), np.arange(4), np.float32([0.5, 0.25])):
        out = sk.decrypt(pk.encrypt(v))
        assert np.max(np.abs(out - padded(np.asarray(v, float), ctx.slots))) < CKKS_TOL


def test_bad_shapes(ckks):
    ctx, sk, pk, _, _ = ckks
    with pytest.raises(ValueError, match="1-D"):
        pk.encrypt(np.zeros((2, 2, 2)))
    assert abs(sk.decrypt(pk.encrypt(0.5))[0] - 0.5) < CKKS_TOL  # a scalar is one slot
    with pytest.raises(hk.InvalidMessageError, match="do not fit"):
        pk.encrypt(np.zeros(ctx.slots + 1))
    with pytest.raises(ValueError, match="finite"):
        pk.encrypt([np.nan])
    with pytest.raises(ValueError):
        ctx.encode(np.zeros((2, 2)))


def test_output_dtypes(ckks):
    ctx, sk, pk, _, _ = ckks
    assert sk.decrypt(pk.encrypt([1.0])).dtype == np.float64
    assert sk.decrypt(pk.encrypt([1.0 + 0j])).dtype == np.complex128
    assert sk.decrypt(pk.encrypt([1.0]), dtype="complex128").dtype == np.complex128
    with pytest.raises(ValueError, match="dtype"):
        sk.decrypt(pk.encrypt([1.0]), dtype="int8")


def test_outputs_are_new_and_writable(ckks):
    ctx, sk, pk, _, _ = ckks
    x = pk.encrypt([1.0])
    out, again = sk.decrypt(x), sk.decrypt(x)
    assert out.flags.writeable and not np.shares_memory(out, again)
    out[0] = 2.0


def test_repr_needs_no_secret(ckks):
    ctx, sk, pk, evk, ev = ckks
    x = pk.encrypt([1.0])
    assert repr(x).startswith("<hekate.ckks.Ciphertext level=3 scale=2^40.00")
    assert "SecretKey of parameters 0x" in repr(sk)
    assert "relin=True" in repr(evk)
