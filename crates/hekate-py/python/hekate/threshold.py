"""Threshold FHEW (seed 002 §6): k parties, one joint key, decryption by all of them.

>>> import hekate as hk
>>> ctx = hk.fhew.threshold.ThresholdContext("THRESHOLD_STD128", parties=3)
>>> crs = hk.fhew.threshold.CommonRandomString()            # public, shared by every party
>>> shares = [ctx.secret_share(j) for j in range(3)]       # each party keeps its own
>>> pk = hk.fhew.threshold.ThresholdPublicKey.combine(ctx, crs, [s.public_key_share(crs) for s in shares])
>>> bk = ctx.combine_bootstrap_key([s.eval_key_share(crs, pk) for s in shares])
>>> ev = hk.fhew.Evaluator(bk)
>>> c = ev.nand(pk.encrypt([True, False], bk), pk.encrypt([True, True], bk))
>>> ctx.combine_decrypt(c, [s.partial_decrypt(c) for s in shares])   # doctest: +SKIP
array([False,  True])

Every message (shares of the public and evaluation keys, the joint public key, partial
decryptions) pickles; secret shares do not.
"""

from ._native import (
    CommonRandomString,
    EvalKeyShare,
    PartialDecryptions,
    PublicKeyShare,
    SecretShare,
    ThresholdContext,
    ThresholdPublicKey,
)

__all__ = [
    "ThresholdContext",
    "CommonRandomString",
    "SecretShare",
    "PublicKeyShare",
    "EvalKeyShare",
    "ThresholdPublicKey",
    "PartialDecryptions",
]
