"""BGV: exact arithmetic modulo ``t`` on integer vectors (the shared integer core).

>>> import numpy as np, hekate as hk
>>> ctx = hk.bgv.for_depth(t=65537, depth=4)          # 128-bit, chain sized for 4 products
>>> sk = ctx.secret_key(); ev = hk.bgv.Evaluator(sk.evaluation_keys(rotations=[1]))
>>> x = sk.public_key().encrypt(np.arange(8))
>>> with ev:
...     y = x * x + 3 * (x << 1)
>>> sk.decrypt(y)[:4]                                # doctest: +SKIP
array([ 3, 7, 13, 21], dtype=uint64)

Values are ``uint64`` (``signed=True``: ``int64`` centred mod t); batch slots by default
(2 rows of N/2; t prime and 1 mod 2N), ``coefficients=True`` for coefficient encoding.
"""

from ._integer import constructors
from ._native import (
    IntegerCiphertext as Ciphertext,
    IntegerEvaluationKeys as EvaluationKeys,
    IntegerEvaluator as Evaluator,
    IntegerPlaintext as Plaintext,
    IntegerPublicKey as PublicKey,
    IntegerSecretKey as SecretKey,
)

Context, for_depth = constructors("bgv")

__all__ = ["Context", "for_depth", "SecretKey", "PublicKey", "EvaluationKeys", "Plaintext", "Ciphertext", "Evaluator"]
