//! Samplers and seed expansion (temporary minimal version; replaced by the math-misc branch).
#![allow(missing_docs)]
use super::Modulus;
use crate::{Error, Result};
use rand_chacha::rand_core::{OsRng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

pub type Seed = [u8; 32];

pub fn os_rng() -> ChaCha20Rng {
    ChaCha20Rng::from_rng(OsRng).expect("OS randomness")
}

pub fn fresh_seed() -> Seed {
    let mut s = [0u8; 32];
    OsRng.fill_bytes(&mut s);
    s
}

fn uniform_below<R: RngCore>(rng: &mut R, q: u64) -> u64 {
    let mask = u64::MAX >> q.leading_zeros();
    loop {
        let x = rng.next_u64() & mask;
        if x < q {
            return x;
        }
    }
}

pub fn uniform_residues<R: RngCore>(rng: &mut R, moduli: &[Modulus], n: usize, out: &mut [u64]) {
    for (i, m) in moduli.iter().enumerate() {
        for o in &mut out[i * n..(i + 1) * n] {
            *o = uniform_below(rng, m.value());
        }
    }
}

pub fn expand_seed(seed: &Seed, stream: u64, moduli: &[Modulus], n: usize, out: &mut [u64]) {
    let mut rng = ChaCha20Rng::from_seed(*seed);
    rng.set_stream(stream);
    uniform_residues(&mut rng, moduli, n, out)
}

pub fn ternary<R: RngCore>(rng: &mut R, n: usize) -> Vec<i64> {
    (0..n).map(|_| uniform_below(rng, 3) as i64 - 1).collect()
}

pub fn ternary_hamming<R: RngCore>(rng: &mut R, n: usize, h: usize) -> Result<Vec<i64>> {
    if h > n {
        return Err(Error::InvalidParameters("h > n".into()));
    }
    let mut v = vec![0i64; n];
    let mut placed = 0;
    while placed < h {
        let i = uniform_below(rng, n as u64) as usize;
        if v[i] == 0 {
            v[i] = if rng.next_u32() & 1 == 0 { 1 } else { -1 };
            placed += 1;
        }
    }
    Ok(v)
}

pub struct DiscreteGaussian {
    sigma: f64,
    bound: i64,
}

impl DiscreteGaussian {
    pub fn new(sigma: f64, tail_cut: f64) -> Result<Self> {
        Ok(DiscreteGaussian { sigma, bound: (sigma * tail_cut).floor() as i64 })
    }
    pub fn sample<R: RngCore>(&self, rng: &mut R) -> i64 {
        loop {
            let x = uniform_below(rng, 2 * self.bound as u64 + 1) as i64 - self.bound;
            let p = (-(x * x) as f64 / (2.0 * self.sigma * self.sigma)).exp();
            if (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p {
                return x;
            }
        }
    }
    pub fn fill<R: RngCore>(&self, rng: &mut R, out: &mut [i64]) {
        out.iter_mut().for_each(|o| *o = self.sample(rng));
    }
}
