//! The kernel modules: the sources under `crates/hekate-gpu/kernels/`, written once in the C
//! subset that is both OpenCL C 1.2 and CUDA C++ (`prelude.h` holds every difference).
//!
//! # Dialect rules
//!
//! * No templates, classes, overloading or dynamic shared memory; `static inline` helpers
//!   (`HK_INLINE`); every pointer parameter carries `HK_GLOBAL`; local arrays are sized by
//!   compile-time constants (`HK_TILE_MAX`).
//! * `hk_mulhi` (`__umul64hi` / `mul_hi`) is the only 128-bit primitive.
//! * f64 arithmetic only through `HK_DMUL` / `HK_DADD` (never contracted into a fused
//!   multiply-add: NVRTC runs with `--fmad=false`, OpenCL under `FP_CONTRACT OFF`), and
//!   `round()` for rounding, so floating-point steps round as the CPU's do.
//! * No inline PTX and no warp-synchronous code in shared kernels: POCL (CI) checks barriers
//!   but cannot check warp assumptions.
//! * Kernels follow the scalar CPU algorithm step for step (the same Shoup companions, lazy
//!   ranges, twiddle order), so their outputs equal the CPU's word for word, lazy ones
//!   included.

/// A kernel module: one compiled program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelModule {
    /// Coefficient-wise arithmetic and automorphisms (`kernels/elementwise.cl`).
    Elementwise,
    /// The negacyclic NTT, forward and inverse, reduced and lazy (`kernels/ntt.cl`).
    Ntt,
    /// Exact fast base conversion (`kernels/bconv.cl`): ModUp, ModDown.
    Bconv,
    /// FHEW blind rotation over a batch of accumulators (`kernels/fhew.cl`).
    Fhew,
}

const PRELUDE: &str = include_str!("../kernels/prelude.h");
const MODARITH: &str = include_str!("../kernels/modarith.h");
const NTT_TILE: &str = include_str!("../kernels/ntt_tile.h");

/// Digits per launch of the fused inner product (`HK_IP_MAX` of `elementwise.cl`).
pub const INNER_PRODUCT_MAX: usize = 8;

/// The largest NTT tile in local memory, in words (`HK_TILE_MAX` of `ntt.cl`: 16 KiB).
pub const TILE_MAX: usize = 2048;

/// The largest ring degree of the fused FHEW rotation (`HK_FHEW_N_MAX` of `fhew.cl`): its
/// work-group holds one digit and the two products in local memory, `3N` words (24 KiB).
pub const FHEW_N_MAX: usize = 1024;

impl KernelModule {
    /// Every module.
    pub const ALL: [KernelModule; 4] = [
        KernelModule::Elementwise,
        KernelModule::Ntt,
        KernelModule::Bconv,
        KernelModule::Fhew,
    ];

    /// The module's name (its file's stem).
    pub fn name(self) -> &'static str {
        match self {
            KernelModule::Elementwise => "elementwise",
            KernelModule::Ntt => "ntt",
            KernelModule::Bconv => "bconv",
            KernelModule::Fhew => "fhew",
        }
    }

    /// The kernels (entry points) the module defines.
    pub fn kernels(self) -> &'static [&'static str] {
        match self {
            KernelModule::Elementwise => &[
                "hk_add_kernel",
                "hk_sub_kernel",
                "hk_neg_kernel",
                "hk_mul_kernel",
                "hk_mul_add_kernel",
                "hk_tensor_kernel",
                "hk_lincomb_kernel",
                "hk_mul_plain_sum_kernel",
                "hk_mul_scalar_kernel",
                "hk_mul_scalar_add_kernel",
                "hk_add_scalar_kernel",
                "hk_mul_halves_kernel",
                "hk_mod_raise_kernel",
                "hk_permute_kernel",
                "hk_automorphism_coeff_kernel",
                "hk_copy_limbs_kernel",
                "hk_sub_mul_scalar_kernel",
                "hk_rescale_lift_kernel",
                "hk_inner_product_kernel",
                "hk_klss_inner_product_kernel",
            ],
            KernelModule::Ntt => &[
                "hk_ntt_fwd_cols",
                "hk_ntt_fwd_tail",
                "hk_ntt_inv_head",
                "hk_ntt_inv_cols",
            ],
            KernelModule::Bconv => &[
                "hk_bconv_yv",
                "hk_bconv_out",
                "hk_bconv_mod_up_out",
                "hk_bconv_direct",
            ],
            KernelModule::Fhew => &[
                "hk_fhew_decompose",
                "hk_fhew_product",
                "hk_fhew_update",
                "hk_fhew_rotate",
                "hk_fhew_rotate_auto",
                "hk_fhew_auto_permute",
                "hk_fhew_decompose_ops",
                "hk_fhew_product_ops",
                "hk_fhew_update_ops",
            ],
        }
    }

    fn body(self) -> &'static str {
        match self {
            KernelModule::Elementwise => include_str!("../kernels/elementwise.cl"),
            KernelModule::Ntt => include_str!("../kernels/ntt.cl"),
            KernelModule::Bconv => include_str!("../kernels/bconv.cl"),
            KernelModule::Fhew => include_str!("../kernels/fhew.cl"),
        }
    }

    /// The complete source: the prelude, the modular arithmetic, the NTT tile stages
    /// (modules that transform in local memory), the module.
    pub fn source(self) -> String {
        let tile = match self {
            KernelModule::Ntt | KernelModule::Fhew => NTT_TILE,
            _ => "",
        };
        format!(
            "#define HK_TILE_MAX {TILE_MAX}\n#define HK_FHEW_N_MAX {FHEW_N_MAX}\n{PRELUDE}\n{MODARITH}\n{tile}\n{}",
            self.body()
        )
    }
}
