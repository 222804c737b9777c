"""CKKS through Python: every operator and evaluator method against numpy."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

import hekate as hk
from conftest import CKKS_TOL, padded, toy_context


def close(got, want, tol=CKKS_TOL):
    err = np.max(np.abs(np.asarray(got) - np.asarray(want)))
    assert err < tol, f"max error {err:.3e} >= {tol:.3e}"


def full(ctx, v):
    return padded(np.asarray(v), ctx.slots)


def test_round_trip_real_and_complex(ckks, rng):
    ctx, sk, pk, _, _ = ckks
    x = rng.uniform(-1, 1, 100)
    for enc in (sk.encrypt, pk.encrypt):
        out = sk.decrypt(enc(x))
        assert out.dtype == np.float64 and out.shape == (ctx.slots,)
        close(out, full(ctx, x))
    z = rng.uniform(-1, 1, 64) + 1j * rng.uniform(-1, 1, 64)
    out = sk.decrypt(pk.encrypt(z))
    assert out.dtype == np.complex128
    close(out, full(ctx, z))
    # at least 20 bits of precision on fresh ciphertexts
    assert np.max(np.abs(out - full(ctx, z))) < 2.0**-20


def test_secret_key_encryption_is_seeded(ckks):
    ctx, sk, pk, _, _ = ckks
    a, b = sk.encrypt([0.5]), pk.encrypt([0.5])
    assert a.is_seeded and not b.is_seeded
    assert len(a.to_bytes()) < 0.6 * len(b.to_bytes())


def test_batch_encrypt_decrypt(ckks, rng):
    ctx, sk, pk, _, _ = ckks
    rows = rng.uniform(-1, 1, (5, 16))
    cts = pk.encrypt(rows)
    assert isinstance(cts, list) and len(cts) == 5
    out = sk.decrypt(cts)
    assert out.shape == (5, ctx.slots)
    close(out[:, :16], rows)


def test_operators(ckks, rng):
    ctx, sk, pk, _, ev = ckks
    a, b = rng.uniform(-1, 1, 32), rng.uniform(-1, 1, 32)
    A, B = full(ctx, a), full(ctx, b)
    x, y = pk.encrypt(a), pk.encrypt(b)
    with ev:
        cases = {
            "x + y": (x + y, A + B),
            "x - y": (x - y, A - B),
            "-x": (-x, -A),
            "x * y": (x * y, A * B),
            "x ** 3": (x**3, A**3),
            "x + 0.25": (x + 0.25, A + 0.25),
            "0.25 - x": (0.25 - x, 0.25 - A),
            "x * 0.5": (x * 0.5, A * 0.5),
            "0.5 * x": (0.5 * x, A * 0.5),
            "x * 3": (x * 3, A * 3),
            "x + array": (x + b, A + B),
            "x * array": (x * b, A * B),
            "array - x": (b - x, B - A),
            "x << 1": (x << 1, np.roll(A, -1)),
            "x >> 1": (x >> 1, np.roll(A, 1)),
            "x * x + 0.5 * (x << 1)": (x * x + 0.5 * (x << 1), A * A + 0.5 * np.roll(A, -1)),
            "sum": (sum([x, y, x]), 2 * A + B),
        }
    for name, (ct, want) in cases.items():
        assert isinstance(ct, hk.ckks.Ciphertext), name
        close(sk.decrypt(ct), want)


def test_complex_operators(ckks, rng):
    ctx, sk, pk, _, ev = ckks
    z = rng.uniform(-1, 1, 8) + 1j * rng.uniform(-1, 1, 8)
    Z = full(ctx, z)
    x = pk.encrypt(z)
    close(sk.decrypt(1j * x), 1j * Z)
    close(sk.decrypt(x * (0.5 - 0.25j)), Z * (0.5 - 0.25j))
    close(sk.decrypt(ev.conjugate(x)), np.conj(Z))
    r = pk.encrypt([0.5, 0.25])
    assert sk.decrypt(1j * r).dtype == np.complex128
    assert sk.decrypt(r * 2).dtype == np.float64
    assert sk.decrypt(1j * r, dtype="float64").dtype == np.float64


def test_ndarray_on_the_left_gives_a_ciphertext(ckks, rng):
    ctx, sk, pk, _, _ = ckks
    a = rng.uniform(-1, 1, 8)
    x = pk.encrypt(a)
    y = a + x  # numpy defers to Ciphertext.__radd__ (__array_ufunc__ = None)
    assert isinstance(y, hk.ckks.Ciphertext)
    close(sk.decrypt(y), full(ctx, 2 * a))


def test_evaluator_methods(ckks, rng):
    ctx, sk, pk, evk, ev = ckks
    a, b = rng.uniform(-1, 1, 16), rng.uniform(-1, 1, 16)
    A, B = full(ctx, a), full(ctx, b)
    x, y = pk.encrypt(a), pk.encrypt(b)
    pt = ctx.encode(b)
    close(sk.decrypt(ev.add(x, y)), A + B)
    close(sk.decrypt(ev.sub(x, y)), A - B)
    close(sk.decrypt(ev.neg(x)), -A)
    close(sk.decrypt(ev.add_plain(x, pt)), A + B)
    close(sk.decrypt(ev.sub_plain(x, pt)), A - B)
    close(sk.decrypt(ev.rescale(ev.mul_plain(x, pt))), A * B)
    close(sk.decrypt(ev.add_const(x, 0.5)), A + 0.5)
    close(sk.decrypt(ev.rescale(ev.mul_const(x, 0.5))), A * 0.5)
    close(sk.decrypt(ev.rescale(ev.mul_const_scaled(x, 0.5, 2.0**40))), A * 0.5, 2**-15)
    low = ev.mul_const_scaled_at(x, x.level - 1, 0.5, 2.0**40)
    assert low.level == x.level - 1
    want = ev.mul_const_scaled(x.drop_level(1), 0.5, 2.0**40)
    assert low.to_bytes() == want.to_bytes()  # the same words as drop, then multiply
    close(sk.decrypt(ev.rescale(low)), A * 0.5, 2**-15)
    close(sk.decrypt(ev.mul_integer(x, -3)), -3 * A)
    close(sk.decrypt(ev.mul_by_i(x)), 1j * A)
    m = sk.decrypt(ev.mul_monomial(x, ctx.n // 2), dtype="complex128")
    close(m, 1j * A)  # X^(N/2) acts as i on every slot
    t = ev.mul_no_relin(x, y)
    assert t.degree == 2
    close(sk.decrypt(ev.rescale(ev.relinearize(t))), A * B)
    close(sk.decrypt(ev.rescale(ev.mul(x, y))), A * B)
    close(sk.decrypt(ev.rescale(ev.square(x))), A * A)
    prod = ev.rescale(ev.mul(x, y))
    # The fused multiply-rescale: the same ciphertext as mul then rescale.
    fused = ev.mul_relin_rescale(x, y)
    assert fused.to_bytes() == prod.to_bytes()
    w = ev.mul_integer(ev.mul(x, x), 0)  # zero at the product's scale and level
    w = ev.add_const(w, 0.25)
    close(sk.decrypt(ev.mul_relin_rescale(x, y, 2, w)), 2 * A * B + 0.25)
    # Lazy relinearization: a sum of products, one key switch, the steps' result.
    lazy = ev.mul_sum_relin_rescale([(x, y), (y, y)], w)
    steps = ev.rescale(ev.add(ev.relinearize(ev.add(ev.mul_no_relin(x, y), ev.mul_no_relin(y, y))), w))
    assert lazy.to_bytes() == steps.to_bytes()
    close(sk.decrypt(lazy), A * B + B * B + 0.25)
    with pytest.raises(hk.ParameterMismatchError):
        ev.mul_sum_relin_rescale([(x, y), (ev.rescale(x), ev.rescale(y))])
    aligned = ev.rescale_to(prod, x)
    assert aligned.scale == x.scale and aligned.level == prod.level - 1
    close(sk.decrypt(aligned), A * B)
    assert ev.drop_level(x, 2).level == x.level - 2
    close(sk.decrypt(ev.rotate(x, 2)), np.roll(A, -2))
    g = pow(5, 1, 2 * ctx.n)
    close(sk.decrypt(ev.automorphism(x, g)), np.roll(A, -1))
    for s, r in zip([1, 2, -1], ev.rotate_hoisted(x, [1, 2, -1])):
        close(sk.decrypt(r), np.roll(A, -s))
    close(sk.decrypt(ev.rotate_sum([(x, 1), (y, 2)])), np.roll(A, -1) + np.roll(B, -2))
    # rot_1(x + rot_2(y)): y moves by 1 + 2 in all
    close(sk.decrypt(ev.rotate_horner([(x, 1), (y, 2)])), np.roll(A, -1) + np.roll(B, -3))
    outs = ev.mul_many([x, y], [y, y])
    close(sk.decrypt(outs[0]), A * B)
    close(sk.decrypt(outs[1]), B * B)


def test_bsgs_extended_is_the_composed_transform(ckks, rng):
    # Seed 003 Alg. 6: S_0 = d0 x + d1 rot_1(x), S_1 = d2 rot_2(x); nested:
    # rot_1(S_0 + rot_2(S_1)), summed: rot_1(S_0) + rot_2(S_1).
    ctx, sk, pk, _, ev = ckks
    A = full(ctx, rng.uniform(-1, 1, 32))
    x = ev.bind(pk.encrypt(A))
    d = [rng.uniform(-1, 1, ctx.slots) for _ in range(3)]
    wide = [ctx.encode_extended(v, level=x.level) for v in d]
    assert all(p is not None for p in wide)
    narrow = [ctx.encode(v, level=x.level) for v in d]
    babies = [0, 1, 2]
    blocks = [([(0, wide[0]), (1, wide[1])], 1), ([(2, wide[2])], 2)]
    S0 = d[0] * A + d[1] * np.roll(A, -1)
    S1 = d[2] * np.roll(A, -2)
    rot = ev.rotate_hoisted(x, babies)
    s0 = ev.mul_plain_add(ev.mul_plain(x, narrow[0]), rot[1], narrow[1])
    s1 = ev.mul_plain(rot[2], narrow[2])
    for nested, want, composed in [
        (True, np.roll(S0 + np.roll(S1, -2), -1), ev.rotate_horner([(s0, 1), (s1, 2)])),
        (False, np.roll(S0, -1) + np.roll(S1, -2), ev.rotate_sum([(s0, 1), (s1, 2)])),
    ]:
        out = ev.bsgs_extended(x, babies, blocks, nested)
        assert out.level == x.level and out.scale == composed.scale
        close(sk.decrypt(out), want)
        close(sk.decrypt(composed), want)
    # Only bsgs_extended reads a diagonal over Q_l ∪ P.
    with pytest.raises(hk.ParameterMismatchError):
        ev.mul_plain(x, wide[0])


def test_levels_and_scales_align(ckks, rng):
    ctx, sk, pk, _, ev = ckks
    a = rng.uniform(-1, 1, 8)
    A = full(ctx, a)
    x = ev.bind(pk.encrypt(a))
    low = x.drop_level(2)
    close(sk.decrypt(x + low), 2 * A)  # levels dropped to the lower
    sq = x * x  # scale Δ²/q beside Δ: aligned exactly by rescale_to
    assert sq.scale != x.scale
    close(sk.decrypt(sq + x), A * A + A)
    assert x.rescale().level == x.level - 1


def test_operators_find_their_evaluator(ckks):
    ctx, sk, pk, evk, ev = ckks
    x = pk.encrypt([0.5, 0.25])
    with pytest.raises(hk.MissingKeyError, match="with ev"):
        x * x
    with pytest.raises(hk.MissingKeyError):
        x << 1
    y = ev.bind(x)
    assert y.evaluator_bound is ev
    close(sk.decrypt(y * x)[:2], [0.25, 0.0625])
    # results of evaluator methods are bound
    close(sk.decrypt(ev.add(x, x) * x)[:2], [0.5, 0.125])


def test_missing_rotation_names_the_step(ckks):
    ctx, sk, pk, evk, ev = ckks
    x = pk.encrypt([1.0])
    with pytest.raises(hk.MissingKeyError, match="rotation by 3"):
        ev.rotate(x, 3)


def test_out_of_levels(ckks):
    ctx, sk, pk, evk, ev = ckks
    x = ev.bind(pk.encrypt([0.5]))
    with pytest.raises(hk.OutOfLevelsError):
        x * x * x * x * x
    with pytest.raises(ArithmeticError):  # the builtin base class
        x.drop_level(3).rescale()


def test_auto_rescale_off():
    ctx = toy_context(auto_rescale=False)
    sk = ctx.secret_key()
    ev = hk.ckks.Evaluator(sk.evaluation_keys())
    x = ev.bind(sk.encrypt([0.5]))
    y = x * x
    assert y.level == x.level and abs(y.scale - x.scale**2) / x.scale**2 < 1e-12
    assert abs(sk.decrypt(y.rescale())[0] - 0.25) < CKKS_TOL


def test_context_properties(ckks):
    ctx = ckks[0]
    assert ctx.n == 4096 and ctx.slots == 2048 and ctx.max_level == 3
    assert len(ctx.q_primes) == 4 and len(ctx.p_primes) == 1
    assert ctx.security is None and ctx.key_switching == "hybrid" and ctx.auto_rescale
    assert ctx.default_scale == 2.0**40
    assert "N=2^12" in repr(ctx)


def test_secure_by_default():
    with pytest.raises(hk.InsecureParametersError):
        hk.ckks.Context(log_n=12, log_q=[60] * 8, log_p=[60, 60])
    with pytest.warns(hk.InsecureParametersWarning):
        hk.ckks.Context(log_n=12, log_q=[50, 40], log_p=[60], security=None)


@pytest.mark.parametrize("method", ["klss:2", "linear", "auto"])
def test_key_switching_engines_agree(method, rng):
    ctx = toy_context(key_switching=method)
    sk = ctx.secret_key()
    ev = hk.ckks.Evaluator(sk.evaluation_keys(rotations=[1]))
    a = rng.uniform(-1, 1, 8)
    x = ev.bind(sk.encrypt(a))
    close(sk.decrypt((x * x) << 1), np.roll(full(ctx, a * a), -1))


def test_digits_by_bits(rng):
    kw = dict(log_n=12, log_q=[55] + [30] * 6, log_p=[58, 58], log_scale=30)
    ctx = toy_context(**kw, digits="bits")
    assert ctx.digits == "bits" and ctx.digit_primes == [2, 3, 2] and ctx.dnum == 3
    uniform = toy_context(**kw, dnum=3)
    assert uniform.digits == "uniform" and uniform.digit_primes == [3, 3, 1]
    back = hk.ckks.Context.from_bytes(ctx.to_bytes(), security=None)
    assert back.digit_primes == [2, 3, 2]
    sk = ctx.secret_key()
    ev = hk.ckks.Evaluator(sk.evaluation_keys(rotations=[1]))
    a = rng.uniform(-1, 1, 8)
    x = ev.bind(sk.encrypt(a))
    close(sk.decrypt((x * x) << 1), np.roll(full(ctx, a * a), -1), tol=1e-4)
    with pytest.raises(ValueError, match="uniform"):
        toy_context(**kw, digits="bytes")
    with pytest.raises(hk.InvalidParametersError, match="sets dnum itself"):
        toy_context(**kw, digits="bits", dnum=3)


def test_plaintexts(ckks, rng):
    ctx, sk, pk, _, _ = ckks
    v = rng.uniform(-1, 1, 8)
    pt = ctx.encode(v, level=1, scale=2.0**30)
    assert pt.level == 1 and pt.scale == 2.0**30
    close(pt.decode(), full(ctx, v), 2**-15)
    close(ctx.decode(pt), full(ctx, v), 2**-15)


def test_sparse_slots(ckks, rng):
    ctx, sk, pk, _, ev = ckks
    a = rng.uniform(-1, 1, 8)
    x = pk.encrypt(a, slots=8)
    assert x.slots == 8
    close(sk.decrypt(x), a)
    close(sk.decrypt(ev.rotate(x, 1)), np.roll(a, -1))  # rotations cycle the 8 slots


ops = st.sampled_from(["add", "sub", "mul", "mul_const", "add_const", "rotate", "neg"])


@settings(max_examples=25, deadline=None)
@given(
    a=arrays(np.float64, 8, elements=st.floats(-1, 1)),
    b=arrays(np.float64, 8, elements=st.floats(-1, 1)),
    op=ops,
    c=st.floats(-2, 2),
)
def test_property_one_operation(ckks, a, b, op, c):
    ctx, sk, pk, _, ev = ckks
    A, B = full(ctx, a), full(ctx, b)
    x, y = ev.bind(pk.encrypt(a)), pk.encrypt(b)
    got, want = {
        "add": (x + y, A + B),
        "sub": (x - y, A - B),
        "mul": (x * y, A * B),
        "mul_const": (x * c, A * c),
        "add_const": (x + c, A + c),
        "rotate": (x << 1, np.roll(A, -1)),
        "neg": (-x, -A),
    }[op]
    close(sk.decrypt(got), want)


def test_progress_reports(ckks):
    sk = ckks[1]
    seen = []
    evk = sk.evaluation_keys(rotations=[1, 2, 2], conjugate=True, progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (0, 4) and seen[-1] == (4, 4)  # relin + 2 distinct rotations + conjugation
    assert len(evk.galois_elements) == 3

    def fail(d, t):
        raise RuntimeError("stop")

    import pytest as _pytest

    with _pytest.raises(RuntimeError, match="stop"):
        sk.evaluation_keys(rotations=[1], progress=fail)
    with _pytest.raises(TypeError, match="progress"):
        sk.evaluation_keys(progress="yes")


def test_mul_plain_add(ckks, rng):
    ctx, sk, pk, _, ev = ckks
    a, b, c = (rng.uniform(-1, 1, 8) for _ in range(3))
    x, y = pk.encrypt(a), pk.encrypt(b)
    pt = ctx.encode(c)
    acc = ev.mul_plain(y, pt)  # carries the product's scale
    out = ev.rescale(ev.mul_plain_add(acc, x, pt))
    close(sk.decrypt(out), full(ctx, (a + b) * c))


def test_polynomials(ckks, rng):
    ctx, sk, pk, _, ev = ckks
    a = rng.uniform(-1, 1, 16)
    x = pk.encrypt(a)
    p = hk.ckks.Polynomial.monomial([0.5, -1.0, 0.25, 0.125])  # degree 3, depth 2
    assert (p.degree, p.depth, p.basis) == (3, 2, "monomial")
    y = ev.evaluate_polynomial(x, p)
    assert y.level == x.level - 2 and y.scale == x.scale  # scale-exact
    close(sk.decrypt(y)[:16], np.real(p(a)), 2**-14)
    # A user function: the logistic sigmoid on [-1, 1] by Chebyshev interpolation.
    sig = hk.ckks.Polynomial.interpolate(lambda t: 1 / (1 + np.exp(-4 * t)), -1.0, 1.0, 7)
    assert sig.basis == "chebyshev" and sig.interval == (-1.0, 1.0)
    want = 1 / (1 + np.exp(-4 * a))
    assert np.max(np.abs(np.real(sig(a)) - want)) < 5e-3  # the degree-7 interpolant itself
    z = ev.evaluate_polynomial(x, sig)
    close(sk.decrypt(z)[:16], np.real(sig(a)), 2**-12)
    with pytest.raises(ZeroDivisionError):
        hk.ckks.Polynomial.interpolate(lambda t: 1 / 0, -1.0, 1.0, 3)
    with pytest.raises(hk.InvalidParametersError, match="interval"):
        hk.ckks.Polynomial.chebyshev([1.0], 1.0, -1.0)
    with pytest.raises(hk.OutOfLevelsError):
        ev.evaluate_polynomial(x.drop_level(2), hk.ckks.Polynomial.monomial([0.0] * 8 + [1.0]))
