"""OpenFHE BinFHE NAND gates on request, for `hekate bench fhew-peer`.

Generates a context and keys for each configuration (`SET:METHOD`, OpenFHE's names),
checks NAND on all four inputs, then prints one line `ready LABEL...` and answers each
line `nand K` read from standard input by timing K NAND gates per configuration (one
configuration after the other, after one untimed gate each) and printing
`times MS...`: the median milliseconds per configuration, in the order of `ready`.
`keygen` answers `times S...`: the seconds each configuration's bootstrapping keys
(`BTKeyGen`) took. `quit` (or the end of the input) stops it. Any failure is printed as
`error TEXT`.

    OMP_NUM_THREADS=1 python openfhe_binfhe_serve.py --configs STD128:GINX,STD128_LMKCDEY:LMKCDEY

Needs the `openfhe` Python package (../shared/peers/README.md says how to install it).
"""
import argparse
import statistics
import sys
import time

import openfhe as o


def say(line):
    print(line, flush=True)


def setup(config):
    """Context, the ciphertexts of (1, 0) and the seconds of `BTKeyGen`, for `SET:METHOD`."""
    pset, meth = config.split(":")
    cc = o.BinFHEContext()
    cc.GenerateBinFHEContext(getattr(o.BINFHE_PARAMSET, pset), getattr(o.BINFHE_METHOD, meth))
    sk = cc.KeyGen()
    t = time.perf_counter()
    cc.BTKeyGen(sk)
    keygen_s = time.perf_counter() - t
    for b1 in (0, 1):
        for b2 in (0, 1):
            r = cc.Decrypt(sk, cc.EvalBinGate(o.NAND, cc.Encrypt(sk, b1), cc.Encrypt(sk, b2)))
            if r != 1 - (b1 & b2):
                raise RuntimeError(f"{config}: NAND({b1}, {b2}) decrypted to {r}")
    return cc, cc.Encrypt(sk, 1), cc.Encrypt(sk, 0), keygen_s


def median_ms(cc, c1, c2, k):
    cc.EvalBinGate(o.NAND, c1, c2)
    ts = []
    for _ in range(k):
        t = time.perf_counter()
        cc.EvalBinGate(o.NAND, c1, c2)
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", default="STD128:GINX,STD128_LMKCDEY:LMKCDEY")
    a = ap.parse_args()
    try:
        labels = a.configs.split(",")
        contexts = [setup(c) for c in labels]
    except Exception as e:  # reported to the driver, which stops
        say(f"error {type(e).__name__}: {e}")
        return
    say("ready " + " ".join(labels))
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        if words == ["keygen"]:
            say("times " + " ".join(f"{c[3]:.3f}" for c in contexts))
            continue
        if words[0] != "nand" or len(words) != 2 or not words[1].isdigit():
            say(f"error unknown request {line.strip()!r}")
            continue
        k = max(1, int(words[1]))
        say("times " + " ".join(f"{median_ms(cc, c1, c2, k):.3f}" for cc, c1, c2, _ in contexts))


if __name__ == "__main__":
    main()
