#!/usr/bin/env bash
# Interleaved side-by-side run of hekate, OpenFHE 1.6.1 and Lattigo 6.2 on BFV and BGV
# (t = 65537, depth 10, one thread), as recorded in BENCHMARKS.md. Set-up of the peers:
# ../shared/peers/README.md (OpenFHE's Python 3.10 venv at $PY) and
# `(cd scripts/peers/lattigo && go build -o /tmp/lattigo-peer .)` ($LATBIN).
# Usage: scripts/peers/bfv_bgv.sh [rounds]        then: python3 scripts/peers/bfv_bgv_summary.py $OUT
set -u
ROUNDS=${1:-6}
HERE="$(cd "$(dirname "$0")/../.." && pwd)"
PEERS="${PEERS:-$HERE/../shared/peers}"
LATBIN="${LATBIN:-/tmp/lattigo-peer}"
PY="${PY:-/tmp/peer310/bin/python}"
OUT="${OUT:-/tmp/hekate-bfvbgv-$(date +%H%M%S)}"
mkdir -p "$OUT"
export OMP_NUM_THREADS=1 GOMAXPROCS=1 RAYON_NUM_THREADS=1
(cd "$HERE" && cargo build --release -q -p hekate-cli)
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  "$HERE/target/release/hekate" bench bfv --log-n 14,15 --reps 5 --json "$OUT/hekate-$round.jsonl" > /dev/null 2>&1
  "$HERE/target/release/hekate" bench bgv --log-n 14,15 --reps 5 --json "$OUT/hekate-$round.jsonl" > /dev/null 2>&1
  (cd "$PEERS/openfhe" && "$PY" bfv_bgv.py --logn 14,15 --depth 10 --reps 5 --out "$OUT/openfhe-$round.jsonl" > /dev/null 2>&1)
  "$LATBIN" bgv -logn 14,15 -scheme bgv,bfv -t 65537 -depth 10 -reps 5 -out "$OUT/lattigo-$round.jsonl" > /dev/null 2>&1
done
echo "results in $OUT"
