//! Key switching on the device through hekate's backend seam: the hybrid engine's three
//! steps (`decompose_on`, `multiply_on`, `mod_down_on`) with `DeviceRingContext` give the
//! CPU engine's words at every level, for several digit counts, one key or two keys summed
//! before one ModDown (hoisting's pattern); and the seam's pieces (ModUp of one digit,
//! ModDown, base conversion) each equal the CPU's.

mod common;

use hekate::math::rns::BaseConverter;
use hekate::rand_chacha::ChaCha20Rng;
use hekate::rand_core::{RngCore, SeedableRng};
use hekate::ring::{Form, Poly, RingContext};
use hekate::rlwe::backend::Backend;
use hekate::rlwe::keys::{SecretDistribution, SecretKey};
use hekate::rlwe::{HybridKey, HybridKeySwitcher, KeySwitcher};
use hekate_gpu::{DevicePoly, DeviceRingContext};

fn random_ntt(ring: &RingContext, ql: usize, rng: &mut ChaCha20Rng) -> Poly {
    let mut c = ring.zero(ql, 0, Form::Ntt);
    for (i, limb) in c.limbs_mut().enumerate() {
        let q = ring.modulus(i, ql).value();
        limb.iter_mut().for_each(|x| *x = rng.next_u64() % q);
    }
    c
}

fn upload_key(dctx: &DeviceRingContext, key: &HybridKey) -> Vec<[DevicePoly; 2]> {
    key.digits
        .iter()
        .map(|[b, a]| [dctx.upload(b), dctx.upload(a)])
        .collect()
}

#[test]
fn hybrid_key_switch_matches_the_cpu_word_for_word() {
    let Some(gpu) = common::gpu() else { return };
    let n = 1 << 10;
    // Chain and special primes of mixed sizes, as the CPU's tests use.
    let (ring, dctx) = common::ring(&gpu, n, &[55, 40, 40, 40, 40, 40], &[58, 58]);
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let sk = SecretKey::generate(&ring, SecretDistribution::Ternary, &mut rng).unwrap();
    let s1 = SecretKey::generate(&ring, SecretDistribution::Ternary, &mut rng).unwrap();
    let s2 = SecretKey::generate(&ring, SecretDistribution::Ternary, &mut rng).unwrap();
    for dnum in [1usize, 2, 3, 6] {
        let ks = HybridKeySwitcher::new(ring.clone(), dnum);
        let k1 = ks.generate_key(s1.ntt(), &sk, &mut rng);
        let k2 = ks.generate_key(s2.ntt(), &sk, &mut rng);
        let (d1, d2) = (upload_key(&dctx, &k1), upload_key(&dctx, &k2));
        for ql in 1..=ring.q_len() {
            let c = random_ntt(&ring, ql, &mut rng);
            let want = ks.switch(&c, &k1);
            let digits = ks.decompose_on(&*dctx, &dctx.upload(&c), ql);
            assert_eq!(digits.len(), ks.digits_at(ql));
            let mut acc = [0, 1].map(|_| dctx.alloc(ql, ring.p_len(), Form::Ntt));
            ks.multiply_on(&*dctx, &digits, &d1, &mut acc, false);
            let got = ks.mod_down_on(&*dctx, acc);
            assert_eq!(
                dctx.download(&got[0]),
                want[0],
                "dnum {dnum} level {ql}, u0"
            );
            assert_eq!(
                dctx.download(&got[1]),
                want[1],
                "dnum {dnum} level {ql}, u1"
            );
            // Two keys summed before one ModDown.
            let d = ks.decompose(&c);
            let mut want2 = ks.multiply(&d, &k1, ql);
            ks.multiply_add(&d, &k2, &mut want2);
            let want2 = ks.mod_down(want2);
            let mut acc = [0, 1].map(|_| dctx.alloc(ql, ring.p_len(), Form::Ntt));
            ks.multiply_on(&*dctx, &digits, &d1, &mut acc, false);
            ks.multiply_on(&*dctx, &digits, &d2, &mut acc, true);
            let got2 = ks.mod_down_on(&*dctx, acc);
            assert_eq!(
                dctx.download(&got2[0]),
                want2[0],
                "hoisted, dnum {dnum} level {ql}"
            );
            assert_eq!(
                dctx.download(&got2[1]),
                want2[1],
                "hoisted, dnum {dnum} level {ql}"
            );
        }
    }
}

