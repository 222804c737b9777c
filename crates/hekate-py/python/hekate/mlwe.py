"""MLWE-CKKS (ModHE and DPad-HE): CKKS over module lattices.

A rank-``r`` ciphertext is ``1 + r`` polynomials of a small degree ``n``: an MLWE sample
of dimension ``r·n`` (as hard as RLWE at ``r·n``), with ``n/2`` slots and ``n``-point
transforms. Relinearization is ModHE's (``method="modhe"``) or DPad-HE's
(``method="dpad"``: a temporary rank ``r̂`` over a second special modulus ``P̂``).

>>> import numpy as np, hekate as hk
>>> ctx = hk.mlwe.Context(10, 2, log_q=[60, 40, 40], log_p=[60], log_scale=40,
...                       dpad=(3, [60, 55]), security=None)          # doctest: +SKIP
>>> sk = ctx.secret_key()                                              # doctest: +SKIP
>>> ev = hk.mlwe.Evaluator(ctx, [sk.relinearization_key("dpad")])      # doctest: +SKIP
>>> x = sk.public_key().encrypt(np.linspace(-1, 1, 8))                 # doctest: +SKIP
>>> with ev:                                                           # doctest: +SKIP
...     y = x * x + 0.5
>>> sk.decrypt(y)[:8]                                                  # doctest: +SKIP

Every object is immutable and safe to share between threads; heavy calls release the
GIL. Everything except secret keys pickles (through hekate's validated byte format).
"""

from ._native import (
    MlweCiphertext as Ciphertext,
    MlweContext as Context,
    MlweEvaluator as Evaluator,
    MlweHoistedRotationKeys as HoistedRotationKeys,
    MlwePublicKey as PublicKey,
    MlweRankReductionKey as RankReductionKey,
    MlweRelinearizationKey as RelinearizationKey,
    MlweRotationKey as RotationKey,
    MlweSecretKey as SecretKey,
    RlweBridge,
)

__all__ = [
    "Context",
    "SecretKey",
    "PublicKey",
    "RelinearizationKey",
    "RankReductionKey",
    "RotationKey",
    "HoistedRotationKeys",
    "Ciphertext",
    "Evaluator",
    "RlweBridge",
]
