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

    ctx = hk.ckks.Context(log_n=14, log_q=[60, 40, 40, 40, 40, 40, 40], log_p=[60, 60], log_scale=40)
    sk = ctx.secret_key()
    ev = hk.ckks.Evaluator(sk.evaluation_keys())
    a, b = sk.encrypt(np.linspace(-1, 1, 64)), sk.encrypt(np.linspace(1, -1, 64))
    a, b = ev.add(a, a), ev.add(b, b)  # not seeded: the same work as any ciphertext

    fctx = hk.fhew.Context("OPENFHE_STD128_LMKCDEY")
    fsk = fctx.secret_key()
    fev = hk.fhew.Evaluator(fsk.bootstrap_key())
    x, y = fsk.encrypt([True]), fsk.encrypt([False])

    rows = {"ckks": ([], []), "nand": ([], [])}

    def py_mul():
        t = time.perf_counter()
        for _ in range(args.iters):
            ev.mul(a, b)
        return (time.perf_counter() - t) / args.iters

    def py_nand():
        t = time.perf_counter()
        for _ in range(args.gates):
            fev.nand(x, y)
        return (time.perf_counter() - t) / args.gates

    def rs_mul():
        return _native._rust_time_mul(ev, a, b, args.iters) / args.iters

    def rs_nand():
        return _native._rust_time_nand(fev, x, y, args.gates) / args.gates

    for r in range(args.rounds):
        # ABBA order within a round, alternating which side starts, so drift cancels.
        for key, py, rs in (("ckks", py_mul, rs_mul), ("nand", py_nand, rs_nand)):
            first, second = (py, rs) if r % 2 == 0 else (rs, py)
            t1, t2 = first(), second()
            t3, t4 = second(), first()
            p_, r_ = ((t1 + t4) / 2, (t2 + t3) / 2) if first is py else ((t2 + t3) / 2, (t1 + t4) / 2)
            rows[key][0].append(p_)
            rows[key][1].append(r_)

    print(f"CPU: {cpu()}; hekate {hk.__version__}; {args.threads} thread(s); "
          f"{args.rounds} interleaved rounds; median per call\n")
    print("| operation | Python call (min / median) | Rust call (min / median) | Python / Rust: of the minima, median of rounds |")
    print("|---|---|---|---|")
    names = {
        "ckks": f"CKKS mul + relin, N = 2^14, {len(ctx.q_primes)} limbs",
        "nand": "FHEW NAND, OPENFHE_STD128_LMKCDEY",
    }
    for k, (py, rs) in rows.items():
        ratios = [p_ / r_ for p_, r_ in zip(py, rs)]
        print(f"| {names[k]} | {min(py) * 1e3:.3f} / {np.median(py) * 1e3:.3f} ms | "
              f"{min(rs) * 1e3:.3f} / {np.median(rs) * 1e3:.3f} ms | "
              f"{min(py) / min(rs):.3f}, {np.median(ratios):.3f} |")


if __name__ == "__main__":
    main()