/// More digits than one launch of the fused inner product takes (dnum = 10, one prime per
/// digit): the chunks accumulate to the CPU's words.
#[test]
fn more_digits_than_one_inner_product_launch() {
    let Some(gpu) = common::gpu() else { return };
    let (ring, dctx) = common::ring(&gpu, 1 << 8, &[50; 10], &[60]);
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let sk = SecretKey::generate(&ring, SecretDistribution::Ternary, &mut rng).unwrap();
    let s1 = SecretKey::generate(&ring, SecretDistribution::Ternary, &mut rng).unwrap();
    let ks = HybridKeySwitcher::new(ring.clone(), 10);
    let k1 = ks.generate_key(s1.ntt(), &sk, &mut rng);
    let d1 = upload_key(&dctx, &k1);
    for ql in [10, 9, 8, 1] {
        let c = random_ntt(&ring, ql, &mut rng);
        let want = ks.switch(&c, &k1);
        let digits = ks.decompose_on(&*dctx, &dctx.upload(&c), ql);
        let mut acc = [0, 1].map(|_| dctx.alloc(ql, ring.p_len(), Form::Ntt));
        ks.multiply_on(&*dctx, &digits, &d1, &mut acc, false);
        let got = ks.mod_down_on(&*dctx, acc);
        assert_eq!(dctx.download(&got[0]), want[0], "level {ql}");
        assert_eq!(dctx.download(&got[1]), want[1], "level {ql}");
    }
}

/// Base conversion near the centering boundary (`x` within `Q / 2^40` of `Q / 2`, where
/// `v` is decided by the last bits of the f64 sum) and at random, against the CPU.
#[test]
fn base_conversion_matches_the_cpu() {
    let Some(gpu) = common::gpu() else { return };
    let n = 1 << 8;
    let (ring, dctx) = common::ring(&gpu, n, &[61, 60, 59, 50, 45, 36], &[61, 60, 58]);
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    for ql in 1..=ring.q_len() {
        let conv = BaseConverter::new(&ring.q().slice(0..ql), ring.p());
        // Random residues, and values near Q/2: x = floor(Q/2) + d for small d, whose
        // residues are floor(Q/2) mod q_i + d.
        let mut x = random_ntt(&ring, ql, &mut rng);
        x.set_form(Form::Coeff);
        let q_big: num_bigint::BigUint = (0..ql).map(|i| ring.modulus(i, ql).value()).product();
        let half = &q_big >> 1u32;
        for (i, limb) in x.limbs_mut().enumerate() {
            let q = ring.modulus(i, ql).value();
            let h: u64 = (&half % q).try_into().unwrap();
            for (k, w) in limb.iter_mut().enumerate().take(64) {
                let d = (k as i64 - 32) as i128;
                *w = ((h as i128 + d).rem_euclid(q as i128)) as u64;
            }
        }
        let mut want = vec![0u64; ring.p_len() * n];
        let mut scratch = vec![0u64; (ql + 1) * n];
        conv.convert(x.data(), &mut want, n, &mut scratch);
        let dx = DevicePoly::upload(&dctx, &x).unwrap();
        let dconv = dctx.converter(&conv).unwrap();
        let s = dconv.prepare(&dx, 0).unwrap();
        let mut out = DevicePoly::zero(&dctx, ring.p_len(), 0, Form::Coeff).unwrap();
        dconv.write(&s, &mut out, 0, ring.p_len(), 0).unwrap();
        assert_eq!(
            out.download().unwrap().data(),
            &want[..],
            "from {ql} primes"
        );
        // In one launch without a scratch, alone and paired with random residues.
        let mut y = random_ntt(&ring, ql, &mut rng);
        y.set_form(Form::Coeff);
        let mut want_y = vec![0u64; ring.p_len() * n];
        conv.convert(y.data(), &mut want_y, n, &mut scratch);
        let dy = DevicePoly::upload(&dctx, &y).unwrap();
        let zero = || DevicePoly::zero(&dctx, ring.p_len(), 0, Form::Coeff).unwrap();
        let (mut one, mut a, mut b) = (zero(), zero(), zero());
        dconv.convert([&dx], 0, [&mut one], ring.p_len()).unwrap();
        dconv
            .convert([&dx, &dy], 0, [&mut a, &mut b], ring.p_len())
            .unwrap();
        assert_eq!(one.download().unwrap().data(), &want[..], "direct, {ql}");
        assert_eq!(a.download().unwrap().data(), &want[..], "pair, first, {ql}");
        assert_eq!(
            b.download().unwrap().data(),
            &want_y[..],
            "pair, second, {ql}"
        );
    }
}

