"""A batch job on Ray: one circuit, many encrypted inputs, keys shipped once per worker.

    python crates/hekate-py/examples/ray_batch.py [--toy] [--address ADDRESS]

Without --address a local Ray cluster is started (2 CPUs). The results are checked byte
for byte against a serial run.
"""

import argparse
import os
import time

import numpy as np
import ray

import hekate as hk


def circuit(ev, x):
    """Mean of squares over 8 slots: x*x, then three rotations and additions."""
    y = x * x
    for k in (1, 2, 4):
        y = y + (y << k)
    return y * 0.125


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--toy", action="store_true", help="tiny insecure parameters (tests)")
    p.add_argument("--address", help="an existing Ray cluster")
    p.add_argument("--inputs", type=int, default=16)
    args = p.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(
        address=args.address,
        num_cpus=None if args.address else 2,
        include_dashboard=False,
        # the workers import this file's `circuit` by value (cloudpickle), nothing to install
    )
    ctx = hk.ckks.Context(
        log_n=12 if args.toy else 14,
        log_q=[60, 40, 40, 40],
        log_scale=40,
        security=None if args.toy else 128,
    )
    sk = ctx.secret_key()
    evk = sk.evaluation_keys(rotations=[1, 2, 4])
    data = np.random.default_rng(7).uniform(-1, 1, (args.inputs, 8))
    cts = sk.encrypt(data)

    t = time.perf_counter()
    with hk.ray.BatchPool(evk, workers=2) as pool:
        out = pool.map(circuit, cts)
        loads = pool.key_loads()
    t_ray = time.perf_counter() - t
    serial = hk.batch.evaluate(circuit, cts, evk, backend="serial")
    assert [c.to_bytes() for c in out] == [c.to_bytes() for c in serial]
    means = sk.decrypt(out)[:, 0]
    assert np.max(np.abs(means - (data**2).mean(axis=1))) < 1e-4
    print(f"{args.inputs} inputs on 2 Ray workers in {t_ray:.2f} s; keys loaded per worker:",
          [n for _, n in loads])
    print("means of squares:", np.round(means[:4], 5), "...")
    ray.shutdown()


if __name__ == "__main__":
    main()
