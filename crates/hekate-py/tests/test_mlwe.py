"""hekate.mlwe: MLWE-CKKS (ModHE and DPad-HE) end to end: every evaluator operation
decrypts to the numpy result, operators find their keys, pickles round-trip through
hekate's byte format, hostile bytes raise DeserializeError, and heavy calls release the
GIL."""

import pickle
import threading
import time
import warnings

import numpy as np
import pytest

import hekate as hk

# n = 2^8 (128 slots), rank 2, Q of 60 + 40 + 40 bits, one 60-bit P, DPad-HE with r̂ = 3
# and P̂ of 60 + 55 bits: toy size (security=None), every call in milliseconds.
MLWE_TOY = dict(
    log_n=8, rank=2, log_q=[60, 40, 40], log_p=[60], log_scale=40, dpad=(3, [60, 55])
)
TOL = 2.0**-18


def toy(**overrides):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hk.InsecureParametersWarning)
        return hk.mlwe.Context(**{**MLWE_TOY, "security": None, **overrides})


@pytest.fixture(scope="module")
def mlwe():
    """(context, secret key, public key, evaluator with every key) at the toy size."""
    ctx = toy()
    sk = ctx.secret_key()
    ev = hk.mlwe.Evaluator(
        ctx,
        [sk.relinearization_key("dpad"), sk.relinearization_key("modhe", rank=1, level=1)],
        [sk.rank_reduction_key(2, 1, 1)],
        sk.rotation_keys([1, -3]),
        sk.hoisted_rotation_keys([1, 5]),
    )
    return ctx, sk, sk.public_key(), ev


@pytest.fixture
def vals():
    rng = np.random.default_rng(20261127)
    return rng.uniform(-1, 1, 128), rng.uniform(-1, 1, 128)


def close(got, want, tol=TOL):
    err = np.max(np.abs(np.asarray(got) - np.asarray(want)))
    assert err < tol, err


def test_context(mlwe):
    ctx, _, _, _ = mlwe
    assert (ctx.n, ctx.rank, ctx.rank_hat, ctx.slots) == (256, 2, 3, 128)
    assert ctx.lwe_dimension == 512 and ctx.max_level == 2
    assert len(ctx.q_primes) == 3 and len(ctx.p_primes) == 1 and len(ctx.p_hat_primes) == 2
    assert ctx.dnum >= 1 and ctx.mu >= 1 and ctx.security is None
    assert ctx.default_scale == 2.0**40
    assert ctx.rank_schedule()[0] == (2, 2)
    plain = toy(dpad=None)
    assert plain.rank_hat is None and plain.mu is None and plain.p_hat_primes is None
    assert plain.fingerprint != ctx.fingerprint
    assert "rank=2" in repr(ctx)
    with pytest.raises(hk.InvalidParametersError):
        toy(dpad=(5, [60, 55]))  # r̂ must be in (r, 2r]
    with pytest.raises(TypeError):
        toy(dpad=3)


def test_encrypt_decrypt(mlwe, vals):
    ctx, sk, pk, _ = mlwe
    a, _ = vals
    for ct in (pk.encrypt(a), sk.encrypt(a), sk.encrypt(a, level=1)):
        out = sk.decrypt(ct)
        assert out.dtype == np.float64 and out.shape == (128,)
        close(out, a)
    assert sk.encrypt(a, level=1).level == 1
    # Secret-key encryptions are seed-compressed: b and a 32-byte seed instead of r parts.
    s, p = sk.encrypt(a), pk.encrypt(a)
    assert s.is_seeded and not p.is_seeded and not (s + s).is_seeded
    assert len(s.to_bytes()) < len(p.to_bytes()) // 2
    back = hk.mlwe.Ciphertext.from_bytes(s.to_bytes(), ctx, real=True)
    assert back.is_seeded and back.to_bytes() == s.to_bytes()
    close(sk.decrypt(back), a)
    z = a + 0.5j * a[::-1]
    out = sk.decrypt(pk.encrypt(z))
    assert out.dtype == np.complex128
    close(out, z)
    assert sk.decrypt(pk.encrypt(a), dtype="complex").dtype == np.complex128
    # Fewer values than slots: zero-padded.
    close(sk.decrypt(pk.encrypt([0.5, -0.25]))[:3], [0.5, -0.25, 0])


