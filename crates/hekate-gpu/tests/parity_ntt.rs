//! The device NTT against the CPU, word for word: reduced transforms against `Poly::ntt` /
//! `Poly::intt` (every CPU backend gives the same canonical words), lazy ones against the
//! scalar backend's `forward_lazy` / `inverse_lazy`, on every limb of chain and special
//! primes from 36 to 61 bits, for sizes that run only the local-memory tile (N <= 2048)
//! and sizes that add global stages (N = 2^13, 2^16).

mod common;

use hekate::math::{NttBackend, NttPlan};
use hekate::ring::{Form, Poly, RingContext};
use hekate_gpu::{DevicePoly, DeviceRingContext};

/// The scalar plan of limb `i`.
fn scalar_plan(ring: &RingContext, i: usize, q_limbs: usize) -> NttPlan {
    let mut plan = ring.ntt_plan(i, q_limbs).clone();
    plan.set_backend(NttBackend::Scalar).unwrap();
    plan
}

fn check(n: usize, q_bits: &[u32], p_bits: &[u32], seed: u64) {
    check_tile(n, q_bits, p_bits, seed, None);
}

/// As `check`, on a device context with NTT tiles of `tile` words if given.
fn check_tile(n: usize, q_bits: &[u32], p_bits: &[u32], seed: u64, tile: Option<usize>) {
    let Some(gpu) = common::gpu() else { return };
    let (ring, mut dctx) = common::ring(&gpu, n, q_bits, p_bits);
    if let Some(t) = tile {
        dctx = DeviceRingContext::with_tile(&gpu, &ring, t).unwrap();
        assert_eq!(dctx.tile(), t);
    }
    let (ql, pl) = (q_bits.len(), p_bits.len());
    let what = format!("N = {n}, q bits {q_bits:?}, p bits {p_bits:?}, tile {tile:?}");

    // Reduced forward, then inverse (the round trip too).
    let coeffs = common::random_poly(&ring, ql, pl, Form::Coeff, 1, seed);
    let mut cpu = coeffs.clone();
    cpu.ntt(&ring);
    let mut dev = DevicePoly::upload(&dctx, &coeffs).unwrap();
    dev.ntt().unwrap();
    assert_eq!(dev.form(), Form::Ntt);
    assert_eq!(
        dev.download().unwrap().data(),
        cpu.data(),
        "forward, {what}"
    );
    cpu.intt(&ring);
    dev.intt().unwrap();
    assert_eq!(
        dev.download().unwrap().data(),
        cpu.data(),
        "inverse, {what}"
    );
    assert_eq!(cpu.data(), coeffs.data());

    // Reduced inverse of arbitrary NTT-form words.
    let evals = common::random_poly(&ring, ql, pl, Form::Ntt, 1, seed + 1);
    let mut cpu = evals.clone();
    cpu.intt(&ring);
    let mut dev = DevicePoly::upload(&dctx, &evals).unwrap();
    dev.intt().unwrap();
    assert_eq!(
        dev.download().unwrap().data(),
        cpu.data(),
        "inverse of random words, {what}"
    );

    // Lazy transforms on inputs in [0, 2q), edge words included.
    let lazy_in = common::random_poly(&ring, ql, pl, Form::Coeff, 2, seed + 2);
    for reduce in [false, true] {
        let mut fwd: Vec<u64> = lazy_in.data().to_vec();
        let mut inv: Vec<u64> = lazy_in.data().to_vec();
        for (i, (f, v)) in fwd.chunks_mut(n).zip(inv.chunks_mut(n)).enumerate() {
            let plan = scalar_plan(&ring, i, ql);
            if reduce {
                // The reduced transforms take [0, q): reduce the input first.
                let q = plan.modulus().value();
                f.iter_mut().for_each(|w| *w %= q);
                v.iter_mut().for_each(|w| *w %= q);
                plan.forward(f);
                plan.inverse(v);
            } else {
                plan.forward_lazy(f);
                plan.inverse_lazy(v);
            }
        }
        let mut input = lazy_in.clone();
        if reduce {
            for (i, limb) in input.limbs_mut().enumerate() {
                let q = ring.modulus(i, ql).value();
                limb.iter_mut().for_each(|w| *w %= q);
            }
        }
        let mut dev = DevicePoly::upload(&dctx, &input).unwrap();
        dev.forward(reduce).unwrap();
        assert_eq!(
            dev.download().unwrap().data(),
            &fwd[..],
            "forward (reduce = {reduce}), {what}"
        );
        let mut dev = DevicePoly::upload(&dctx, &input).unwrap();
        dev.inverse(reduce).unwrap();
        assert_eq!(
            dev.download().unwrap().data(),
            &inv[..],
            "inverse (reduce = {reduce}), {what}"
        );
    }
}

