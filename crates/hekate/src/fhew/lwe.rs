//! LWE over `Z_q^n` (seed 002, §2.1): secrets, ciphertexts, modulus switching, sample
//! extraction from RLWE, and LWE key switching from dimension `N` to `n`.
//!
//! `LWE_{q,s}(m) = (α, β) = (α, -<α, s> + e + m)`; the phase is `β + <α, s> = m + e`.
//!
//! Key switching (FHEW, seed 002 §5 and \[4\]) works modulo `Q_ks`, a power of two up to
//! `2^16`, in base `B_ks = 2^k`: the key holds `LWE_s(v · B_ks^j · z_i) mod Q_ks` for every
//! coefficient `z_i` of the RLWE secret, digit position `j < d_ks` and digit value
//! `v ∈ [1, B_ks)`, so that switching is additions only (as in OpenFHE). Its `α` parts are
//! expanded from one 32-byte seed.

use crate::math::memory::{huge_page_vec, prefetch};
use crate::math::modulus::Modulus;
use crate::math::sample::{self, DiscreteGaussian, Seed};
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use zeroize::Zeroize;

/// How LWE secret coefficients are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LweSecretDistribution {
    /// Uniform over `{0, 1}`.
    Binary,
    /// Uniform over `{-1, 0, 1}`.
    Ternary,
    /// Discrete Gaussian with standard deviation `sigma` (`3.19`: "practical", `√n`:
    /// "theoretical", seed 002 §2.1), cut at `6σ`.
    Gaussian {
        /// `σ`.
        sigma: f64,
    },
    /// Uniform over `[-bound, bound]` (any bounded distribution, e.g. a sum of shares).
    Uniform {
        /// The bound.
        bound: i64,
    },
}

impl LweSecretDistribution {
    /// Draws `n` coefficients.
    pub fn sample<R: RngCore + CryptoRng>(&self, n: usize, rng: &mut R) -> Result<Vec<i64>> {
        Ok(match *self {
            LweSecretDistribution::Binary => (0..n).map(|_| (rng.next_u32() & 1) as i64).collect(),
            LweSecretDistribution::Ternary => sample::ternary(rng, n),
            LweSecretDistribution::Gaussian { sigma } => {
                let g = DiscreteGaussian::new(sigma, 6.0)?;
                let mut v = vec![0i64; n];
                g.fill(rng, &mut v);
                v
            }
            LweSecretDistribution::Uniform { bound } => {
                if !(0..1 << 30).contains(&bound) {
                    return Err(Error::InvalidParameters(format!(
                        "uniform secret bound {bound} must lie in [0, 2^30)"
                    )));
                }
                let w = 2 * bound as u64 + 1;
                (0..n)
                    .map(|_| (sample_below(rng, w) as i64) - bound)
                    .collect()
            }
        })
    }
}

fn sample_below<R: RngCore + ?Sized>(rng: &mut R, w: u64) -> u64 {
    let zone = u64::MAX - (u64::MAX % w);
    loop {
        let x = rng.next_u64();
        if x < zone {
            return x % w;
        }
    }
}

/// An LWE secret `s ∈ Z^n` (small integers). Zeroized on drop; `Debug` prints nothing.
#[derive(Clone)]
pub struct LweSecretKey {
    coeffs: Vec<i64>,
}

impl std::fmt::Debug for LweSecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LweSecretKey(n = {}, <redacted>)", self.coeffs.len())
    }
}

impl Drop for LweSecretKey {
    fn drop(&mut self) {
        self.coeffs.zeroize();
    }
}

impl LweSecretKey {
    /// A fresh key of dimension `n`.
    pub fn generate<R: RngCore + CryptoRng>(
        n: usize,
        dist: LweSecretDistribution,
        rng: &mut R,
    ) -> Result<Self> {
        Ok(LweSecretKey {
            coeffs: dist.sample(n, rng)?,
        })
    }

    /// The key with the given coefficients.
    pub fn from_coeffs(coeffs: Vec<i64>) -> Self {
        LweSecretKey { coeffs }
    }

    /// `s`.
    pub fn coeffs(&self) -> &[i64] {
        &self.coeffs
    }

    /// `n`.
    pub fn dim(&self) -> usize {
        self.coeffs.len()
    }

