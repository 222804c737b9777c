#!/usr/bin/env bash
# The GPU backend's checks on a machine with an NVIDIA GPU (issue 22), in one run:
#   1. the device, the driver and the NVRTC found (`nvidia-smi`, `hekate gpu info`);
#   2. every hekate-gpu test on the CUDA runtime (HEKATE_GPU=cuda, a missing device or
#      compiler is a failure), parity with the CPU word for word;
#   3. compute-sanitizer memcheck (out-of-bounds and misaligned accesses, leaks) and
#      racecheck (shared-memory races of the NTT tile) over the NTT and CKKS parity tests;
#   4. `hekate bench gpu` at N = 2^16 (16 and 32 limbs, hybrid; 32 limbs, KLSS and linear),
#      every row checked bit-exact before it is timed, beside the traffic model, then a
#      dense-key bootstrap (preset `dense`, or $GPU_CHECK_BOOTSTRAP) on the device, and
#      batched FHEW NAND gates (OPENFHE_STD128 with GINX and OPENFHE_STD128_LMKCDEY with
#      LMKCDEY-aux; batches of 1 to 1024 gates);
#   5. Nsight Compute (`ncu`, where installed): each kernel's time and DRAM bytes in one
#      multiplication + relinearization (`hekate bench gpu --profile`).
#
# Usage: scripts/gpu-check.sh [BIN]
#   BIN: a folder holding prebuilt, stripped binaries named hekate, hekate_gpu (the unit
#   tests), nvrtc_compiles and the parity_* test binaries (a
#   GPU machine without Rust; `scripts/gpu-check.sh --build DIR` makes them here). Without
#   BIN the script builds them with cargo. Logs go to $OUT (else target/gpu-check).
# Environment: GPU_CHECK_RUNTIME (default cuda; `opencl` dry-runs on POCL),
#   GPU_CHECK_LOGN (default 16), GPU_CHECK_REPS (default 5), GPU_CHECK_SKIP (step names
#   to leave out, space-separated, e.g. "memcheck-ckks ncu-mul-relin", for a short lease;
#   a skipped step is printed as skipped, never as passed).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tests="hekate_gpu nvrtc_compiles parity_ntt parity_elementwise parity_keyswitch parity_ckks parity_circuits parity_bootstrap parity_fhew"

build() {
    local dest="$1"
    mkdir -p "$dest"
    (cd "$root" && cargo build --release -q -p hekate-cli) || return 1
    strip -o "$dest/hekate" "$root/target/release/hekate"
    (cd "$root" && cargo test -p hekate-gpu --release --no-run --message-format=json 2>/dev/null) |
        python3 -c '
import json, shutil, subprocess, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] != ["example"]:
        subprocess.run(["strip", "-o", sys.argv[1] + "/" + m["target"]["name"], m["executable"]], check=True)
' "$dest"
}

if [ "${1:-}" = "--build" ]; then
    build "${2:?--build DIR}"
    exit $?
fi
bin="${1:-}"
if [ -z "$bin" ]; then
    bin="$root/target/gpu-check/bin"
    build "$bin" || exit 1
fi
out="${OUT:-$root/target/gpu-check}"
mkdir -p "$out"

# NVRTC: the CUDA toolkit's, else a pip wheel's (nvidia-cuda-nvrtc-cu12 / the cu13 layout).
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
    $(python3 -c 'import glob, site; print(" ".join(p for s in site.getsitepackages() for p in glob.glob(s + "/nvidia/cu*/lib") + glob.glob(s + "/nvidia/cuda_nvrtc/lib")))' 2>/dev/null); do
    if compgen -G "$d/libnvrtc.so*" >/dev/null; then
        export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        # cudarc looks for libnvrtc.so first; a toolkit without the unversioned link gets one.
        if [ ! -e "$d/libnvrtc.so" ]; then
            mkdir -p "$out/lib"
            ln -sf "$(compgen -G "$d/libnvrtc.so.*" | head -n1)" "$out/lib/libnvrtc.so"
            export LD_LIBRARY_PATH="$out/lib:$LD_LIBRARY_PATH"
        fi
        break
    fi
