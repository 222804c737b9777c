"""Throughput of hekate.batch: serial, threads x2, processes x2, Ray x1 and Ray x2, for a
CKKS circuit (a product, a rotation, a constant product, an addition) and FHEW NANDs.
Prints markdown tables for BENCHMARKS.md.

    python crates/hekate-py/bench/batch.py            # N = 2^16, 16 limbs; OPENFHE_STD128_LMKCDEY
    python crates/hekate-py/bench/batch.py --quick    # N = 2^13, 4 limbs; TOY (seconds)
"""

import argparse
import os
import pickle
import time

import numpy as np

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import hekate as hk  # noqa: E402


def ckks_circuit(ev, x):
    """x*x + 0.5*(x << 1): mul+relin+rescale, rotate, mul_const+rescale, add."""
    return x * x + 0.5 * (x << 1)


def nand_circuit(ev, a, b):
    return ev.nand(a, b)


def run(name, circuit, inputs, keys, reference, rows):
    import ray

    configs = [("serial", "serial", 1), ("threads", "threads", 2), ("processes", "processes", 2)]
    for label, backend, workers in configs:
        t = time.perf_counter()
        out = hk.batch.evaluate(circuit, inputs, keys, backend=backend, workers=workers)
        rows.append((name, f"{label} x{workers}", len(inputs), time.perf_counter() - t))
        assert [o.to_bytes() for o in out] == reference, label
    for workers in (1, 2):
        with hk.ray.BatchPool(keys, workers=workers) as pool:
            pool.map(circuit, inputs[:workers])  # actors started, keys loaded
            t = time.perf_counter()
            out = pool.map(circuit, inputs)
            rows.append((name, f"ray x{workers}", len(inputs), time.perf_counter() - t))
            assert [o.to_bytes() for o in out] == reference, "ray"
    del ray


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--inputs", type=int, default=None)
    args = p.parse_args()
    import ray

    ray.init(num_cpus=2, include_dashboard=False)
    rows: list = []
    if args.quick:
        ctx = hk.ckks.Context(log_n=13, log_q=[50, 40, 40, 40], log_scale=40, security=None)
        fctx = hk.fhew.Context("TOY", security=None)
    else:
        ctx = hk.ckks.Context(log_n=16, log_q=[60] + [50] * 15, log_p=[60] * 3, log_scale=50)
        fctx = hk.fhew.Context("OPENFHE_STD128_LMKCDEY")
    n_in = args.inputs or (16 if not args.quick else 32)
    sk = ctx.secret_key()
    evk = sk.evaluation_keys(rotations=[1])
    xs = [ev_ct for ev_ct in sk.encrypt(np.random.default_rng(1).uniform(-1, 1, (n_in, 64)))]
    ref = [c.to_bytes() for c in hk.batch.evaluate(ckks_circuit, xs, evk, backend="serial")]
    run(f"CKKS N=2^{ctx.n.bit_length() - 1}, {len(ctx.q_primes)} limbs", ckks_circuit, xs, evk, ref, rows)
    in_bytes = len(pickle.dumps(xs[0])) + len(pickle.dumps(evk)) / n_in

    fsk = fctx.secret_key()
    bk = fsk.bootstrap_key()
    n_g = 64
    bits = np.random.default_rng(2).integers(0, 2, (2, n_g)).astype(bool)
    pairs = [(fsk.encrypt(bits[0, i : i + 8]), fsk.encrypt(bits[1, i : i + 8])) for i in range(0, n_g, 8)]
    fref = [c.to_bytes() for c in hk.batch.evaluate(nand_circuit, pairs, bk, backend="serial")]
    run(f"FHEW {fctx.name}, 8 NANDs per input", nand_circuit, pairs, bk, fref, rows)
    ray.shutdown()

    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        cpu = "?"
    print(f"CPU: {cpu}, {os.cpu_count()} cores; hekate {hk.__version__}; "
          f"CKKS input + key share ~{in_bytes / 1e6:.2f} MB per input\n")
    print("| workload | backend | inputs | wall s | inputs/s | vs serial |")
    print("|---|---|---|---|---|---|")
    serial = {w: s for w, b, n, s in rows if b.startswith("serial")}
    for w, b, n, s in rows:
        print(f"| {w} | {b} | {n} | {s:.2f} | {n / s:.2f} | {serial[w] / s:.2f}x |")


if __name__ == "__main__":
    main()