def test_operators(mlwe, vals):
    ctx, sk, pk, ev = mlwe
    a, b = vals
    x, y = pk.encrypt(a), pk.encrypt(b)
    with pytest.raises(hk.MissingKeyError):
        x * y
    with pytest.raises(hk.MissingKeyError):
        x << 1
    close(sk.decrypt(x + y), a + b)
    close(sk.decrypt(x - y), a - b)
    close(sk.decrypt(-x), -a)
    close(sk.decrypt(x + 0.25), a + 0.25)
    close(sk.decrypt(1 - x), 1 - a)
    close(sk.decrypt(x + b), a + b)
    close(sk.decrypt(b - x), b - a)
    close(sk.decrypt(sum([x, y, x])), 2 * a + b)
    p = x * 0.5
    assert p.level == 1  # auto rescale
    close(sk.decrypt(p), 0.5 * a)
    close(sk.decrypt(x * b), a * b)
    with ev:
        xy = x * y
        assert xy.level == 1 and xy.rank == 2 and not xy.is_quadratic
        close(sk.decrypt(xy), a * b)
        close(sk.decrypt(x << 1), np.roll(a, -1))
        close(sk.decrypt(x >> 3), np.roll(a, 3))
    # Results of the evaluator are bound to it: their operators need no `with`.
    sq = ev.rescale(ev.mul(x, x))
    assert sq.evaluator_bound is not None
    close(sk.decrypt(sq * y.drop_level()), a * a * b, 2**-14)
    bound = ev.bind(x)
    close(sk.decrypt(bound.rotate(-3)), np.roll(a, 3))
    with pytest.raises(TypeError):
        x * 1j
    manual = toy(auto_rescale=False)
    msk = manual.secret_key()
    mx = msk.encrypt(a)
    assert (mx * 0.5).level == 2 and (mx * 0.5).rescale().level == 1


def test_every_evaluator_method_decrypts(mlwe, vals):
    ctx, sk, pk, ev = mlwe
    a, b = vals
    x, y = pk.encrypt(a), sk.encrypt(b)
    dec = sk.decrypt
    assert ev.relin_method == "dpad"
    close(dec(ev.add(x, y)), a + b)
    close(dec(ev.sub(x, y)), a - b)
    close(dec(ev.neg(x)), -a)
    close(dec(ev.add_plain(x, b)), a + b)
    close(dec(ev.rescale(ev.mul_plain(x, b))), a * b)
    close(dec(ev.add_const(x, -0.5)), a - 0.5)
    close(dec(ev.rescale(ev.mul_const(x, 3.0))), 3 * a)
    t = ev.tensor(x, y)
    assert t.is_quadratic and t.rank == 2
    close(dec(ev.rescale(t)), a * b)
    close(dec(ev.rescale(ev.relinearize(t))), a * b)
    prod = ev.rescale(ev.mul(x, y))
    close(dec(prod), a * b)
    assert ev.drop_level(x, 2).level == 0
    close(dec(ev.drop_level(x)), a)
    # Rank reduction at level 1, and the rank-1 relinearization key there.
    r1 = ev.rank_reduce(prod, 1)
    assert r1.rank == 1
    close(dec(r1), a * b)
    assert ev.reduce_rank_if_secure(prod).rank == 1
    assert ev.reduce_rank_if_secure(x).rank == 2  # no key at the top level
    close(dec(ev.rescale(ev.mul(r1, r1))), (a * b) ** 2, 2**-14)
    # Plain and rank-hoisted rotations.
    close(dec(ev.rotate(x, 1)), np.roll(a, -1))
    close(dec(ev.rotate(x, -3)), np.roll(a, 3))
    lifted = ev.lift_rank(x)
    assert lifted.rank == 3
    close(dec(lifted), a)
    r = ev.rotate_lifted(ev.rotate_lifted(lifted, 1), 5)
    assert r.rank == 3
    down = ev.lower_rank(r)
    assert down.rank == 2
    close(dec(down), np.roll(a, -6))
    close(dec(ev.rotate_chain_hoisted(x, [1, 5, 1])), np.roll(a, -7))
    with pytest.raises(hk.MissingKeyError):
        ev.rotate(x, 2)
    # ModHE relinearization, and the with_* constructors (new evaluators).
    modhe = hk.mlwe.Evaluator(ctx).with_relinearization_key(sk.relinearization_key("modhe"))
    assert modhe.relin_method == "modhe"
    close(dec(modhe.rescale(modhe.mul(x, y))), a * b)
    with pytest.raises(hk.MissingKeyError):
        modhe.rank_reduce(prod, 1)
    more = (
        modhe.with_rank_reduction_key(sk.rank_reduction_key(2, 1, 1))
        .with_rotation_keys(sk.rotation_keys([2]))
        .with_hoisted_rotation_keys(sk.hoisted_rotation_keys([2]))
    )
    assert modhe.relin_method == "modhe" and "rotations=0" in repr(modhe)
    close(dec(more.rank_reduce(prod, 1)), a * b)
    close(dec(more.rotate(x, 2)), np.roll(a, -2))
    close(dec(more.rotate_chain_hoisted(x, [2])), np.roll(a, -2))


