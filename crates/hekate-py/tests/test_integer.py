"""BFV and BGV through Python: exact arithmetic mod t against numpy."""

import pickle
import warnings

import numpy as np
import pytest

import hekate as hk

T = 65537  # prime, 1 mod 2N for every N here: batch slots


@pytest.fixture(scope="module", params=["bfv", "bgv"])
def integer(request):
    mod = getattr(hk, request.param)
    ctx = mod.Context(log_n=12, t=T, log_q=[60, 60, 60], log_p=[61], security=None)
    sk = ctx.secret_key()
    evk = sk.evaluation_keys(rotations=[1, -1], swap_rows=True)
    return mod, ctx, sk, sk.public_key(), evk, mod.Evaluator(evk)


def rows(ctx, v):
    """The slot vector of ``v`` padded with zeros."""
    out = np.zeros(ctx.n, dtype=np.int64)
    out[: len(v)] = v
    return out


def rot_rows(v, k, n):
    """Each of the two rows of n/2 slots rotated left by k."""
    h = n // 2
    return np.concatenate([np.roll(v[:h], -k), np.roll(v[h:], -k)])


def test_round_trips(integer):
    mod, ctx, sk, pk, evk, ev = integer
    assert ctx.scheme == mod.__name__.split(".")[-1] and ctx.t == T
    x = np.arange(20, dtype=np.uint64) * 1000
    for enc in (sk.encrypt, pk.encrypt):
        out = sk.decrypt(enc(x))
        assert out.dtype == np.uint64 and (out[:20] == x).all() and not out[20:].any()
    s = np.array([-5, 7, -32768, 32768])
    assert (sk.decrypt(pk.encrypt(s, signed=True), signed=True)[:4] == s).all()
    c = np.array([1, 2, 3])
    assert (sk.decrypt(pk.encrypt(c, coefficients=True), coefficients=True)[:3] == c).all()
    batch = sk.decrypt(pk.encrypt(np.arange(6).reshape(2, 3)))
    assert batch.shape == (2, ctx.n) and (batch[:, :3] == [[0, 1, 2], [3, 4, 5]]).all()


def test_operators_against_numpy(integer):
    mod, ctx, sk, pk, evk, ev = integer
    rng = np.random.default_rng(9)
    a, b = rng.integers(0, T, 64), rng.integers(0, T, 64)
    A, B = rows(ctx, a), rows(ctx, b)
    x, y = pk.encrypt(a), pk.encrypt(b)
    with ev:
        cases = {
            "x + y": (x + y, A + B),
            "x - y": (x - y, A - B),
            "-x": (-x, -A),
            "x * y": (x * y, A * B),
            "x * 3": (x * 3, 3 * A),
            "x + 5": (x + 5, A + 5),
            "5 - x": (5 - x, 5 - A),
            "x * array": (x * b, A * B),
            "x + array": (x + b, A + B),
            "x << 1": (x << 1, rot_rows(A, 1, ctx.n)),
            "x >> 1": (x >> 1, rot_rows(A, -1, ctx.n)),
            "x*x + 3*(x << 1)": (x * x + 3 * (x << 1), A * A + 3 * rot_rows(A, 1, ctx.n)),
        }
    for name, (ct, want) in cases.items():
        assert (sk.decrypt(ct).astype(object) == np.mod(want.astype(object), T)).all(), name


def test_evaluator_methods(integer):
    mod, ctx, sk, pk, evk, ev = integer
    a = np.arange(1, 9)
    A = rows(ctx, a)
    x = pk.encrypt(a)
    pt = ctx.encode(a)
    dec = lambda c: sk.decrypt(c).astype(np.int64)  # noqa: E731
    assert (dec(ev.add(x, x)) == 2 * A).all()
    assert (dec(ev.sub(x, x)) == 0).all()
    assert (dec(ev.neg(x)) == np.mod(-A, T)).all()
    assert (dec(ev.add_plain(x, pt)) == 2 * A).all()
    assert (dec(ev.sub_plain(x, pt)) == 0).all()
    assert (dec(ev.mul_plain(x, pt)) == A * A).all()
    assert (dec(ev.mul_scalar(x, 4)) == 4 * A).all()
    assert (dec(ev.relinearize(ev.mul_no_relin(x, x))) == A * A).all()
    assert (dec(ev.mul(x, x)) == A * A).all()
    assert (dec(ev.square(x)) == A * A).all()
    assert (dec(ev.rotate_rows(x, 1)) == rot_rows(A, 1, ctx.n)).all()
    h = ctx.n // 2
    assert (dec(ev.rotate_columns(x)) == np.concatenate([A[h:], A[:h]])).all()
    for s, r in zip([1, -1], ev.rotate_rows_hoisted(x, [1, -1])):
        assert (dec(r) == rot_rows(A, s, ctx.n)).all()
    assert ev.drop_level(x, 1).level == x.level - 1
    if ctx.scheme == "bgv":
        assert (dec(ev.mod_switch(x)) == A).all() and ev.mod_switch_to(x, 0).level == 0
    g = pow(5, 1, 2 * ctx.n)
    assert (dec(ev.automorphism(x, g)) == rot_rows(A, 1, ctx.n)).all()
    assert sk.noise_budget(x) > 0 and x.estimated_noise_budget > 0


def test_pickles_and_keys(integer):
    mod, ctx, sk, pk, evk, ev = integer
    x = pk.encrypt([1, 2, 3])
    x2, evk2, pk2, ctx2 = pickle.loads(pickle.dumps((x, evk, pk, ctx), protocol=5))
    assert x2.to_bytes() == x.to_bytes() and evk2.to_bytes() == evk.to_bytes()
    assert ctx2.to_bytes() == ctx.to_bytes()
    with pytest.raises(TypeError, match="does not pickle secret keys"):
        pickle.dumps(sk)
    sk2 = mod.SecretKey.from_bytes(sk.to_bytes(), ctx)
    assert list(sk2.decrypt(x)[:3]) == [1, 2, 3]
    with pytest.raises(hk.MissingKeyError):
        x * x
    with pytest.raises(hk.MissingKeyError, match="rotation"):
        ev.rotate_rows(x, 3)


def test_for_depth_is_secure():
    ctx = hk.bgv.for_depth(t=T, depth=2)
    assert ctx.security == 128 and ctx.n >= 2048
    with pytest.raises(hk.InsecureParametersError):
        hk.bfv.Context(log_n=12, t=T, log_q=[60] * 10)
    with pytest.raises(ValueError, match="scheme"):
        hk._native.IntegerContext("ckks", 12, T, [60])


def test_batch_backends(integer):
    mod, ctx, sk, pk, evk, ev = integer
    xs = pk.encrypt(np.arange(12).reshape(4, 3))
    circuit = lambda ev, x: x * x + (x << 1)  # noqa: E731
    serial = hk.batch.evaluate(circuit, xs, evk, backend="serial")
    threads = hk.batch.evaluate(circuit, xs, evk, backend="threads", workers=2)
    assert [c.to_bytes() for c in threads] == [c.to_bytes() for c in serial]
