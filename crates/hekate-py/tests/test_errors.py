"""Errors: each hekate error kind arrives as its class with hekate's message; hostile
bytes raise DeserializeError and never a panic."""

import pickle

import pytest
from hypothesis import given, settings, strategies as st

import hekate as hk
from conftest import toy_context


def test_classes_and_builtins():
    assert issubclass(hk.InvalidParametersError, ValueError)
    assert issubclass(hk.InsecureParametersError, hk.InvalidParametersError)
    assert issubclass(hk.PrimeGenerationError, hk.InvalidParametersError)
    assert issubclass(hk.MissingKeyError, LookupError)
    assert issubclass(hk.OutOfLevelsError, ArithmeticError)
    for c in (hk.ParameterMismatchError, hk.LevelMismatchError, hk.ScaleMismatchError,
              hk.InvalidMessageError, hk.DeserializeError):
        assert issubclass(c, hk.HekateError) and issubclass(c, ValueError)
    e = pickle.loads(pickle.dumps(hk.MissingKeyError("missing key: x")))
    assert isinstance(e, hk.MissingKeyError) and str(e) == "missing key: x"


def test_each_kind(ckks):
    ctx, sk, pk, evk, ev = ckks
    with pytest.raises(hk.InvalidParametersError, match="^invalid parameters: "):
        toy_context(log_n=40)
    with pytest.raises(hk.InvalidParametersError, match="unknown key-switching method"):
        toy_context(key_switching="fast")
    with pytest.raises(hk.InsecureParametersError, match="^insecure parameters: "):
        hk.ckks.Context(log_n=12, log_q=[60] * 8, log_p=[60, 60])
    with pytest.raises(hk.PrimeGenerationError, match="^prime generation failed: "):
        toy_context(log_n=16, log_q=[20, 20])
    other = toy_context(log_n=13)
    with pytest.raises(hk.ParameterMismatchError, match="^parameter mismatch: "):
        other.secret_key().decrypt(pk.encrypt([1.0]))
    x = pk.encrypt([0.5])
    with pytest.raises(hk.ScaleMismatchError, match="^scale mismatch: "):
        ev.rescale_to(x, 1.0)  # the multiplier q_l / Δ would be below 2^20
    with pytest.raises(hk.OutOfLevelsError, match="^out of levels: "):
        x.drop_level(3).rescale()
    with pytest.raises(hk.MissingKeyError, match="^missing key: "):
        ev.rotate(x, 5)
    with pytest.raises(hk.InvalidMessageError, match="^invalid message: "):
        pk.encrypt([0.0] * (ctx.slots + 1))
    with pytest.raises(hk.DeserializeError, match="^deserialization failed: "):
        hk.ckks.Ciphertext.from_bytes(b"garbage", ctx)


def test_inspect(ckks):
    ctx, sk, pk, _, _ = ckks
    h = hk.inspect(pk.encrypt([1.0]).to_bytes())
    assert h["magic"] == "HKT" and h["version"] == hk.FORMAT_VERSION
    assert h["tag"] == 18 and "ciphertext" in h["tag_name"]
    with pytest.raises(hk.DeserializeError):
        hk.inspect(b"HKT")


@pytest.fixture(scope="module")
def valid_bytes(ckks, fhew):
    ctx, sk, pk, evk, _ = ckks
    fctx, fsk, bk, _ = fhew
    return {
        "ct": (pk.encrypt([0.5]).to_bytes(), lambda b: hk.ckks.Ciphertext.from_bytes(b, ctx)),
        "seeded": (sk.encrypt([0.5]).to_bytes(), lambda b: hk.ckks.Ciphertext.from_bytes(b, ctx)),
        "pt": (ctx.encode([0.5]).to_bytes(), lambda b: hk.ckks.Plaintext.from_bytes(b, ctx)),
        "ctx": (ctx.to_bytes(), lambda b: hk.ckks.Context.from_bytes(b, security=None)),
        "evk": (evk.to_bytes(), lambda b: hk.ckks.EvaluationKeys.from_bytes(b, ctx)),
        "lwe": (fsk.encrypt([True, False]).to_bytes(), lambda b: hk.fhew.LweArray.from_bytes(b, fctx)),
    }


@settings(max_examples=60, deadline=None)
@given(
    which=st.sampled_from(["ct", "seeded", "pt", "ctx", "evk", "lwe"]),
    edits=st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 255)), min_size=1, max_size=4),
    cut=st.one_of(st.none(), st.integers(0, 10**9)),
)
def test_hostile_bytes_never_panic(valid_bytes, which, edits, cut):
    data, load = valid_bytes[which]
    b = bytearray(data)
    for pos, val in edits:
        b[pos % len(b)] = val
    if cut is not None:
        b = b[: cut % (len(b) + 1)]
    try:
        load(bytes(b))
    except hk.HekateError:
        pass  # DeserializeError (or a validated parameter error), never a PanicException