def test_keys(mlwe):
    ctx, sk, _, _ = mlwe
    k = sk.relinearization_key()
    assert (k.method, k.rank, k.max_level) == ("dpad", 2, 2) and k.nbytes > 0
    k1 = sk.relinearization_key("ModHE", rank=1, level=1)
    assert (k1.method, k1.rank, k1.max_level) == ("modhe", 1, 1)
    rr = sk.rank_reduction_key(2, 1, 1)
    assert (rr.from_rank, rr.to_rank, rr.max_level) == (2, 1, 1)
    rot = sk.rotation_keys([1])[0]
    assert rot.galois_element == 5
    assert sk.hoisted_rotation_keys([5]).galois_elements == [5, 5**4 % 512]
    with pytest.raises(ValueError):
        sk.relinearization_key("rlwe")
    with pytest.raises(hk.InvalidParametersError):
        sk.rank_reduction_key(1, 2, 1)
    with pytest.raises(hk.InvalidParametersError):
        toy(dpad=None).secret_key().relinearization_key("dpad")


def test_pickle_round_trip(mlwe, vals):
    ctx, sk, pk, ev = mlwe
    a, b = vals
    x = pk.encrypt(a)
    keys = [
        sk.relinearization_key("dpad"),
        sk.relinearization_key("modhe"),
        sk.rank_reduction_key(2, 1, 1),
        sk.rotation_keys([1])[0],
        sk.hoisted_rotation_keys([1]),
    ]
    objs = [ctx, pk, x, *keys]
    for proto in (2, 5):
        back = pickle.loads(pickle.dumps(objs, protocol=proto))
        assert [o.to_bytes() for o in back] == [o.to_bytes() for o in objs]
        assert back[0] == ctx and back[3].context is back[0]
    # One context per process for the same bytes: built once, however many loads.
    c1, c2 = pickle.loads(pickle.dumps(x)), pickle.loads(pickle.dumps(x))
    assert c1.context is c2.context
    # Unpickled keys and evaluators compute the same words.
    ev2 = pickle.loads(pickle.dumps(ev))
    y = pk.encrypt(b)
    assert ev2.mul(x, y).to_bytes() == ev.mul(x, y).to_bytes()
    assert ev2.rotate(x, 1).to_bytes() == ev.rotate(x, 1).to_bytes()
    close(sk.decrypt(pickle.loads(pickle.dumps(ev.rescale(ev.mul(x, y))))), a * b)
    # The real flag survives; a complex ciphertext stays complex.
    z = pickle.loads(pickle.dumps(pk.encrypt(a * 1j)))
    assert sk.decrypt(z).dtype == np.complex128
    bridge = pickle.loads(pickle.dumps(hk.mlwe.RlweBridge(ctx)))
    assert bridge.context == ctx
    # Secret keys refuse to pickle; to_bytes is their explicit path.
    with pytest.raises(TypeError):
        pickle.dumps(sk)
    sk2 = hk.mlwe.SecretKey.from_bytes(sk.to_bytes(), ctx)
    close(sk2.decrypt(x), a)
    assert sk2.to_bytes() == sk.to_bytes()


