//! Shared by the parity tests: the device (or a reported skip), fixed-seed data.

#![allow(dead_code)]

use hekate::math::PrimeGenerator;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::{RngCore, SeedableRng};
use hekate::ring::{Form, Poly, RingContext};
use hekate_gpu::{DeviceRingContext, Gpu, Select};
use std::sync::{Arc, OnceLock};

/// Whether a missing device fails the test instead of skipping it: in CI (`CI=true`) and
/// wherever `HEKATE_REQUIRE_GPU=1`.
pub fn required(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v == "1") || std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The device every test shares (compiled modules included), or `None` with a message
/// when there is none (a failure where [`required`]).
pub fn gpu() -> Option<Arc<Gpu>> {
    static GPU: OnceLock<Result<Arc<Gpu>, String>> = OnceLock::new();
    match GPU.get_or_init(|| Gpu::open(Select::Auto).map_err(|e| e.to_string())) {
        Ok(g) => Some(g.clone()),
        Err(e) if required("HEKATE_REQUIRE_GPU") => panic!("a GPU device is required here: {e}"),
        Err(e) => {
            eprintln!("skipped: {e}");
            None
        }
    }
}

/// A ring of degree `n` with chain primes of the given bit sizes and special primes of the
/// given sizes, and its device mirror.
pub fn ring(
    gpu: &Arc<Gpu>,
    n: usize,
    q_bits: &[u32],
    p_bits: &[u32],
) -> (Arc<RingContext>, Arc<DeviceRingContext>) {
    let mut gen = PrimeGenerator::new(n).unwrap();
    let q: Vec<u64> = q_bits.iter().map(|&b| gen.next_prime(b).unwrap()).collect();
    let p: Vec<u64> = p_bits.iter().map(|&b| gen.next_prime(b).unwrap()).collect();
    let ring = RingContext::new(n, &q, &p).unwrap();
    let dctx = DeviceRingContext::new(gpu, &ring).unwrap();
    (ring, dctx)
}

/// A polynomial with words below `bound_factor * q` per limb: uniform, with the edge words
/// `0, 1, q - 1` (and `q, bound q - 1` when `bound_factor > 1`) planted at the start.
pub fn random_poly(
    ring: &RingContext,
    q_limbs: usize,
    p_limbs: usize,
    form: Form,
    bound_factor: u64,
    seed: u64,
) -> Poly {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let n = ring.n();
    let mut data = Vec::with_capacity((q_limbs + p_limbs) * n);
    for i in 0..q_limbs + p_limbs {
        let q = ring.modulus(i, q_limbs).value();
        let bound = bound_factor * q;
        let mut limb: Vec<u64> = (0..n).map(|_| rng.next_u64() % bound).collect();
        let mut edges = vec![0, 1, q - 1];
        if bound_factor > 1 {
            edges.extend([q, bound - 1]);
        }
        for (w, e) in limb.iter_mut().zip(edges) {
            *w = e;
        }
        data.extend(limb);
    }
    Poly::from_raw(n, q_limbs, p_limbs, form, data)
}
