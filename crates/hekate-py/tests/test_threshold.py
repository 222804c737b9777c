"""Threshold FHEW with k = 3 parties at THRESHOLD_TOY: the protocol's rounds through
pickled messages, gates under the combined key, decryption by every party."""

import pickle

import numpy as np
import pytest

import hekate as hk

th = hk.fhew.threshold


@pytest.fixture(scope="module")
def protocol():
    ctx = th.ThresholdContext("THRESHOLD_TOY", parties=3, security=None)
    crs = th.CommonRandomString(bytes(range(32)))
    shares = [ctx.secret_share(j) for j in range(3)]
    # Round 1: public-key shares travel (pickled) to whoever combines them.
    pk_shares = [pickle.loads(pickle.dumps(s.public_key_share(crs))) for s in shares]
    pk = th.ThresholdPublicKey.combine(ctx, crs, pk_shares)
    pk = pickle.loads(pickle.dumps(pk))
    # Round 2: evaluation-key shares under the joint public key.
    ek = [pickle.loads(pickle.dumps(s.eval_key_share(crs, pk))) for s in shares]
    bk = ctx.combine_bootstrap_key(ek)
    return ctx, crs, shares, pk, bk


def test_gates_and_threshold_decryption(protocol):
    ctx, crs, shares, pk, bk = protocol
    ev = hk.fhew.Evaluator(bk)
    a = np.array([0, 0, 1, 1], bool)
    b = np.array([0, 1, 0, 1], bool)
    ca, cb = pk.encrypt(a, bk), pk.encrypt(b, bk)
    assert len(ca) == 4 and ca.to_bytes() != cb.to_bytes()
    for name, want in {"nand": ~(a & b), "xor": a ^ b, "or": a | b}.items():
        c = ev.gate(name, ca, cb)
        partials = [pickle.loads(pickle.dumps(s.partial_decrypt(c))) for s in shares]
        assert [p.party for p in partials] == [0, 1, 2]
        assert (ctx.combine_decrypt(c, partials) == want).all(), name


def test_every_party_is_needed(protocol):
    ctx, crs, shares, pk, bk = protocol
    c = pk.encrypt([True], bk)
    with pytest.raises(hk.HekateError):
        ctx.combine_decrypt(c, [s.partial_decrypt(c) for s in shares[:2]])
    with pytest.raises(ValueError, match="cover"):
        ctx.combine_decrypt(pk.encrypt([True, False], bk), [s.partial_decrypt(c) for s in shares])


def test_secret_shares_refuse_to_pickle(protocol):
    with pytest.raises(TypeError, match="secret share"):
        pickle.dumps(protocol[2][0])


def test_bad_arguments():
    with pytest.raises(ValueError, match="THRESHOLD_STD128"):
        th.ThresholdContext("NOPE")
    with pytest.raises(hk.InvalidParametersError, match="parties"):
        th.ThresholdContext("THRESHOLD_TOY", parties=1, security=None)
    with pytest.raises(ValueError, match="32 bytes"):
        th.CommonRandomString(b"short")
    with pytest.raises(hk.InsecureParametersError):
        th.ThresholdContext("THRESHOLD_TOY", parties=3)