def test_hostile_bytes_raise_deserialize_error(mlwe, vals):
    ctx, sk, pk, ev = mlwe
    a, _ = vals
    data = pk.encrypt(a).to_bytes()
    C = hk.mlwe.Ciphertext
    for bad in (data[:-1], data[:10], data + b"\0", b"", b"HKT\0" + data[4:8]):
        with pytest.raises(hk.DeserializeError):
            C.from_bytes(bad, ctx)
    flipped = bytearray(data)
    flipped[16] = 9  # rank 9
    with pytest.raises(hk.DeserializeError, match="rank"):
        C.from_bytes(bytes(flipped), ctx)
    with pytest.raises(hk.DeserializeError, match="wrong object type"):
        hk.mlwe.PublicKey.from_bytes(data, ctx)
    other = toy(log_q=[60, 40, 39])
    with pytest.raises(hk.DeserializeError, match="parameter mismatch"):
        C.from_bytes(data, other)
    with pytest.raises(hk.DeserializeError):
        hk.mlwe.RelinearizationKey.from_bytes(sk.rotation_keys([1])[0].to_bytes(), ctx)
    with pytest.raises(hk.DeserializeError):
        hk.mlwe.SecretKey.from_bytes(sk.to_bytes()[:-1], ctx)
    # Parameters: the reader's security policy, and a corrupt fingerprint.
    params = ctx.to_bytes()
    with pytest.raises(hk.DeserializeError, match="below the reader's minimum"):
        hk.mlwe.Context.from_bytes(params)
    assert hk.mlwe.Context.from_bytes(params, security=None) == ctx
    corrupt = bytearray(params)
    corrupt[8] ^= 1
    with pytest.raises(hk.DeserializeError, match="corrupt MLWE parameters"):
        hk.mlwe.Context.from_bytes(bytes(corrupt), security=None)
    with pytest.raises(hk.DeserializeError):
        hk.mlwe.Context.from_bytes(data, security=None)
    assert hk.inspect(data)["tag_name"] == "MLWE ciphertext"
    assert hk.inspect(params)["tag"] == 0x0200


def test_rlwe_bridge(mlwe, vals):
    ctx, sk, pk, ev = mlwe
    a, _ = vals
    bridge = hk.mlwe.RlweBridge(ctx)
    assert bridge.ckks.n == 512 and bridge.ckks.q_primes == ctx.q_primes
    assert bridge.trace_rotations() == [128]  # (n/2)·2^k, k < log2 r
    rsk = bridge.rlwe_secret_key(sk)
    cev = hk.ckks.Evaluator(bridge.trace_keys(sk))
    x = pk.encrypt(a)
    rl = bridge.mlwe_to_rlwe(x, cev)
    assert rl.slots == 128
    assert bridge.trace_gain_bits(x.level) == 8 and bridge.trace_gain_bits(0) == 0
    close(rsk.decrypt(rl), a)
    back = bridge.rlwe_to_mlwe(rl)
    assert back.rank == 2
    close(sk.decrypt(back), a)
    assert bridge.embed(x).slots == 256
    with pytest.raises(hk.InvalidParametersError):
        hk.mlwe.RlweBridge(toy(rank=3, dpad=None))


def test_gil_released_during_heavy_calls():
    ctx = toy(log_n=10, dpad=None)
    sk = ctx.secret_key()
    ev = hk.mlwe.Evaluator(ctx, [sk.relinearization_key("modhe")])
    x = sk.encrypt(np.linspace(-1, 1, 64))
    stop = threading.Event()
    count = [0]

    def spin():
        while not stop.is_set():
            count[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    time.sleep(0.05)
    before = count[0]
    start = time.perf_counter()
    while time.perf_counter() - start < 0.3:
        ev.mul(x, x)
    during = count[0] - before
    stop.set()
    t.join()
    # With the GIL held for whole calls the counter would barely move between them.
    assert during > 10_000, during