done
export HEKATE_GPU="${GPU_CHECK_RUNTIME:-cuda}" HEKATE_REQUIRE_GPU=1 HEKATE_REQUIRE_NVRTC=1
export HEKATE_GPU_CACHE="$out/kernel-cache" RUST_BACKTRACE=1
logn="${GPU_CHECK_LOGN:-16}"
reps="${GPU_CHECK_REPS:-5}"
status=0
step() {
    local name="$1"
    shift
    case " ${GPU_CHECK_SKIP:-} " in
    *" $name "*)
        echo "=== $name: skipped (GPU_CHECK_SKIP)"
        return 0
        ;;
    esac
    echo "=== $name: $*"
    local t0=$SECONDS
    "$@"
    local rc=$?
    echo "=== $name: exit $rc in $((SECONDS - t0)) s"
    [ $rc = 0 ] || status=1
}

{
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
    grep -m1 'model name' /proc/cpuinfo
    grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|avx512f|avx512ifma|bmi2)$' | tr '\n' ' '
    echo
    step info timeout 120 "$bin/hekate" gpu info
    for t in $tests; do
        step "$t" timeout 300 "$bin/$t" --test-threads 4
    done
    if command -v compute-sanitizer >/dev/null && [ "$HEKATE_GPU" = cuda ]; then
        step memcheck-ntt timeout 240 compute-sanitizer --tool memcheck --leak-check full \
            --error-exitcode 9 "$bin/parity_ntt" --test-threads 1
        step racecheck-ntt timeout 240 compute-sanitizer --tool racecheck --error-exitcode 9 \
            "$bin/parity_ntt" --test-threads 1 tile_sizes
        step memcheck-ckks timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 \
            "$bin/parity_ckks" --test-threads 1 ckks_operations_match
        step memcheck-keyswitch timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 \
            "$bin/parity_keyswitch" --test-threads 1
        step memcheck-fhew timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 \
            "$bin/parity_fhew" --test-threads 1
    fi
    step bench-hybrid timeout 300 "$bin/hekate" bench gpu --logn "$logn" --limbs 16,32 --reps "$reps"
    # One step per engine: the CPU reference rows of KLSS and linear switching at 32 limbs
    # (circuits included) take minutes on one thread, and one step for both ran past 300 s.
    step bench-klss timeout 300 "$bin/hekate" bench gpu --logn "$logn" --limbs 32 \
        --reps 3 --key-switching klss:2
    step bench-linear timeout 400 "$bin/hekate" bench gpu --logn "$logn" --limbs 32 \
        --reps 3 --key-switching linear
    # Dense-key bootstrapping at N = 2^16 (issue 22's 60 ms target), after a small grid.
    step bench-bootstrap timeout 400 "$bin/hekate" bench gpu --logn 12 --limbs 4 --reps 3 \
        --bootstrap "${GPU_CHECK_BOOTSTRAP:-dense}"
    step bench-fhew timeout 300 "$bin/hekate" bench gpu --logn 12 --limbs 4 --reps 3 \
        --fhew OPENFHE_STD128 --fhew-batch 1,64,256,1024
    step bench-fhew-lmkcdey timeout 300 "$bin/hekate" bench gpu --logn 12 --limbs 4 --reps 3 \
        --fhew OPENFHE_STD128_LMKCDEY --fhew-method LMKCDEY-aux --fhew-batch 1,64,256,1024
    ncu="$(command -v ncu || compgen -G '/opt/nvidia/nsight-compute/*/ncu' | head -n1)"
    if [ -n "$ncu" ] && [ "$HEKATE_GPU" = cuda ]; then
        # Per kernel: device time and DRAM bytes of one multiplication + relinearization
        # (the profiled range of `--profile`), against the traffic model's bytes.
        step ncu-mul-relin timeout 300 "$ncu" --profile-from-start off \
            --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
            --print-summary per-kernel "$bin/hekate" bench gpu --logn "$logn" --limbs 32 \
            --reps 1 --profile
    fi
    echo "=== all: $([ $status = 0 ] && echo passed || echo FAILED)"
    [ $status = 0 ]
} 2>&1 | tee "$out/gpu-check.log"
exit "${PIPESTATUS[0]}"
