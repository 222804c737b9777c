# shellcheck shell=bash
# Source this (`source scripts/gpu-env.sh`) to run the GPU backend's tests without a GPU,
# as CI does: it installs POCL (the CPU OpenCL implementation, Debian `pocl-opencl-icd`),
# which runs the kernels, and NVIDIA's run-time compiler from PyPI
# (`nvidia-cuda-nvrtc-cu12`, into target/nvrtc-venv), which compiles their CUDA side; then
# it exports
#   LD_LIBRARY_PATH  (+ the wheel's libnvrtc)
#   HEKATE_GPU=opencl HEKATE_REQUIRE_GPU=1 HEKATE_REQUIRE_NVRTC=1
# so that a missing device or compiler fails the tests instead of skipping them.
# On a machine with an NVIDIA GPU, set HEKATE_GPU=cuda afterwards to test the CUDA runtime.
_hk_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_hk_sudo=""
[ "$(id -u)" = 0 ] || _hk_sudo="sudo"
if ! ldconfig -p 2>/dev/null | grep -q 'libpocl'; then
    $_hk_sudo apt-get update -qq
    $_hk_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q pocl-opencl-icd >/dev/null
fi
_hk_venv="$_hk_root/target/nvrtc-venv"
if ! compgen -G "$_hk_venv/lib/python3*/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12" >/dev/null; then
    python3 -m venv "$_hk_venv"
    "$_hk_venv/bin/pip" install -q --disable-pip-version-check nvidia-cuda-nvrtc-cu12==12.9.86
fi
_hk_lib="$(compgen -G "$_hk_venv/lib/python3*/site-packages/nvidia/cuda_nvrtc/lib" | head -n1)"
export LD_LIBRARY_PATH="$_hk_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HEKATE_GPU=opencl HEKATE_REQUIRE_GPU=1 HEKATE_REQUIRE_NVRTC=1
unset _hk_root _hk_sudo _hk_venv _hk_lib