#[test]
fn tiny_sizes() {
    check(2, &[36], &[], 1);
    check(4, &[40, 36], &[], 2);
    check(16, &[50, 61], &[60], 3);
}

#[test]
fn tile_sizes() {
    check(1 << 10, &[61, 50, 36], &[61], 4);
    check(1 << 11, &[45, 55], &[58, 40], 5);
}

#[test]
fn global_stages() {
    check(1 << 12, &[50, 49, 61], &[60], 6);
    check(1 << 13, &[59, 37], &[], 7);
}

/// Column passes of every size: with tiles of 2^t words a pass runs at most t - 4 stages
/// (at least 1), so N = 2^12 splits its 12 - t outer stages into passes of 1 (t = 4, 5:
/// 8 and 7 passes), 2 + 2 + 2 (t = 6) and 3 + 2 (t = 7).
#[test]
fn column_passes_of_every_size() {
    for (i, tile) in [16usize, 32, 64, 128].into_iter().enumerate() {
        check_tile(1 << 12, &[50, 61], &[59], 20 + i as u64, Some(tile));
    }
    // Tiles of 2 words: every stage but the last in a column pass.
    check_tile(1 << 6, &[40], &[], 30, Some(2));
}

#[test]
fn full_size_limb() {
    check(1 << 16, &[60, 50], &[61], 8);
}

#[test]
fn rejects_foreign_shapes() {
    let Some(gpu) = common::gpu() else { return };
    let (ring, dctx) = common::ring(&gpu, 1 << 4, &[40, 41], &[50]);
    let (other, _) = common::ring(&gpu, 1 << 5, &[40], &[]);
    assert!(DevicePoly::upload(&dctx, &other.zero(1, 0, Form::Coeff)).is_err());
    // More limbs than the ring has.
    let too_many = Poly::zero(16, 3, 0, Form::Coeff);
    assert!(DevicePoly::upload(&dctx, &too_many).is_err());
    let a = DevicePoly::upload(&dctx, &ring.zero(2, 0, Form::Ntt)).unwrap();
    let mut b = DevicePoly::upload(&dctx, &ring.zero(1, 0, Form::Ntt)).unwrap();
    assert!(b.add_assign(&a).is_err());
    let mut c = DevicePoly::upload(&dctx, &ring.zero(2, 0, Form::Coeff)).unwrap();
    assert!(c
        .mul_assign(
            &c.download()
                .map(|p| DevicePoly::upload(&dctx, &p).unwrap())
                .unwrap()
        )
        .is_err());
}

/// `forward_limbs_except` (ModUp's one transform of every limb but its digit's): the limbs
/// outside the window are the CPU's transforms, those inside it untouched, for windows at
/// the start, in the middle and at the end, through column passes and the tile pass; a
/// window outside the range is refused.
#[test]
fn forward_skipping_a_window() {
    let Some(gpu) = common::gpu() else { return };
    let (q_bits, p_bits) = ([50, 49, 61, 40, 55], [60, 58]);
    let (ring, dctx) = common::ring(&gpu, 1 << 12, &q_bits, &p_bits);
    let (ql, pl, n) = (q_bits.len(), p_bits.len(), 1 << 12);
    let coeffs = common::random_poly(&ring, ql, pl, Form::Coeff, 1, 40);
    let mut ntt = coeffs.clone();
    ntt.ntt(&ring);
    for skip in [0..2, 2..4, 4..5, 5..7, 3..3] {
        let mut dev = DevicePoly::upload(&dctx, &coeffs).unwrap();
        dev.forward_limbs_except(0..ql + pl, skip.clone(), true)
            .unwrap();
        let got = dev.download().unwrap();
        for l in 0..ql + pl {
            let want = if skip.contains(&l) { &coeffs } else { &ntt };
            assert_eq!(
                &got.data()[l * n..(l + 1) * n],
                &want.data()[l * n..(l + 1) * n],
                "limb {l}, window {skip:?}"
            );
        }
    }
    let mut dev = DevicePoly::upload(&dctx, &coeffs).unwrap();
    assert!(dev.forward_limbs_except(1..4, 3..5, true).is_err());
    assert!(dev.forward_limbs_except(2..4, 0..1, true).is_err());
}

