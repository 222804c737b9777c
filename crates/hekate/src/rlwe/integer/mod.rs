//! Exact arithmetic over `Z_t`: the machinery BFV and BGV share (seed 001 §II-A).
//!
//! [`bfv`](crate::bfv) and [`bgv`](crate::bgv) are thin façades over this module: they
//! build parameters their own way (BFV has no user-visible levels, BGV has a modulus chain
//! to switch down) and pick the tensoring, while the plaintext modulus, the encoders, the
//! ciphertexts, encryption, decryption, the noise budget and every evaluator operation are
//! implemented once, here.
//!
//! # Representation (Lattigo's, not OpenFHE's)
//!
//! A ciphertext `ct = (c_0, c_1[, c_2])` at level `ℓ` (modulus `Q_ℓ = q_0 ... q_ℓ`) with
//! *correction factor* `α ∈ Z_t^*` decrypts as
//!
//! ```text
//! [c_0 + c_1 s + c_2 s^2]_{Q_ℓ} = [t^-1]_{Q_ℓ} · α m + e        (e small, NOT scaled by t)
//! ```
//!
//! so `t · ct` is the textbook BGV ciphertext of `α m` with noise `t e`, and (writing
//! `[t^-1]_Q = (1 + κ Q) / t` with `κ = [-Q^-1]_t`) `ct` is also a textbook BFV ciphertext
//! of `κ α m` with `Δ = Q / t`. Decryption computes `y = [t · (c_0 + c_1 s)]_{Q_ℓ}`
//! (centered; `y = α m + t e` over the integers while the noise budget lasts) and returns
//! `α^-1 y mod t`, with the exact centered base conversion `Q_ℓ -> {t}` of
//! [`math::rns`](crate::math::rns).
//!
//! Because the noise is not scaled by `t`, key switching is *exactly* the CKKS one: the
//! three engines (hybrid, KLSS, linear), their keys, hoisting and the cost model are reused
//! unchanged (the `t e_ks` of OpenFHE's keys appears as `t · e_ks` in the textbook view),
//! and relinearization and rotations are word for word identical across engines.
//!
//! * **BGV modulus switching** is the CKKS rescale `(ct - [ct]_{q_ℓ}) / q_ℓ`: in the textbook
//!   view it is `(C - t δ) / q_ℓ` with `δ = [C t^-1]_{q_ℓ}`, OpenFHE's switch, and it
//!   multiplies the factor by `q_ℓ^-1 mod t`.
//! * **BGV multiplication** is the tensor times `t` (`t u_Q ≡ 1`), factor `α_a α_b`.
//! * **BFV multiplication** is the scale-invariant tensor `round(t/Q_ℓ · ct_a ⊗ ct_b)` over
//!   an auxiliary basis `R` ([`MulVariant`]), factor `κ_ℓ α_a α_b` with `κ_ℓ = [-Q_ℓ^-1]_t`.
//! * **Additions** between different factors multiply one side by `α_a α_b^-1 mod t`
//!   (centered, so the noise grows by at most `t/2`); plaintext additions lift the message
//!   as `[t^-1]_Q α m`, plaintext products as the centered `m` (factor unchanged).
//! * **Dropping levels** is truncation (`[t^-1]_{Q'} = [t^-1]_Q mod Q'`): factor unchanged.
//!
//! # Slots
//!
//! With `t` prime and `t ≡ 1 mod 2N` a plaintext holds `N` slots as a `2 × N/2` matrix
//! (SEAL's `BatchEncoder` layout): row `r`, column `j` is the evaluation at
//! `ψ^{(-1)^r 5^j}` for a primitive `2N`-th root `ψ` mod `t`. `X -> X^{5^k}` rotates both
//! rows left by `k` ([`galois_element_for_rotation`](crate::ring::automorphism::galois_element_for_rotation),
//! SEAL's `rotate_rows`, Lattigo's `RotateColumns`), and `X -> X^{2N-1}` swaps the rows
//! (SEAL's `rotate_columns`, Lattigo's `RotateRows`).

mod ciphertext;
mod context;
mod encrypt;
mod evaluator;
pub mod noise;
#[cfg(test)]
mod noise_tests;
mod plaintext;
pub(crate) mod serialize;
pub(crate) mod tensor;
#[cfg(test)]
mod tests;

pub use ciphertext::Ciphertext;
pub use context::{IntegerContext, IntegerParameters, ModSwitching, Scheme};
pub use evaluator::Evaluator;
pub use plaintext::{Plaintext, PlaintextModulus};
pub use tensor::MulVariant;