    /// `<α, s> mod q`, with no branch or division on the secret's values: each `s_i` is
    /// reduced with masks ([`Modulus::reduce_i64_ct`]) and each term with a Barrett product
    /// (a variable-time `i128` remainder of the whole sum used to leak its size).
    fn dot(&self, a: &[u64], q: u64) -> u64 {
        let m = Modulus::new(q);
        a.iter().zip(&self.coeffs).fold(0, |acc, (&x, &c)| {
            m.add(acc, m.mul(m.reduce(x), m.reduce_i64_ct(c)))
        })
    }

    /// A fresh encryption of `m` (an element of `Z_q`, already scaled) with noise from
    /// `noise`.
    pub fn encrypt<R: RngCore + CryptoRng>(
        &self,
        m: u64,
        q: u64,
        noise: &DiscreteGaussian,
        rng: &mut R,
    ) -> Result<LweCiphertext> {
        if q < 2 || m >= q {
            return Err(Error::InvalidMessage(format!(
                "LWE message {m} must be reduced modulo q = {q} >= 2"
            )));
        }
        let a: Vec<u64> = (0..self.dim()).map(|_| sample_below(rng, q)).collect();
        let e = noise.sample(rng);
        let dot = self.dot(&a, q);
        let b = ((m as i128 - dot as i128 + e as i128).rem_euclid(q as i128)) as u64;
        Ok(LweCiphertext { a, b, q })
    }

    /// The phase `β + <α, s> mod q`, centered into `[-q/2, q/2)`.
    pub fn phase(&self, ct: &LweCiphertext) -> Result<i64> {
        if ct.a.len() != self.dim() {
            return Err(Error::ParameterMismatch(format!(
                "ciphertext dimension {} differs from the key's n = {}",
                ct.a.len(),
                self.dim()
            )));
        }
        ct.validate()?;
        let p = (ct.b + self.dot(&ct.a, ct.q)) % ct.q;
        Ok(if p >= ct.q.div_ceil(2) {
            p as i64 - ct.q as i64
        } else {
            p as i64
        })
    }
}

/// An LWE ciphertext `(α, β) ∈ Z_q^(n+1)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LweCiphertext {
    /// `α` (each in `[0, q)`).
    pub a: Vec<u64>,
    /// `β` in `[0, q)`.
    pub b: u64,
    /// The modulus `q`.
    pub q: u64,
}

impl LweCiphertext {
    /// The largest modulus `q` an LWE ciphertext may have (`2^32`: FHEW's `q <= 2N`
    /// and key-switching moduli `Q_ks <= 2^32`).
    pub const MAX_Q: u64 = 1 << 32;

    /// `(α, β)` modulo `q`, validated ([`LweCiphertext::validate`]).
    pub fn new(a: Vec<u64>, b: u64, q: u64) -> Result<Self> {
        let ct = LweCiphertext { a, b, q };
        ct.validate()?;
        Ok(ct)
    }

    /// Checks the ranges every operation relies on: `2 <= q <= 2^32`, `β` and every `α_i`
    /// in `[0, q)`. The fields are public, so a hand-built ciphertext is checked here
    /// before it is decrypted or bootstrapped.
    pub fn validate(&self) -> Result<()> {
        if !(2..=Self::MAX_Q).contains(&self.q) {
            return Err(Error::InvalidParameters(format!(
                "LWE modulus q = {} is not in [2, 2^32]",
                self.q
            )));
        }
        if self.b >= self.q {
            return Err(Error::InvalidParameters(format!(
                "LWE ciphertext: β = {} is not reduced modulo q = {}",
                self.b, self.q
            )));
        }
        if let Some(i) = self.a.iter().position(|&x| x >= self.q) {
            return Err(Error::InvalidParameters(format!(
                "LWE ciphertext: α_{i} = {} is not reduced modulo q = {}",
                self.a[i], self.q
            )));
        }
        Ok(())
    }

    /// The noiseless encryption `(0, m)` of `m mod q`.
    pub fn trivial(n: usize, m: u64, q: u64) -> Self {
        LweCiphertext {
            a: vec![0; n],
            b: m % q,
            q,
        }
    }

    /// `n`.
    pub fn dim(&self) -> usize {
        self.a.len()
    }

    fn check_same(&self, other: &LweCiphertext) -> Result<()> {
        if self.q != other.q || self.a.len() != other.a.len() {
            return Err(Error::ParameterMismatch(format!(
                "LWE ciphertexts of (n, q) = ({}, {}) and ({}, {}) cannot be combined",
                self.a.len(),
                self.q,
                other.a.len(),
                other.q
            )));
        }
        Ok(())
    }