/// Pairs in one launch per pass: the NTTs of two polynomials and rescaling of a
/// ciphertext's two parts equal the CPU's, with as many launches as one polynomial takes;
/// polynomials of different shapes are refused.
#[test]
fn pairs_in_one_launch() {
    if common::gpu().is_none() {
        return;
    }
    // A device of its own, so that no other test's launches are counted.
    let gpu = hekate_gpu::Gpu::open(hekate_gpu::Select::Auto).unwrap();
    let q_bits = [50, 49, 61, 40];
    let (ring, dctx) = common::ring(&gpu, 1 << 12, &q_bits, &[60]);
    let ql = q_bits.len();
    let x = common::random_poly(&ring, ql, 1, Form::Coeff, 1, 50);
    let y = common::random_poly(&ring, ql, 1, Form::Coeff, 1, 51);
    let (mut dx, mut dy) = (
        DevicePoly::upload(&dctx, &x).unwrap(),
        DevicePoly::upload(&dctx, &y).unwrap(),
    );
    let before = gpu.launches();
    DevicePoly::forward_limbs_pair(&mut dx, &mut dy, 0..ql + 1, true).unwrap();
    let pair = gpu.launches() - before;
    let (mut wx, mut wy) = (x.clone(), y.clone());
    wx.ntt(&ring);
    wy.ntt(&ring);
    assert_eq!(dx.download().unwrap().data(), wx.data(), "forward, first");
    assert_eq!(dy.download().unwrap().data(), wy.data(), "forward, second");
    let before = gpu.launches();
    dx.forward_limbs(0..0, true).unwrap();
    assert_eq!(gpu.launches(), before, "no limbs, no launch");
    DevicePoly::inverse_limbs_pair(&mut dx, &mut dy, 0..ql + 1, true).unwrap();
    assert_eq!(gpu.launches() - before, pair);
    assert_eq!(dx.download().unwrap().data(), x.data(), "inverse, first");
    assert_eq!(dy.download().unwrap().data(), y.data(), "inverse, second");

    // Rescaling a pair in either form, as Poly::divide_round_by_last_q.
    for form in [Form::Ntt, Form::Coeff] {
        let a = common::random_poly(&ring, ql, 0, form, 1, 52);
        let b = common::random_poly(&ring, ql, 0, form, 1, 53);
        let (mut da, mut db) = (
            DevicePoly::upload(&dctx, &a).unwrap(),
            DevicePoly::upload(&dctx, &b).unwrap(),
        );
        let before = gpu.launches();
        DevicePoly::divide_round_by_last_q_pair(&mut da, &mut db).unwrap();
        let pair = gpu.launches() - before;
        let (mut wa, mut wb) = (a.clone(), b.clone());
        wa.divide_round_by_last_q(&ring);
        wb.divide_round_by_last_q(&ring);
        assert_eq!(da.download().unwrap().data(), wa.data(), "{form:?}, first");
        assert_eq!(db.download().unwrap().data(), wb.data(), "{form:?}, second");
        let mut one = DevicePoly::upload(&dctx, &a).unwrap();
        let before = gpu.launches();
        one.divide_round_by_last_q().unwrap();
        assert_eq!(gpu.launches() - before, pair, "{form:?}: as many as one");
        assert_eq!(one.download().unwrap().data(), wa.data());
    }

    // Different shapes or forms are refused.
    let mut short = DevicePoly::upload(&dctx, &ring.zero(ql - 1, 0, Form::Ntt)).unwrap();
    let mut full = DevicePoly::upload(&dctx, &ring.zero(ql, 0, Form::Ntt)).unwrap();
    assert!(DevicePoly::forward_limbs_pair(&mut short, &mut full, 0..1, true).is_err());
    assert!(DevicePoly::divide_round_by_last_q_pair(&mut short, &mut full).is_err());
    let mut coeff = DevicePoly::upload(&dctx, &ring.zero(ql, 0, Form::Coeff)).unwrap();
    assert!(DevicePoly::divide_round_by_last_q_pair(&mut full, &mut coeff).is_err());
}