/// More targets than one work-item writes (8), in pieces: blocks of 8, a partial block, a
/// first target and an output limb that are not 0.
#[test]
fn base_conversion_to_many_targets_in_pieces() {
    let Some(gpu) = common::gpu() else { return };
    let n = 1 << 8;
    let q_bits = [50u32; 21];
    let (ring, dctx) = common::ring(&gpu, n, &q_bits, &[61, 60, 59]);
    let conv = BaseConverter::new(ring.p(), ring.q());
    // One chain limb and the special limbs, reduced, in coefficient form: P is converted.
    let x = common::random_poly(&ring, 1, ring.p_len(), Form::Coeff, 1, 13);
    let to = ring.q_len();
    let mut want = vec![0u64; to * n];
    let mut scratch = vec![0u64; (ring.p_len() + 1) * n];
    conv.convert(&x.data()[n..], &mut want, n, &mut scratch);
    let dx = DevicePoly::upload(&dctx, &x).unwrap();
    let dconv = dctx.converter(&conv).unwrap();
    let s = dconv.prepare(&dx, 1).unwrap();
    for pieces in [&[(0, to)][..], &[(0, 11), (11, 1), (12, to - 12)][..]] {
        // Written one limb above where they belong, then compared limb by limb.
        let mut out = DevicePoly::zero(&dctx, to, ring.p_len(), Form::Coeff).unwrap();
        for &(j0, count) in pieces {
            dconv.write(&s, &mut out, j0, count, j0 + 1).unwrap();
        }
        let got = out.download().unwrap();
        assert_eq!(&got.data()[n..(to + 1) * n], &want[..], "pieces {pieces:?}");
    }
}

#[test]
fn mod_down_matches_the_cpu_in_both_forms() {
    if common::gpu().is_none() {
        return;
    }
    // A device of its own, so that no other test's launches are counted.
    let gpu = hekate_gpu::Gpu::open(hekate_gpu::Select::Auto).unwrap();
    let (ring, dctx) = common::ring(&gpu, 1 << 11, &[60, 50, 50, 50], &[61, 61]);
    for form in [Form::Ntt, Form::Coeff] {
        for ql in 1..=ring.q_len() {
            let p = common::random_poly(&ring, ql, ring.p_len(), form, 1, 100 + ql as u64);
            let want = p.clone().mod_down_by_p(&ring);
            let got = dctx.mod_down(DevicePoly::upload(&dctx, &p).unwrap());
            assert_eq!(got.download().unwrap(), want, "{form:?}, level {ql}");
            // Two halves in the same launches: each the CPU's words.
            let p1 = common::random_poly(&ring, ql, ring.p_len(), form, 1, 200 + ql as u64);
            let want1 = p1.clone().mod_down_by_p(&ring);
            let pair = [&p, &p1].map(|p| DevicePoly::upload(&dctx, p).unwrap());
            let before = gpu.launches();
            let [u0, u1] = dctx.mod_down_pair(pair);
            let pair_launches = gpu.launches() - before;
            assert_eq!(u0.download().unwrap(), want, "{form:?}, level {ql}, first");
            assert_eq!(
                u1.download().unwrap(),
                want1,
                "{form:?}, level {ql}, second"
            );
            let before = gpu.launches();
            drop(dctx.mod_down(DevicePoly::upload(&dctx, &p1).unwrap()));
            assert_eq!(pair_launches, gpu.launches() - before, "as many as one");
        }
    }
    // Halves of different shapes are refused (the seam panics with the error).
    let up = |ql, seed| {
        DevicePoly::upload(
            &dctx,
            &common::random_poly(&ring, ql, 2, Form::Ntt, 1, seed),
        )
        .unwrap()
    };
    let (a, b) = (up(2, 7), up(3, 8));
    let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        dctx.mod_down_pair([a, b]);
    }));
    assert!(refused.is_err());
}
