"""Paired ratios of scripts/peers/compare.sh's rounds (CKKS, N = 2^16, dnum 3, one thread):
for each (hekate cap, L, operation), hekate's median time over the faster peer's in the same
round, then the median and range of those ratios over the rounds. Prints a markdown table.

  python3 scripts/peers/compare_summary.py /tmp/hekate-peers-HHMMSS
"""
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers_common import load_jsonl  # noqa: E402

# hekate column -> (OpenFHE op, Lattigo op)
OPS = {
    "encrypt": ("encrypt_pk", "encrypt_pk"),
    "decrypt+decode": ("decrypt+decode", "decrypt+decode"),
    "mul+relin": ("hmult+relin(EvalMult)", "hmult+relin(MulRelin)"),
    "rescale": ("rescale(ModReduce)", "rescale"),
    "rotate": ("rotate(1)", "rotate(1)"),
}


def load_hekate(path):
    """Rows of `hekate bench ckks`'s markdown table as {L: {column: ms}}."""
    out, head = {}, None
    with open(path) as f:
        for line in f:
            if not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if head is None:
                head = cells
                continue
            if cells[0].startswith(":") or cells[0].startswith("-"):
                continue
            row = dict(zip(head, cells))
            out[int(row["L"])] = {k: float(row[k]) for k in OPS if re.match(r"^[0-9.]+$", row.get(k, ""))}
    return out


def peer_ms(recs, limbs, op):
    for r in recs:
        if r.get("limbs_Q") == limbs and r.get("op") == op and "median_s" in r:
            return r["median_s"] * 1e3
    return None


def main(d):
    files = glob.glob(os.path.join(d, "hekate-*-*.md"))
    keys = sorted({tuple(os.path.basename(p)[len("hekate-"):-3].rsplit("-", 1)) for p in files})
    ratios = {}
    for cap, rnd in keys:
        hk = load_hekate(os.path.join(d, f"hekate-{cap}-{rnd}.md"))
        of = load_jsonl(os.path.join(d, f"openfhe-{rnd}.jsonl"))
        lt = load_jsonl(os.path.join(d, f"lattigo-{rnd}.jsonl"))
        for limbs, row in hk.items():
            for key, (oop, lop) in OPS.items():
                if key not in row:
                    continue
                peers = {n: v for n, v in (("OpenFHE", peer_ms(of, limbs, oop)),
                                           ("Lattigo", peer_ms(lt, limbs, lop))) if v is not None}
                if not peers:
                    continue
                best = min(peers.values())
                ratios.setdefault((cap, limbs, key), []).append((row[key] / best, row[key], peers))
    print("| hekate cap | L | op | hekate ms | OpenFHE ms | Lattigo ms | hekate / faster peer: median (range) | rounds |")
    print("|---|---|---|---|---|---|---|---|")
    for (cap, limbs, key), v in sorted(ratios.items(), key=lambda kv: (kv[0][0], kv[0][1], list(OPS).index(kv[0][2]))):
        rs = [x[0] for x in v]
        peer = lambda n: (f"{statistics.median(x[2][n] for x in v if n in x[2]):.1f}"
                          if any(n in x[2] for x in v) else "—")
        print(f"| {cap} | {limbs} | {key} | {statistics.median(x[1] for x in v):.1f} | {peer('OpenFHE')} | "
              f"{peer('Lattigo')} | {statistics.median(rs):.3f} ({min(rs):.3f}-{max(rs):.3f}) | {len(rs)} |")


if __name__ == "__main__":
    main(sys.argv[1])
