"""What the Python binding adds to a call: a CKKS multiply at N = 2^14 and an FHEW NAND,
each timed as a Python loop of binding calls against a Rust loop of the same calls in the
same process (no Python inside), rounds interleaved. Prints a markdown table.

    python crates/hekate-py/bench/overhead.py [--rounds 5] [--iters 50] [--threads 1]
"""

import argparse
import platform
import time

import numpy as np

import hekate as hk
from hekate import _native


def cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--iters", type=int, default=50, help="multiplies per round")
    p.add_argument("--gates", type=int, default=20, help="NANDs per round")
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    hk.set_num_threads(args.threads)

    ctx = hk.ckks.Context(log_n=14, log_q=[60, 40, 40, 40, 40, 40, 40, 40], log_scale=40)
    sk = ctx.secret_key()
    ev = hk.ckks.Evaluator(sk.evaluation_keys())
    a, b = sk.encrypt(np.linspace(-1, 1, 64)), sk.encrypt(np.linspace(1, -1, 64))
    a, b = ev.add(a, a), ev.add(b, b)  # not seeded: the same work as any ciphertext

    fctx = hk.fhew.Context("OPENFHE_STD128_LMKCDEY")
    fsk = fctx.secret_key()
    fev = hk.fhew.Evaluator(fsk.bootstrap_key())
    x, y = fsk.encrypt([True]), fsk.encrypt([False])

    rows = {"ckks": ([], []), "nand": ([], [])}
    for _ in range(args.rounds):
        t = time.perf_counter()
        for _ in range(args.iters):
            ev.mul(a, b)
        rows["ckks"][0].append((time.perf_counter() - t) / args.iters)
        rows["ckks"][1].append(_native._rust_time_mul(ev, a, b, args.iters) / args.iters)
        t = time.perf_counter()
        for _ in range(args.gates):
            fev.nand(x, y)
        rows["nand"][0].append((time.perf_counter() - t) / args.gates)
        rows["nand"][1].append(_native._rust_time_nand(fev, x, y, args.gates) / args.gates)

    print(f"CPU: {cpu()}; hekate {hk.__version__}; {args.threads} thread(s); "
          f"{args.rounds} interleaved rounds; median per call\n")
    print("| operation | Python call | Rust call | Python / Rust |")
    print("|---|---|---|---|")
    names = {
        "ckks": f"CKKS mul + relin, N = 2^14, {len(ctx.q_primes)} limbs",
        "nand": "FHEW NAND, OPENFHE_STD128_LMKCDEY",
    }
    for k, (py, rs) in rows.items():
        ratios = [p_ / r_ for p_, r_ in zip(py, rs)]
        print(f"| {names[k]} | {np.median(py) * 1e3:.3f} ms | {np.median(rs) * 1e3:.3f} ms | "
              f"{np.median(ratios):.3f} (rounds {min(ratios):.3f}-{max(ratios):.3f}) |")


if __name__ == "__main__":
    main()
