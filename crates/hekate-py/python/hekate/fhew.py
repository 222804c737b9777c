"""FHEW gate bootstrapping: boolean gates and look-up tables on LWE ciphertexts.

>>> import numpy as np, hekate as hk
>>> ctx = hk.fhew.Context("OPENFHE_STD128_LMKCDEY")
>>> sk = ctx.secret_key(); ev = hk.fhew.Evaluator(sk.bootstrap_key())
>>> a = sk.encrypt(np.array([1, 0, 1, 1], bool)); b = sk.encrypt([True, True, False, True])
>>> sk.decrypt(ev.nand(a, b))   # doctest: +SKIP
array([False,  True,  True, False])

Gates apply element-wise to :class:`LweArray` s, in parallel, with the GIL released.
Threshold FHEW (k parties, one joint key) is :mod:`hekate.fhew.threshold`.
"""

from . import threshold
from ._native import (
    FhewBootstrapKey as BootstrapKey,
    FhewContext as Context,
    FhewEvaluator as Evaluator,
    FhewSecretKey as SecretKey,
    LweArray,
    fhew_presets as presets,
)

__all__ = ["Context", "SecretKey", "BootstrapKey", "Evaluator", "LweArray", "presets", "threshold"]
