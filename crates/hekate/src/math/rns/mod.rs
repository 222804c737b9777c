//! RNS bases, CRT constants, exact fast base conversion, and exact CRT reconstruction.
//!
//! A residue-number-system (RNS) basis `C = {q_0, ..., q_{l-1}}` of distinct word primes
//! represents an integer `x mod Q`, `Q = prod q_i`, by its residues `x_i = x mod q_i`.
//! Polynomials store their residues limb-major: `data[i * n + k]` is coefficient `k`
//! modulo `q_i`.
//!
//! # Fast base conversion (`Conv_{C -> B}`)
//!
//! For a target basis `B = {p_j}`:
//!
//! ```text
//! y_i   = [x_i * (Q/q_i)^-1]_{q_i}                       (one Shoup product per input limb)
//! v     = round( sum_i y_i / q_i )                        (floating point, Halevi-Polyakov-Shoup)
//! out_j = [ sum_i y_i * [Q/q_i]_{p_j} - v * [Q]_{p_j} ]_{p_j}
//! ```
//!
//! Since `sum_i y_i (Q/q_i) = x + u Q` with `u = floor(sum y_i / q_i)` for `x` in `[0, Q)`,
//! subtracting `v Q` with the *rounded* quotient yields the **centered** representative of
//! `x` (in `[-Q/2, Q/2)`) in the new basis, exactly. The floating-point sum has relative
//! error about `l * 2^-53`, so the result is exact unless `x` lies within `~l * 2^-53 * Q`
//! of `Q/2` (probability about `l * 2^-52` for a uniformly random `x`; the oracle tests
//! probe up to `Q/2 - Q/2^40`). [`BaseConverter::convert`] is what ModUp and ModDown use; the
//! approximate variant ([`BaseConverter::convert_approx`], `v = 0`, output `x + u Q` with
//! `0 <= u < l`) is offered for callers whose algebra absorbs multiples of `Q`.
//!
//! # Implementation
//!
//! The conversion runs over blocks of coefficients sized so that the block's `y` rows and
//! `v` stay in L1 while every output limb of the block is produced (inputs and outputs are
//! each streamed once). On x86-64 with AVX-512 the block is vectorized
//! (`math/kernels/avx512/convert.rs`; with AVX2, `math/kernels/avx2/convert.rs` does the
//! same with four 64-bit lanes): the `y_i` Shoup products, the `f64` sum for `v` (same
//! operation order as the scalar code, so the same rounding), and the output sums with lazy
//! reduction — 52-bit IFMA accumulators for output primes below `2^50` (larger input
//! residues split into two terms), 64-bit lanes otherwise, with `v [-Q]_{p_j}` as one
//! more term of the sum. Every path returns the same words as the scalar one
//! ([`BaseConverter::convert_using`] selects one explicitly).
//!
//! # ModUp and ModDown
//!
//! `ModUp` (extend `x` from `C` to `C ∪ B`) is `Conv_{C -> B}` next to the unchanged
//! residues. `ModDown` (divide `x` over `C ∪ B` by `P = prod p_j`, rounding) is
//! `(x_i - Conv_{B -> C}([x]_B)_i) * P^-1 mod q_i`: because the conversion is exact and
//! centered, the result is `(x - [x]_P) / P = round(x / P)` exactly. Both live here on
//! plain limb-major slices; the `ring` layer calls them with NTT transforms around.
//!
//! # CRT reconstruction
//!
//! [`CrtReconstructor`] turns residues back into integers (as `f64` for CKKS decoding, or
//! exactly as mixed-radix digits) with Garner's algorithm, `O(l^2)` word products per
//! coefficient and no big integers.

mod basis;
mod convert;
mod crt;
mod extend;
#[cfg(test)]
mod tests;

pub use basis::RnsBasis;
pub use convert::{BaseConverter, ConvTables};
pub use crt::CrtReconstructor;
pub use extend::BasisExtender;
