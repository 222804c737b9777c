"""Quick start: CKKS on numpy arrays, then FHEW gates.

    python crates/hekate-py/examples/quickstart.py          # 128-bit parameters
    python crates/hekate-py/examples/quickstart.py --toy    # tiny insecure ones (tests)
"""

import sys

import numpy as np

import hekate as hk

toy = "--toy" in sys.argv

# CKKS: N = 2^14 (2^12 with --toy), a 60-bit base prime and three 40-bit levels, scale 2^40.
ctx = hk.ckks.Context(
    log_n=12 if toy else 14, log_q=[60, 40, 40, 40], log_scale=40, security=None if toy else 128
)
sk = ctx.secret_key()
evk = sk.evaluation_keys(rotations=[1])  # relinearization + the rotation by 1: public
ev = hk.ckks.Evaluator(evk)

x = np.linspace(-1, 1, 8)
ct = sk.public_key().encrypt(x)
with ev:  # operators that need keys use ev
    y = ct * ct + 0.5 * (ct << 1)  # multiply (relinearized, rescaled), rotate, scale, add
got = sk.decrypt(y)[:8]
want = x * x + 0.5 * np.roll(np.r_[x, np.zeros(ctx.slots - 8)], -1)[:8]
print("CKKS   x*x + 0.5*(x << 1) =", np.round(got, 6))
print(f"       max error {np.max(np.abs(got - want)):.1e} at level {y.level}")
assert np.max(np.abs(got - want)) < 1e-5

# FHEW: encrypted booleans, bootstrapped gates.
fctx = hk.fhew.Context("TOY", security=None) if toy else hk.fhew.Context("OPENFHE_STD128_LMKCDEY")
fsk = fctx.secret_key()
fev = hk.fhew.Evaluator(fsk.bootstrap_key())
a, b = np.array([0, 0, 1, 1], bool), np.array([0, 1, 0, 1], bool)
ca, cb = fsk.encrypt(a), fsk.encrypt(b)
with fev:
    c = (ca & cb) | ~ca
print("FHEW   (a AND b) OR NOT a =", fsk.decrypt(c).astype(int))
assert (fsk.decrypt(c) == ((a & b) | ~a)).all()