    /// `self += other`.
    pub fn add_assign(&mut self, other: &LweCiphertext) -> Result<()> {
        self.check_same(other)?;
        let q = self.q;
        for (x, &y) in self.a.iter_mut().zip(&other.a) {
            *x = (*x + y) % q;
        }
        self.b = (self.b + other.b) % q;
        Ok(())
    }

    /// `self -= other`.
    pub fn sub_assign(&mut self, other: &LweCiphertext) -> Result<()> {
        self.check_same(other)?;
        let q = self.q;
        for (x, &y) in self.a.iter_mut().zip(&other.a) {
            *x = (*x + q - y) % q;
        }
        self.b = (self.b + q - other.b) % q;
        Ok(())
    }

    /// `self = -self`.
    pub fn neg_assign(&mut self) {
        let q = self.q;
        for x in self.a.iter_mut() {
            *x = (q - *x) % q;
        }
        self.b = (q - self.b) % q;
    }

    /// `NOT` of a bit ciphertext: `q/4 - ct` (no bootstrapping, no key).
    pub fn not_bit(&self) -> LweCiphertext {
        let mut r = self.clone();
        r.neg_assign();
        r.add_constant(self.q / 4);
        r
    }

    /// Adds the constant `c` to the phase.
    pub fn add_constant(&mut self, c: u64) {
        self.b = (self.b + c % self.q) % self.q;
    }

    /// Multiplies by a small integer.
    pub fn mul_scalar_assign(&mut self, k: u64) {
        let q = self.q as u128;
        for x in self.a.iter_mut() {
            *x = (*x as u128 * k as u128 % q) as u64;
        }
        self.b = (self.b as u128 * k as u128 % q) as u64;
    }

    /// Modulus switching to `q'`: every coordinate `x -> round(x q' / q)`.
    pub fn mod_switch(&self, q_new: u64) -> LweCiphertext {
        let q = self.q;
        LweCiphertext {
            a: self.a.iter().map(|&x| round_div(x, q_new, q)).collect(),
            b: round_div(self.b, q_new, q),
            q: q_new,
        }
    }
}

/// `round(x · q' / q) mod q'`.
#[inline]
pub fn round_div(x: u64, q_new: u64, q: u64) -> u64 {
    let r = ((x as u128 * q_new as u128 * 2 + q as u128) / (2 * q as u128)) as u64;
    if r >= q_new {
        r - q_new
    } else {
        r
    }
}

/// The largest `log2 Q_ks` LWE key switching supports.
pub const MAX_LOG_Q_KS: u32 = 32;

/// How many selected rows ahead a key switch prefetches (2 to 16 measured alike at
/// OpenFHE's STD128; see `math::memory`).
const PREFETCH_ROWS: usize = 4;

/// The `α` parts of an [`LweKeySwitchKey`]: 16-bit words for `Q_ks <= 2^16` (half the
/// memory of the table, which is the largest key of a bootstrapping key set), 32-bit words
/// above.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KsMasks {
    /// `Q_ks <= 2^16`.
    U16(Vec<u16>),
    /// `2^16 < Q_ks <= 2^32`.
    U32(Vec<u32>),
}

