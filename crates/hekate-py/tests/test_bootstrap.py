"""CKKS bootstrapping through Python at the toy preset quick-dense (N = 2^12, 2^11 slots)."""

import pickle

import numpy as np
import pytest

import hekate as hk


@pytest.fixture(scope="module")
def boot():
    p = hk.ckks.BootstrapParameters("quick-dense")
    sk = p.context.secret_key()
    seen = []
    bk = sk.bootstrap_keys(p, progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1][0] == seen[-1][1] > 0
    return p, sk, bk, hk.ckks.Bootstrapper(p, bk)


def test_parameters():
    assert {"quick-dense", "set-iii", "lattigo-dense0"} <= set(hk.ckks.BootstrapParameters.presets())
    p = hk.ckks.BootstrapParameters("quick-dense")
    assert p.name == "quick-dense" and p.slots == 2048 and p.failure_log2 <= -40
    assert p.context.security is None  # a toy ring
    assert pickle.loads(pickle.dumps(p)).name == p.name
    with pytest.raises(hk.InvalidParametersError, match="unknown bootstrapping preset"):
        hk.ckks.BootstrapParameters("nope")
    with pytest.raises(hk.InvalidParametersError, match="unknown key-switching method"):
        hk.ckks.BootstrapParameters("quick-sparse", key_switching="klss")


def test_bootstrap_on_klss_engine():
    """Every key switch of the bootstrap on the KLSS engine, and the engine survives pickling."""
    p = hk.ckks.BootstrapParameters("quick-sparse", key_switching="klss:2")
    assert p.context.key_switching.startswith("klss")
    q = pickle.loads(pickle.dumps(p))
    assert q.context.key_switching == p.context.key_switching
    sk = p.context.secret_key()
    b = hk.ckks.Bootstrapper(p, sk.bootstrap_keys(p))
    x = np.linspace(-0.5, 0.5, p.slots)
    y = b.bootstrap(sk.encrypt(x, level=1, slots=p.slots))
    assert np.max(np.abs(sk.decrypt(y) - x)) < 2**-12


def test_bootstrap_refreshes_levels(boot):
    p, sk, bk, b = boot
    x = np.linspace(-0.5, 0.5, p.slots)
    ct = sk.encrypt(x, level=1, slots=p.slots)
    y = b.bootstrap(ct)
    assert y.level == b.output_level >= 1 and y.scale == ct.scale
    assert np.max(np.abs(sk.decrypt(y) - x)) < 2**-12
    # The bootstrapped ciphertext computes on with the bootstrapper's evaluator.
    z = y * y
    assert np.max(np.abs(sk.decrypt(z) - x * x)) < 2**-12


def test_keys_pickle_and_bootstrap_identically(boot):
    p, sk, bk, b = boot
    bk2 = pickle.loads(pickle.dumps(bk, protocol=5))
    assert bk2.to_bytes() == bk.to_bytes()
    ct = sk.encrypt(np.full(p.slots, 0.25), level=1, slots=p.slots)
    assert hk.ckks.Bootstrapper(p, bk2).bootstrap(ct).to_bytes() == b.bootstrap(ct).to_bytes()
    with pytest.raises(hk.DeserializeError):
        hk.ckks.BootstrapKeys.from_bytes(bk.to_bytes()[:-5], p.context)
