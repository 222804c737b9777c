"""A client/server split: the server computes on ciphertexts with public keys only.

The client makes the keys, keeps the secret key, and sends the server bytes: the
parameters, the evaluation keys and encrypted inputs. The server answers with an encrypted
result (bytes again); only the client can read it.

    python crates/hekate-py/examples/client_server.py [--toy]
"""

import pickle
import sys

import numpy as np

import hekate as hk

toy = "--toy" in sys.argv


def server(request: bytes) -> bytes:
    """Computes a weighted sum of the client's vector, rotated: no secret key here."""
    evk, ct = pickle.loads(request)  # hekate's validated bytes inside the pickle
    ev = hk.ckks.Evaluator(evk)
    weights = np.linspace(0.5, 1.5, 16)
    with ev:
        score = ct * weights  # plaintext product, rescaled
        total = score + (score << 1) + (score << 2) + (score << 3)
    return pickle.dumps(total)


# --- client ---
ctx = hk.ckks.Context(
    log_n=12 if toy else 14, log_q=[60, 40, 40], log_scale=40, security=None if toy else 128
)
sk = ctx.secret_key()
evk = sk.evaluation_keys(rotations=[1, 2, 3])
x = np.random.default_rng(1).uniform(0, 1, 16)
request = pickle.dumps((evk, sk.encrypt(x)))  # sk.encrypt: seed-compressed, half the bytes
try:
    pickle.dumps(sk)
except TypeError as e:
    print("the secret key stays with the client:", e)

response = server(request)

total = sk.decrypt(pickle.loads(response))
w = np.linspace(0.5, 1.5, 16) * x
want = sum(np.roll(np.r_[w, np.zeros(ctx.slots - 16)], -k) for k in range(4))[:4]
print(f"request {len(request) / 1e6:.2f} MB, response {len(response) / 1e6:.2f} MB")
print("result", np.round(total[:4], 6), "expected", np.round(want, 6))
assert np.max(np.abs(total[:4] - want)) < 1e-5