impl KsMasks {
    /// The masks of `len` values for `Q_ks = 2^log_q`, expanded from `seed` (stream
    /// `stream`) as [`expand_lwe_masks`] (up to 16 bits) or [`expand_lwe_masks_wide`] say.
    pub fn expand(seed: &Seed, stream: u64, log_q: u32, len: usize) -> KsMasks {
        // Switches read rows of this table at random: see `math::memory`.
        if log_q <= 16 {
            let mut a = huge_page_vec::<u16>(len);
            expand_lwe_masks(seed, stream, log_q, &mut a);
            KsMasks::U16(a)
        } else {
            let mut a = huge_page_vec::<u32>(len);
            expand_lwe_masks_wide(seed, stream, log_q, &mut a);
            KsMasks::U32(a)
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            KsMasks::U16(a) => a.len(),
            KsMasks::U32(a) => a.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Values `start .. start + out.len()`, widened to `u32`.
    pub fn read(&self, start: usize, out: &mut [u32]) {
        let end = start + out.len();
        match self {
            KsMasks::U16(a) => out
                .iter_mut()
                .zip(&a[start..end])
                .for_each(|(o, &x)| *o = x as u32),
            KsMasks::U32(a) => out.copy_from_slice(&a[start..end]),
        }
    }
}

/// The LWE key-switching key from the `N` coefficients of `z` to `s` (see the module
/// documentation), modulo `Q_ks = 2^log_q_ks <= 2^32` in base `B_ks = 2^log_base`.
///
/// Row `((i d_ks + j)(B_ks - 1) + v - 1)` encrypts `v B_ks^j z_i`; its `α` part is
/// `n` consecutive values of the expansion of `seed` (stream 0, see [`KsMasks::expand`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LweKeySwitchKey {
    /// `log2 Q_ks`.
    pub log_q_ks: u32,
    /// `log2 B_ks`.
    pub log_base: u32,
    /// `d_ks = ceil(log Q_ks / log B_ks)`.
    pub digits: usize,
    /// Input dimension `N`.
    pub n_in: usize,
    /// Output dimension `n`.
    pub n_out: usize,
    /// The seed of every `α` part.
    pub seed: Seed,
    /// `α` parts, row-major (`n_out` per row).
    pub a: KsMasks,
    /// `β` parts, one per row, each below `Q_ks`.
    pub b: Vec<u32>,
}

/// Expands `seed` into `out.len()` values uniform mod `2^log_q` (`log_q <= 16`):
/// ChaCha20 keyed by `seed`, stream `stream`, read as little-endian 64-bit words, each word
/// split into four 16-bit halves (low first) masked to `log_q` bits. Frozen: serialized
/// keys store only the seed.
pub fn expand_lwe_masks(seed: &Seed, stream: u64, log_q: u32, out: &mut [u16]) {
    debug_assert!((1..=16).contains(&log_q));
    let mut rng = ChaCha20Rng::from_seed(*seed);
    rng.set_stream(stream);
    let mask = (((1u32 << log_q) - 1) & 0xffff) as u16;
    let mut chunks = out.chunks_exact_mut(4);
    for c in &mut chunks {
        let w = rng.next_u64();
        c[0] = (w as u16) & mask;
        c[1] = ((w >> 16) as u16) & mask;
        c[2] = ((w >> 32) as u16) & mask;
        c[3] = ((w >> 48) as u16) & mask;
    }
    let rest = chunks.into_remainder();
    if !rest.is_empty() {
        let w = rng.next_u64();
        for (k, x) in rest.iter_mut().enumerate() {
            *x = ((w >> (16 * k)) as u16) & mask;
        }
    }
}

/// [`expand_lwe_masks`] for `16 < log_q <= 32`: each 64-bit word split into two 32-bit
/// halves (low first) masked to `log_q` bits. Frozen like it.
pub fn expand_lwe_masks_wide(seed: &Seed, stream: u64, log_q: u32, out: &mut [u32]) {
    debug_assert!((17..=32).contains(&log_q));
    let mut rng = ChaCha20Rng::from_seed(*seed);
    rng.set_stream(stream);
    let mask = ((1u64 << log_q) - 1) as u32;
    let mut chunks = out.chunks_exact_mut(2);
    for c in &mut chunks {
        let w = rng.next_u64();
        c[0] = (w as u32) & mask;
        c[1] = ((w >> 32) as u32) & mask;
    }
    if let [x] = chunks.into_remainder() {
        *x = (rng.next_u64() as u32) & mask;
    }
}

impl LweKeySwitchKey {
    /// Generates the key from the RLWE secret coefficients `z` to `s`.
    pub fn generate<R: RngCore + CryptoRng>(
        z: &[i64],
        s: &LweSecretKey,
        log_q_ks: u32,
        log_base: u32,
        noise: &DiscreteGaussian,
        rng: &mut R,
    ) -> Result<Self> {
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        Self::generate_with_seed(z, s, log_q_ks, log_base, seed, noise, rng)
    }

