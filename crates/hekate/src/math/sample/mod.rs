//! Samplers (uniform, ternary, fixed Hamming weight, discrete Gaussian) and seed expansion.
//!
//! All randomness flows through [`rand_core::RngCore`] generators. Secrets and noise must
//! come from a cryptographically secure generator: the samplers for them require
//! [`CryptoRng`] too, and the library uses a ChaCha20 CSPRNG seeded from the operating
//! system ([`os_rng`]). Tests use `ChaCha20Rng::seed_from_u64` (from
//! [`rand_core::SeedableRng`]) instead, for reproducibility; never do that outside tests.
//!
//! Public uniform polynomials (the `a` parts of public and switching keys) are expanded from
//! a 32-byte [`Seed`] by [`expand_seed`], so that serialized keys only store the seed. That
//! expansion is a fixed, platform-independent procedure documented on the function.
//!
//! Multi-modulus outputs are *limb-major*: `out[i * n + j]` is coefficient `j` modulo
//! `moduli[i]`.

use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRng, OsRng, RngCore, SeedableRng};
use zeroize::Zeroize;

use crate::math::Modulus;
use crate::{Error, Result};

/// A ChaCha20 CSPRNG seeded with 32 bytes from the operating system.
///
/// This is the generator hekate uses for secrets and noise. Tests use
/// `ChaCha20Rng::seed_from_u64(..)` instead, for reproducibility.
///
/// # Panics
/// If the operating system's random source fails (`getrandom` error), which leaves no
/// secure way to continue.
pub fn os_rng() -> ChaCha20Rng {
    let mut seed = [0u8; 32];
    OsRng.fill_bytes(&mut seed);
    let rng = ChaCha20Rng::from_seed(seed);
    seed.zeroize();
    rng
}

/// A 32-byte seed from which public uniform polynomials are expanded ([`expand_seed`]).
pub type Seed = [u8; 32];

/// A fresh seed from the operating system's random source.
///
/// # Panics
/// If the operating system's random source fails.
pub fn fresh_seed() -> Seed {
    let mut seed = [0u8; 32];
    OsRng.fill_bytes(&mut seed);
    seed
}

/// The all-ones mask covering `q - 1`: `2^b - 1` with `b` the bit length of `q - 1`.
#[inline]
fn mask_for(q: u64) -> u64 {
    debug_assert!(q >= 2);
    u64::MAX >> (q - 1).leading_zeros()
}

/// Uniform in `[0, q)` by rejection on masked 64-bit words.
#[inline]
fn uniform_mod<R: RngCore + ?Sized>(rng: &mut R, q: u64, mask: u64) -> u64 {
    loop {
        let w = rng.next_u64() & mask;
        if w < q {
            return w;
        }
    }
}

/// Uniform in `[0, bound)`, `bound >= 1`, without modulo bias.
#[inline]
fn uniform_below<R: RngCore + ?Sized>(rng: &mut R, bound: u64) -> u64 {
    debug_assert!(bound >= 1);
    if bound == 1 {
        return 0;
    }
    uniform_mod(rng, bound, mask_for(bound))
}

fn fill_uniform<R: RngCore + ?Sized>(rng: &mut R, moduli: &[Modulus], n: usize, out: &mut [u64]) {
    assert_eq!(
        out.len(),
        moduli.len() * n,
        "uniform residues: output length must be (number of moduli) * n"
    );
    for (limb, m) in out.chunks_exact_mut(n.max(1)).zip(moduli) {
        let q = m.value();
        let mask = mask_for(q);
        for x in limb.iter_mut() {
            *x = uniform_mod(rng, q, mask);
        }
    }
}

/// Uniform residues, limb-major: `out[i * n + j]` uniform in `[0, moduli[i])`.
///
/// Each value is drawn by rejection sampling: take `rng.next_u64()`, keep its low `b` bits
/// (`b` the bit length of `q - 1`), accept if below `q`, else draw again. There is no modulo
/// bias; fewer than two words are drawn per value on average.
///
/// # Panics
/// If `out.len() != moduli.len() * n`.
pub fn uniform_residues<R: RngCore + ?Sized>(
    rng: &mut R,
    moduli: &[Modulus],
    n: usize,
    out: &mut [u64],
) {
    fill_uniform(rng, moduli, n, out);
}

