//! The GPU backend of hekate: kernels written once, in a C dialect that is both CUDA C++
//! and OpenCL C, compiled at run time by NVRTC (NVIDIA GPUs, through `cudarc`) or by the
//! OpenCL driver (any other device; POCL, the CPU OpenCL implementation, in CI), and checked
//! word for word against the CPU path.
//!
//! # Design
//!
//! * **Builds everywhere.** Both runtimes load their driver library at run time
//!   (`libcuda` / `libnvrtc`, `libOpenCL.so.1`); no SDK is needed to build, and a machine
//!   without a device gets [`Error::NoDevice`] from [`Gpu::open`], never a panic.
//! * **One kernel source** ([`KernelModule`], `kernels/*.cl`): the dialect rules are in
//!   [`kernels`]; the prelude is the only place that knows CUDA from OpenCL.
//! * **Bit-exact by construction.** The kernels follow the scalar CPU algorithms step for
//!   step, with the same tables ([`hekate::math::NttTwiddles`], the Barrett constants of
//!   [`hekate::math::Modulus`]), so a device result equals the CPU's word for word; the
//!   parity tests assert exactly that on raw words.
//! * **Device types mirror the CPU ones**: [`DeviceRingContext`] holds a
//!   [`RingContext`](hekate::ring::RingContext)'s tables, [`DevicePoly`] is a
//!   [`Poly`](hekate::ring::Poly) with the same layout and method names
//!   (`add_assign`, `mul_assign`, `ntt`, `automorphism`, ...), moved with
//!   [`DevicePoly::upload`] / [`DevicePoly::download`].
//! * **Compiled once per device**: modules are compiled on first use and cached on disk
//!   (`~/.cache/hekate/kernels`, see [`Gpu::module`]); NVRTC compiles straight to a CUBIN for
//!   the device's `sm_XY`.
//!
//! * **CKKS and its circuits**: [`ckks::DeviceEvaluator`] mirrors the CPU evaluator and
//!   implements [`hekate::circuits::CircuitEvaluator`], so linear transforms and polynomial
//!   evaluation run on the device through hekate's own generic code.
//!
//! * **FHEW gates in batches**: [`fhew::DeviceFhewEvaluator`] runs the blind rotations of
//!   many gates side by side (AP, GINX and LMKCDEY), equal to the CPU's NTT products word
//!   for word.
//!
//! Device selection: [`Select::Auto`] (CUDA, else OpenCL), or `HEKATE_GPU=cuda|opencl|off`.
//!
//! ```no_run
//! use hekate::ring::RingContext;
//! use hekate_gpu::{DevicePoly, DeviceRingContext, Gpu, Select};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let gpu = Gpu::open(Select::Auto)?;
//! println!("{}", gpu.info());
//! let primes = hekate::math::PrimeGenerator::new(1 << 12)?.primes(50, 3)?;
//! let ring = RingContext::new(1 << 12, &primes, &[])?;
//! let dctx = DeviceRingContext::new(&gpu, &ring)?;
//! let mut p = ring.from_signed(&[1, 2, 3], 3, 0);
//! let mut d = DevicePoly::upload(&dctx, &p)?;
//! d.ntt()?;
//! p.ntt(&ring);
//! assert_eq!(d.download()?.data(), p.data()); // word for word
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

mod backend;
mod cache;
pub mod ckks;
mod context;
mod convert;
mod error;
pub mod fhew;
pub mod kernels;
pub mod klss;
pub mod model;
pub mod nvrtc;
mod poly;
mod runtime;

pub use context::DeviceRingContext;
pub use convert::DeviceBaseConverter;
pub use error::{Error, Result};
pub use kernels::KernelModule;
pub use poly::DevicePoly;
pub use runtime::{Arg, Buffer, DeviceInfo, Gpu, Module, RuntimeKind, Select, POISON};
