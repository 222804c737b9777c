"""Paired ratios of scripts/peers/bfv_bgv.sh's rounds: for each (scheme, log N, operation),
hekate's median time over the faster peer's in the same round, then the median and range of
those ratios over the rounds. Prints a markdown table.

  python3 scripts/peers/bfv_bgv_summary.py /tmp/hekate-bfvbgv-HHMMSS
"""
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers_common import load_jsonl  # noqa: E402

# hekate key -> (OpenFHE op, Lattigo op prefix)
OPS = {
    "encrypt": ("encrypt_pk", "encrypt_pk"),
    "tensor": ("tensor(EvalMultNoRelin)", "tensor("),
    "relin": ("relin_only", "relin_only"),
    "mult_relin": ("hmult+relin(EvalMult)", "mult+relin("),
    "rotate": ("rotate(1)", "rotate_columns(1)"),
    "decrypt": ("decrypt+decode", "decrypt+decode"),
    "encode": (None, "encode"),
    "chain_per_level": (None, "chain x^(2^depth)"),
}


def main(d):
    rounds = sorted({int(os.path.basename(p).split("-")[1].split(".")[0])
                     for p in glob.glob(os.path.join(d, "hekate-*.jsonl"))})
    ratios = {}
    for r in rounds:
        hk = load_jsonl(os.path.join(d, f"hekate-{r}.jsonl"))
        of = load_jsonl(os.path.join(d, f"openfhe-{r}.jsonl"))
        lt = load_jsonl(os.path.join(d, f"lattigo-{r}.jsonl"))
        for h in hk:
            if h.get("variant") not in ("Exact", None):
                continue
            scheme, logn = h["scheme"], h["logN"]
            for key, (oop, lop) in OPS.items():
                mine = h.get(key)
                if mine is None:
                    continue
                peers = {}
                for rec in of:
                    if rec.get("scheme") == scheme and rec.get("logN") == logn and rec.get("op") == oop:
                        peers["OpenFHE"] = rec["median_s"] * 1e3
                for rec in lt:
                    if (rec.get("scheme", "").upper() == scheme and rec.get("logN") == logn
                            and str(rec.get("op", "")).startswith(lop) and "median_ms" in rec):
                        v = rec["median_ms"]
                        if key == "chain_per_level":
                            v = v / max(1, rec.get("depth", 10))
                        peers["Lattigo"] = v
                if not peers:
                    continue
                name, best = min(peers.items(), key=lambda kv: kv[1])
                ratios.setdefault((scheme, logn, key), []).append((mine / best, mine, best, name, peers))
    print("| scheme | log N | op | hekate ms | OpenFHE ms | Lattigo ms | hekate / faster peer (median, range) | rounds |")
    print("|---|---|---|---|---|---|---|---|")
    for (scheme, logn, key), v in sorted(ratios.items()):
        rs = [x[0] for x in v]
        med = lambda i: statistics.median(x[i] for x in v)
        of = statistics.median(x[4]["OpenFHE"] for x in v if "OpenFHE" in x[4]) if any("OpenFHE" in x[4] for x in v) else None
        lt = statistics.median(x[4]["Lattigo"] for x in v if "Lattigo" in x[4]) if any("Lattigo" in x[4] for x in v) else None
        f = lambda x: "—" if x is None else f"{x:.2f}"
        print(f"| {scheme} | {logn} | {key} | {med(1):.2f} | {f(of)} | {f(lt)} | "
              f"{statistics.median(rs):.3f} ({min(rs):.3f}-{max(rs):.3f}) | {len(rs)} |")


if __name__ == "__main__":
    main(sys.argv[1])
