//! KLSS key switching: the switching key decomposed a second time (seed 000 §3-4), and
//! its `r̃ = 1` corner, linear key switching (seed 001 §III).
//!
//! # Notation (seed 000 Table 1)
//!
//! - `Q = q_0 .. q_L` (the chain) and `P = p_0 .. p_{k-1}` (special primes); `Q̃ = PQ`
//!   has `ℓ̃ = k + L + 1` primes, taken in the order `p_0 .. p_{k-1}, q_0 .. q_L` so that
//!   the primes in use at a level are a prefix.
//! - The ciphertext gadget `h`: `d` digits `D_j` of `r` consecutive chain primes (`r = α`
//!   of the hybrid engine, `d = dnum`); the switching key `U` is the hybrid key, a gadget
//!   encryption over `Q̃` (see [`super::hybrid`]).
//! - The key gadget `h̃`: `d̃` digits `D̃_i` of `r̃` consecutive primes of `Q̃`, with the CRT
//!   idempotents `g̃_i` (`1 mod D̃_i`, `0 mod D̃_{i'}`).
//! - The auxiliary base `B'`: `r'` word primes (not in `Q̃`), large enough that every inner
//!   product below is exact as an integer (Eq. (5), see [`KlssBound`]). Key digit `i`
//!   uses only the first `r'_i <= r'` of them: the fewest above its own bound, which
//!   grows with `D̃_i` (the digits holding wide special primes need the most).
//!
//! # Key (expanded once)
//!
//! `v_{h,j,i} = [u_{h,j}]_{D̃_i}` (centered), in NTT form over the first `r'_i` primes of
//! `B'`: `2 d d̃` polynomials. Memory: `2 d Σ_i r'_i N` words against the hybrid key's
//! `2 d ℓ̃ N`, so about `r' / r̃` times as large. [`KlssKey`] can also keep the ordinary
//! (seed-compressed) hybrid key beside it, so that it serializes at the hybrid size and
//! is expanded again on load ([`KeyStorage`]).
//!
//! The expanded key is stored *tile-major* ([`KEY_TILE`](super::KEY_TILE) coefficients per tile): tile by
//! tile, the `d` terms of every inner-product output follow one another. A switch walks
//! the key once, front to back, while the digits' tiles it multiplies with stay in the
//! cache for all `2 Σ_i r'_i` outputs. Stored limb by limb, every output re-read its `d`
//! digit limbs from memory: twice the key's traffic, and the inner products of the
//! linear engine (61-bit `B'`, `d = 32`, `N = 2^16`) ran at 3.5-4 GB/s instead of 6-7.
//!
//! # Switch of `c` (NTT form over `Q_l`)
//!
//! 1. *Decompose*: inverse NTT (`l + 1` NTTs); `b_j = [c]_{D_j}` (centered) lifted exactly
//!    to `B'` and transformed (`d r'` NTTs). For `r = 1` and `q_j` below every `B'` prime
//!    the lift is a copy (plus the centering).
//! 2. *Inner products* over `B'`: `c̃_{h,i} = Σ_j b_j v_{h,j,i}` over the first `r'_i`
//!    primes (`2 d Σ_i r'_i` Hadamard products): exact integer polynomials because those
//!    primes exceed twice their bound.
//! 3. *Recombine*: inverse NTT over `B'` (`2 Σ_i r'_i` NTTs), then `c̃_h mod p =
//!    [c̃_{h,i}]_p` for every prime `p` of `D̃_i` (an exact centered base conversion from
//!    the first `r'_i` primes of `B'` to `D̃_i`): since
//!    `U = Σ_i g̃_i V_i`, `⟨b, u_h⟩ = Σ_i g̃_i c̃_{h,i}`, which is `c̃_{h,i}` modulo `D̃_i`.
//! 4. *ModDown* by `P` as in the hybrid engine (coefficient form), then the forward NTT
//!    over `Q_l` (`2 (l + 1)` NTTs).
//!
//! The result is the hybrid engine's `⟨b, u_h⟩` exactly, so the noise is the same
//! (seed 000: no extra noise growth; `tests.rs` measures both).
//!
//! # Accumulation (double hoisting)
//!
//! [`KeySwitcher::multiply_add`] sums products in `B'` (NTT form), which stays exact for up
//! to [`KlssConfig::accumulation`] products (`B'` is sized for that many: `log2` of it extra
//! bits); past that the accumulator is recombined into `Q̃` (coefficient form) and
//! restarted, so any number of products may be summed.
//!
//! # Linear key switching (seed 001)
//!
//! Seed 001's Alg. 2-3 lift each limb `[c]_{q_i}` into `[m_0, m_1]`, multiply with
//! `[pk_j]_{q_i}` lifted the same way, recombine with the two-prime CRT and ModDown by the
//! single special prime: exactly the steps above with `r = α = 1`, `r̃ = 1` and `B' =
//! [m_0, m_1]`. So one engine serves both; [`KlssConfig::linear`] is that corner (any `α`:
//! `r = α`, `r̃ = 1`, `r'` from the bound), and its fast paths are the copy lift (`r = 1`)
//! and the recombination into one prime per key digit.
//!
//! What seed 001 leaves open, and what was chosen:
//! - *The size of `[m_0, m_1]`.* The paper requires the sums below `m_0 m_1` and takes two
//!   64-bit moduli, but its own parameters (55-bit `q_0` and `p`, `ℓ = 32`, `N = 2^16`)
//!   bound the sums by `2 d N B B̃ ≈ 2^130` in the worst case, above any two word primes.
//!   hekate sizes `B'` by a stated bound, per key digit: [`KlssBound::WorstCase`] (Eq. (5):
//!   there `r'_i = 3` for the two digits of 55-bit primes and 2 for the 40-bit ones, a
//!   key 2.06 times the hybrid one), or [`KlssBound::Heuristic`], Hoeffding's tail bound
//!   for inputs whose digits are uniform (every honestly computed ciphertext), at failure
//!   probability `2^-64` per coefficient, which gives `r' = 2` for every digit there. The
//!   heuristic bound is *not* safe for adversarially chosen inputs (an attacker who knows
//!   the public key can force an overflow); it is opt-in.
//! - *`α > 1`.* The paper sketches it only; here the ciphertext digits have `α` primes and
//!   `r'` grows with `α` through the bound.
//! - *Where `P` goes in the key decomposition.* Each special prime is a key digit of its own
//!   (`r̃ = 1` over all of `Q̃`).
//!
//! [`KeySwitcher::multiply_add`]: super::KeySwitcher::multiply_add

mod config;
mod engine;
mod key;

pub(super) use config::{key_digit_primes, log_bounds};
pub use config::{KeyStorage, KlssBound, KlssConfig};
pub use engine::{KlssAccumulator, KlssDecomposition, KlssKeySwitcher};
pub use key::KlssKey;