    /// [`LweKeySwitchKey::generate`] with the `α` parts expanded from the given `seed`
    /// (for threshold key generation, where every party uses the masks of a common random
    /// string and the `β` parts are summed).
    pub fn generate_with_seed<R: RngCore + CryptoRng>(
        z: &[i64],
        s: &LweSecretKey,
        log_q_ks: u32,
        log_base: u32,
        seed: Seed,
        noise: &DiscreteGaussian,
        rng: &mut R,
    ) -> Result<Self> {
        if !(2..=MAX_LOG_Q_KS).contains(&log_q_ks) || !(1..=log_q_ks.min(16)).contains(&log_base) {
            return Err(Error::InvalidParameters(format!(
                "LWE key switching needs Q_ks = 2^k with k in [2, {MAX_LOG_Q_KS}] and B_ks = 2^b \
                 with b in [1, min(k, 16)]; got k = {log_q_ks}, b = {log_base}"
            )));
        }
        let digits = log_q_ks.div_ceil(log_base) as usize;
        let n = s.dim();
        let base = 1usize << log_base;
        let rows = z.len() * digits * (base - 1);
        let a = KsMasks::expand(&seed, 0, log_q_ks, rows * n);
        let mask = ((1u64 << log_q_ks) - 1) as u32;
        let sc: Vec<u32> = s.coeffs().iter().map(|&c| c as i32 as u32).collect();
        let mut b = Vec::with_capacity(rows);
        let mut ar = vec![0u32; n];
        let mut row = 0;
        for &zi in z {
            for j in 0..digits {
                for v in 1..base {
                    a.read(row * n, &mut ar);
                    let dot = ar
                        .iter()
                        .zip(&sc)
                        .fold(0u32, |acc, (&x, &c)| acc.wrapping_add(x.wrapping_mul(c)));
                    // v B^j z_i mod 2^32 (B^j < 2^32 as j log B < log Q_ks <= 32).
                    let m = (v as u32)
                        .wrapping_mul(1u32 << (log_base as usize * j))
                        .wrapping_mul(zi as i32 as u32);
                    let e = noise.sample(rng) as i32 as u32;
                    b.push(m.wrapping_sub(dot).wrapping_add(e) & mask);
                    row += 1;
                }
            }
        }
        Ok(LweKeySwitchKey {
            log_q_ks,
            log_base,
            digits,
            n_in: z.len(),
            n_out: n,
            seed,
            a,
            b,
        })
    }

    /// Switches `(a, b)` (dimension `N`, mod `Q_ks`) to dimension `n`: writes `out_a`
    /// (length `n`) and returns `out_b`, all mod `Q_ks`.
    pub fn switch(&self, a: &[u32], b: u32, out_a: &mut [u32]) -> u32 {
        debug_assert_eq!(a.len(), self.n_in);
        let mut ob = b;
        match &self.a {
            KsMasks::U16(rows) => self.sum_rows(a, rows, out_a, &mut ob),
            KsMasks::U32(rows) => self.sum_rows(a, rows, out_a, &mut ob),
        }
        let mask = ((1u64 << self.log_q_ks) - 1) as u32;
        out_a.iter_mut().for_each(|x| *x &= mask);
        ob & mask
    }

    /// The rows the digits of `a` select, in order: row `(i d_ks + j)(B_ks - 1) + v - 1`
    /// for each nonzero digit `v` (digit `j` of `a_i`).
    fn selected_rows<'a>(&'a self, a: &'a [u32]) -> impl Iterator<Item = usize> + 'a {
        let (lb, digits) = (self.log_base as usize, self.digits);
        let bmask = (1usize << lb) - 1;
        a.iter().enumerate().flat_map(move |(i, &ai)| {
            // j log B_ks < log Q_ks <= 32: the shift stays below the word.
            (0..digits).filter_map(move |j| {
                let v = (ai as usize >> (j * lb)) & bmask;
                (v != 0).then(|| (i * digits + j) * bmask + v - 1)
            })
        })
    }

    /// `out = Σ` of the rows the digits of `a` select, summed in wrapping 32-bit words
    /// (`Q_ks` is a power of two dividing `2^32`), `ob += Σ` of their `β`. Each row is
    /// prefetched [`PREFETCH_ROWS`] rows ahead (a second pass over the digits).
    fn sum_rows<W: Copy + Into<u32>>(&self, a: &[u32], rows: &[W], out: &mut [u32], ob: &mut u32) {
        let n = self.n_out;
        let mut ahead = self.selected_rows(a).skip(PREFETCH_ROWS);
        out.fill(0);
        for row in self.selected_rows(a) {
            if let Some(r) = ahead.next() {
                prefetch(&rows[r * n..(r + 1) * n]);
            }
            for (o, &y) in out.iter_mut().zip(&rows[row * n..(row + 1) * n]) {
                *o = o.wrapping_add(y.into());
            }
            *ob = ob.wrapping_add(self.b[row]);
        }
    }

