"""Full-RNS CKKS: approximate arithmetic on vectors of real or complex numbers.

>>> import numpy as np, hekate as hk
>>> ctx = hk.ckks.Context(log_n=13, log_q=[50, 40, 40], log_scale=40)   # 128-bit secure
>>> sk = ctx.secret_key(); evk = sk.evaluation_keys(rotations=[1])
>>> ev = hk.ckks.Evaluator(evk)
>>> x = sk.public_key().encrypt(np.linspace(-1, 1, 8))
>>> with ev:
...     y = x * x + 0.5 * (x << 1)
>>> sk.decrypt(y)[:8]          # doctest: +SKIP

Every object is immutable and safe to share between threads; heavy calls release the
GIL. Everything except secret keys pickles (through hekate's validated byte format).
"""

from ._native import (
    BootstrapKeys,
    BootstrapParameters,
    Bootstrapper,
    CkksCiphertext as Ciphertext,
    CkksContext as Context,
    CkksEvaluationKeys as EvaluationKeys,
    CkksEvaluator as Evaluator,
    CkksPlaintext as Plaintext,
    CkksPublicKey as PublicKey,
    CkksSecretKey as SecretKey,
    Polynomial,
)

__all__ = [
    "Context",
    "SecretKey",
    "PublicKey",
    "EvaluationKeys",
    "Plaintext",
    "Ciphertext",
    "Evaluator",
    "Polynomial",
    "BootstrapParameters",
    "BootstrapKeys",
    "Bootstrapper",
]