/// Deterministically expands `seed` into uniform residues, limb-major
/// (`out[i * n + j]` in `[0, moduli[i])`), the same on every platform.
///
/// `stream` selects one of `2^64` independent expansions of the same seed (for example one
/// per key-switching digit), so one seed can stand for several polynomials.
///
/// # Exact procedure (frozen: serialized keys store only the seed)
///
/// 1. Key the original (Bernstein) ChaCha20 — 20 rounds, 256-bit key, 64-bit block
///    counter, 64-bit nonce — with `key = seed` (read as eight little-endian 32-bit
///    words), `nonce = stream` (low 32 bits in state word 14, high 32 bits in word 15),
///    and the block counter starting at 0 (words 12, 13). This is
///    `rand_chacha::ChaCha20Rng::from_seed(seed)` followed by `set_stream(stream)`.
/// 2. Read the keystream (blocks 0, 1, 2, ... each serialized as 16 little-endian 32-bit
///    words) as consecutive little-endian 64-bit words `w_0, w_1, ...`.
/// 3. For limb `i = 0, 1, ...` in order, then coefficient `j = 0, .., n - 1` in order: take
///    the next word `w`, set `x = w & (2^b - 1)` with `b` the bit length of `q_i - 1`; if
///    `x < q_i` then `out[i * n + j] = x`, else discard `w` and repeat with the next word.
///
/// Consequently the expansion for a prefix of `moduli` is the prefix of the expansion for
/// the full list.
///
/// # Panics
/// If `out.len() != moduli.len() * n`.
pub fn expand_seed(seed: &Seed, stream: u64, moduli: &[Modulus], n: usize, out: &mut [u64]) {
    let mut rng = ChaCha20Rng::from_seed(*seed);
    rng.set_stream(stream);
    fill_uniform(&mut rng, moduli, n, out);
}

/// `n` coefficients uniform in `{-1, 0, 1}`.
///
/// Each coefficient takes one random byte `b`; bytes equal to 255 are rejected, otherwise
/// the value is `b mod 3 - 1` (85 bytes per value: exactly uniform).
pub fn ternary<R: RngCore + CryptoRng + ?Sized>(rng: &mut R, n: usize) -> Vec<i64> {
    let mut out = vec![0i64; n];
    fill_ternary(rng, &mut out);
    out
}

/// Fills `out` with coefficients uniform in `{-1, 0, 1}` (see [`ternary`]).
pub fn fill_ternary<R: RngCore + CryptoRng + ?Sized>(rng: &mut R, out: &mut [i64]) {
    let mut buf = [0u8; 64];
    let mut pos = buf.len();
    for x in out.iter_mut() {
        loop {
            if pos == buf.len() {
                rng.fill_bytes(&mut buf);
                pos = 0;
            }
            let b = buf[pos];
            pos += 1;
            if b < 255 {
                *x = (b % 3) as i64 - 1;
                break;
            }
        }
    }
    buf.zeroize();
}

/// `n` coefficients with exactly `h` nonzero entries, each `±1` with equal probability, at
/// uniformly random distinct positions (a partial Fisher-Yates shuffle of `0..n`).
///
/// Returns `Error::InvalidParameters` if `h > n`.
pub fn ternary_hamming<R: RngCore + CryptoRng + ?Sized>(
    rng: &mut R,
    n: usize,
    h: usize,
) -> Result<Vec<i64>> {
    if h > n {
        return Err(Error::InvalidParameters(format!(
            "Hamming weight h = {h} exceeds the ring degree n = {n}; choose h <= n"
        )));
    }
    let mut positions: Vec<usize> = (0..n).collect();
    let mut out = vec![0i64; n];
    let mut signs = 0u64;
    for i in 0..h {
        let j = i + uniform_below(rng, (n - i) as u64) as usize;
        positions.swap(i, j);
        if i % 64 == 0 {
            signs = rng.next_u64();
        }
        out[positions[i]] = if (signs >> (i % 64)) & 1 == 1 { 1 } else { -1 };
    }
    positions.zeroize();
    signs.zeroize();
    Ok(out)
}

mod gaussian;
#[cfg(test)]
mod tests;

pub use gaussian::{DiscreteGaussian, DEFAULT_SIGMA, DEFAULT_TAIL_CUT};

/// Signed coefficients to residues, limb-major: `out[i * n + j] = coeffs[j] mod moduli[i]`
/// in `[0, moduli[i])`, with `n = coeffs.len()`.
///
/// # Panics
/// If `out.len() != moduli.len() * coeffs.len()`.
pub fn signed_to_residues(coeffs: &[i64], moduli: &[Modulus], out: &mut [u64]) {
    let n = coeffs.len();
    assert_eq!(
        out.len(),
        moduli.len() * n,
        "signed_to_residues: output length must be (number of moduli) * coeffs.len()"
    );
    for (limb, m) in out.chunks_exact_mut(n.max(1)).zip(moduli) {
        for (o, &c) in limb.iter_mut().zip(coeffs) {
            *o = m.reduce_i64(c);
        }
    }
}
