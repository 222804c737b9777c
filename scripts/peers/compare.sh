#!/usr/bin/env bash
# Interleaved side-by-side run of hekate, Lattigo and OpenFHE (CKKS, N = 2^16, dnum 3, one
# thread), as recorded in BENCHMARKS.md. Set-up of the peers: ../shared/peers/README.md
# (Lattigo binary at $LATBIN, OpenFHE's Python 3.10 venv at $PY).
# Usage: scripts/peers/compare.sh [rounds] [limbs]      e.g. scripts/peers/compare.sh 3 16,32
# CAPS="auto scalar" (default "auto") runs hekate once per instruction-set cap in every
# round (HEKATE_SIMD, README), so the AVX2 and scalar paths meet the peers in one sitting.
# Then: python3 scripts/peers/compare_summary.py $OUT
set -u
ROUNDS=${1:-3}
LIMBS=${2:-16,32}
CAPS=${CAPS:-auto}
HERE="$(cd "$(dirname "$0")/../.." && pwd)"
PEERS="${PEERS:-$HERE/../shared/peers}"
LATBIN="${LATBIN:-/tmp/peers-lattigo-bin}"
PY="${PY:-/tmp/peer310/bin/python}"
OUT="${OUT:-/tmp/hekate-peers-$(date +%H%M%S)}"
mkdir -p "$OUT"
export OMP_NUM_THREADS=1 GOMAXPROCS=1 RAYON_NUM_THREADS=1
(cd "$HERE" && cargo build --release -q -p hekate-cli)
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  for cap in $CAPS; do
    HEKATE_SIMD=$cap "$HERE/target/release/hekate" bench ckks --limbs "$LIMBS" --dnum 3 --reps 7 > "$OUT/hekate-$cap-$round.md" 2>/dev/null
  done
  "$LATBIN" ckks -logn 16 -limbs "$LIMBS" -dnum 3 -reps 7 -out "$OUT/lattigo-$round.jsonl" > /dev/null 2>&1
  (cd "$PEERS/openfhe" && "$PY" ckks_ops.py --logn 16 --limbs "$LIMBS" --dnum 3 --reps 7 --out "$OUT/openfhe-$round.jsonl" > /dev/null 2>&1)
done
echo "results in $OUT"
