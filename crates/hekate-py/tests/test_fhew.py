"""FHEW gates, arrays and look-up tables."""

import itertools

import numpy as np
import pytest

import hekate as hk

A = np.array([0, 0, 1, 1], bool)
B = np.array([0, 1, 0, 1], bool)


def test_truth_tables(fhew):
    ctx, sk, bk, ev = fhew
    a, b = sk.encrypt(A), sk.encrypt(B)
    want = {
        "and": A & B, "or": A | B, "nand": ~(A & B), "nor": ~(A | B),
        "xor": A ^ B, "xnor": ~(A ^ B),
    }
    for name, w in want.items():
        assert (sk.decrypt(ev.gate(name, a, b)) == w).all(), name
    assert (sk.decrypt(ev.and_(a, b)) == A & B).all()
    assert (sk.decrypt(ev.or_(a, b)) == A | B).all()
    assert (sk.decrypt(ev.nand(a, b)) == ~(A & B)).all()
    assert (sk.decrypt(ev.nor(a, b)) == ~(A | B)).all()
    assert (sk.decrypt(ev.xor(a, b)) == A ^ B).all()
    assert (sk.decrypt(ev.xnor(a, b)) == ~(A ^ B)).all()
    assert (sk.decrypt(ev.not_(a)) == ~A).all()
    assert (sk.decrypt(ev.refresh(a)) == A).all()


def test_operators(fhew):
    ctx, sk, bk, ev = fhew
    a, b = sk.encrypt(A), sk.encrypt(B)
    assert (sk.decrypt(~a) == ~A).all()  # no key needed
    with pytest.raises(hk.MissingKeyError):
        a & b
    with ev:
        assert (sk.decrypt(a & b) == A & B).all()
        assert (sk.decrypt(a | b) == A | B).all()
        assert (sk.decrypt((a ^ b) & ~a) == (A ^ B) & ~A).all()
    assert (sk.decrypt(ev.bind(a) & b) == A & B).all()


def test_majority(fhew):
    ctx, sk, bk, ev = fhew
    bits = np.array(list(itertools.product([0, 1], repeat=3)), bool)
    a, b, c = (sk.encrypt(bits[:, i]) for i in range(3))
    assert (sk.decrypt(ev.majority(a, b, c)) == (bits.sum(1) >= 2)).all()


def test_lut(fhew):
    ctx, sk, bk, ev = fhew
    t = 4
    m = np.array([0, 1, 2, 3])
    table = [(v * v + 1) % t for v in range(t)]
    out = sk.decrypt_int(ev.lut(sk.encrypt_int(m, t), table, t), t)
    assert list(out) == [table[v] for v in m]
    with pytest.raises(ValueError, match="t entries"):
        ev.lut(sk.encrypt_int(m, t), [0, 1], t)


def test_arrays(fhew):
    ctx, sk, bk, ev = fhew
    a = sk.encrypt(A)
    assert len(a) == 4 and len(a[1:3]) == 2
    assert (sk.decrypt(a[::-1]) == A[::-1]).all()
    assert (sk.decrypt(hk.fhew.LweArray.concat([a, a[0]])) == np.r_[A, A[:1]]).all()
    with pytest.raises(IndexError):
        a[4]
    with pytest.raises(ValueError, match="element-wise"):
        ev.nand(a, a[:2])


def test_presets_and_methods(fhew):
    assert "OPENFHE_STD128_LMKCDEY" in hk.fhew.presets() and "TOY" in hk.fhew.presets()
    ctx, sk, _, _ = fhew
    bk = sk.bootstrap_key(method="GINX")
    ev = hk.fhew.Evaluator(bk, products="ntt")
    assert (sk.decrypt(ev.nand(sk.encrypt(A), sk.encrypt(B))) == ~(A & B)).all()
    with pytest.raises(hk.InvalidParametersError, match="no blind-rotation method"):
        sk.bootstrap_key(method="nope")
    with pytest.raises(hk.InvalidParametersError, match="unknown FHEW products"):
        hk.fhew.Evaluator(bk, products="fast")
    with pytest.raises(hk.InsecureParametersError):
        hk.fhew.Context("TOY")


def test_bootstrap_key_progress(fhew, capsys):
    ctx, sk, _, _ = fhew
    seen = []
    sk.bootstrap_key(progress=lambda d, t: seen.append((d, t)))
    assert seen[0][0] == 0 and seen[-1][0] == seen[-1][1] > 0
    sk.bootstrap_key(progress=True)
    err = capsys.readouterr().err
    assert "bootstrapping key [" in err and err.endswith("\n")


def test_evaluator_properties(fhew):
    ctx, sk, bk, ev = fhew
    assert ev.context is ctx and ev.key is bk
    assert ev.arithmetic in ("Ntt", "Fourier", "FourierCompact")
    assert ev.decomposition in ("Exact", "Approximate")
    assert ev.extra_memory_bytes >= 0