    /// Bytes the key takes in memory (the `α` table and the `β` parts).
    pub fn memory_bytes(&self) -> usize {
        let word = match self.a {
            KsMasks::U16(_) => 2,
            KsMasks::U32(_) => 4,
        };
        self.a.len() * word + self.b.len() * 4
    }

    /// Bytes of the seed-compressed key (seed and packed `β` parts).
    pub fn compressed_bytes(&self) -> usize {
        32 + (self.b.len() * self.log_q_ks as usize).div_ceil(8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn encrypt_decrypt_every_distribution() {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let noise = DiscreteGaussian::new(3.19, 6.0).unwrap();
        let n = 256;
        for dist in [
            LweSecretDistribution::Binary,
            LweSecretDistribution::Ternary,
            LweSecretDistribution::Gaussian { sigma: 3.19 },
            LweSecretDistribution::Gaussian {
                sigma: (n as f64).sqrt(),
            },
            LweSecretDistribution::Uniform { bound: 40 },
        ] {
            let s = LweSecretKey::generate(n, dist, &mut rng).unwrap();
            for q in [1024u64, 1 << 14, 12289] {
                for m in [0u64, 1, q / 4, q - 1] {
                    let ct = s.encrypt(m, q, &noise, &mut rng).unwrap();
                    let mut p = s.phase(&ct).unwrap() - m as i64;
                    p = p.rem_euclid(q as i64);
                    if p > q as i64 / 2 {
                        p -= q as i64;
                    }
                    assert!(p.abs() <= 20, "{dist:?} q={q} m={m}: noise {p}");
                }
            }
            assert!(s.encrypt(5, 4, &noise, &mut rng).is_err());
        }
        assert!(format!("{:?}", LweSecretKey::from_coeffs(vec![1, -1])).contains("redacted"));
    }

    #[test]
    fn key_switching_preserves_the_phase() {
        let mut rng = ChaCha20Rng::seed_from_u64(8);
        let noise = DiscreteGaussian::new(3.19, 6.0).unwrap();
        let big_n = 128;
        let z = LweSecretKey::generate(big_n, LweSecretDistribution::Ternary, &mut rng).unwrap();
        let s = LweSecretKey::generate(32, LweSecretDistribution::Ternary, &mut rng).unwrap();
        // 16-bit tables (Q_ks = 2^14) and 32-bit ones (Q_ks = 2^20, 2^32).
        for (log_q, log_b) in [(14u32, 7u32), (20, 5), (32, 8)] {
            let ksk =
                LweKeySwitchKey::generate(z.coeffs(), &s, log_q, log_b, &noise, &mut rng).unwrap();
            assert_eq!(matches!(ksk.a, KsMasks::U16(_)), log_q <= 16);
            let q = 1u64 << log_q;
            let mut out = vec![0u32; 32];
            for m in [0u64, q / 4, q / 2, 3 * q / 4] {
                let ct = z.encrypt(m, q, &noise, &mut rng).unwrap();
                let a: Vec<u32> = ct.a.iter().map(|&x| x as u32).collect();
                let b = ksk.switch(&a, ct.b as u32, &mut out);
                let sw = LweCiphertext {
                    a: out.iter().map(|&x| x as u64).collect(),
                    b: b as u64,
                    q,
                };
                let mut p = s.phase(&sw).unwrap() - m as i64;
                p = p.rem_euclid(q as i64);
                if p > q as i64 / 2 {
                    p -= q as i64;
                }
                // Noise: up to N d_ks key rows of σ = 3.19 each (7σ of their sum), plus the
                // input's.
                let bound = 7.0 * (big_n as f64 * ksk.digits as f64 * 3.19 * 3.19).sqrt() + 30.0;
                assert!(
                    (p.abs() as f64) < bound,
                    "Q_ks 2^{log_q}, m = {m}: noise {p}"
                );
            }
        }
        assert!(LweKeySwitchKey::generate(z.coeffs(), &s, 33, 7, &noise, &mut rng).is_err());
        assert!(LweKeySwitchKey::generate(z.coeffs(), &s, 20, 17, &noise, &mut rng).is_err());
    }

    #[test]
    fn mod_switch_rounds() {
        let ct = LweCiphertext {
            a: vec![0, 1, 8, 15],
            b: 7,
            q: 16,
        };
        let sw = ct.mod_switch(4);
        assert_eq!(sw.a, vec![0, 0, 2, 0]);
        assert_eq!(sw.b, 2);
    }
}
