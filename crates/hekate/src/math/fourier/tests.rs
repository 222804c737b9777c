use super::products::{mul_acc2_compact_on, mul_acc2_on};
use super::*;
use rand::{Rng, SeedableRng};

use crate::math::negacyclic_oracle;

const ZERO: C64 = C64::new(0.0, 0.0);

#[test]
fn products_match_the_schoolbook_oracle() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let q: u64 = 134215681; // 27 bits
    for n in [16usize, 256, 1024] {
        let f = NegacyclicFft::new(n).unwrap();
        let mut s = f.scratch();
        let m = f.len();
        let terms = 3;
        // Digits in [-2^8, 2^8), keys uniform mod q.
        let xs: Vec<Vec<i64>> = (0..terms)
            .map(|_| (0..n).map(|_| rng.gen_range(-256..256)).collect())
            .collect();
        let ys: Vec<Vec<u64>> = (0..terms)
            .map(|_| (0..n).map(|_| rng.gen_range(0..q)).collect())
            .collect();
        let to_mod =
            |v: &[i64]| -> Vec<u64> { v.iter().map(|&x| x.rem_euclid(q as i64) as u64).collect() };
        let mut xf = vec![ZERO; terms * m];
        let mut yf = vec![ZERO; terms * m];
        for t in 0..terms {
            f.forward_mod(&to_mod(&xs[t]), q, &mut xf[t * m..(t + 1) * m], &mut s);
            f.forward_mod(&ys[t], q, &mut yf[t * m..(t + 1) * m], &mut s);
        }
        let (mut oa, mut ob) = (vec![ZERO; m], vec![ZERO; m]);
        mul_acc2(&mut oa, &mut ob, &xf, &yf, &yf, false);
        let mut got = vec![0u64; n];
        f.inverse_mod(&mut oa.clone(), q, &mut got, &mut s);
        let mut want = vec![0u64; n];
        for t in 0..terms {
            for (w, p) in want
                .iter_mut()
                .zip(negacyclic_oracle(&to_mod(&xs[t]), &ys[t], q))
            {
                *w = (*w + p) % q;
            }
        }
        assert_eq!(got, want, "n = {n}");
        // The accumulate flag adds, and inverse_mod_add adds.
        mul_acc2(&mut oa, &mut ob, &xf, &yf, &yf, true);
        let mut twice = want.clone();
        f.inverse_mod_add(&mut ob, q, &mut twice, &mut s);
        let triple: Vec<u64> = want.iter().map(|&w| 3 * w % q).collect();
        assert_eq!(twice, triple, "n = {n}, accumulated");
    }
}

/// Products with 32-bit keys: off from the exact integers by about `Q 2^-31` per key
/// coefficient times the digits' size, never by more than a few units here; the
/// portable code agrees with the dispatched one.
#[test]
fn compact_products_are_close_to_the_oracle() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    let q: u64 = 134215681; // 27 bits
    let (n, terms) = (1024usize, 3);
    let f = NegacyclicFft::new(n).unwrap();
    let mut s = f.scratch();
    let m = f.len();
    let xs: Vec<Vec<u64>> = (0..terms)
        .map(|_| {
            (0..n)
                .map(|_| rng.gen_range(-256i64..256).rem_euclid(q as i64) as u64)
                .collect()
        })
        .collect();
    let ys: Vec<Vec<u64>> = (0..terms)
        .map(|_| (0..n).map(|_| rng.gen_range(0..q)).collect())
        .collect();
    let (mut xf, mut yf) = (vec![ZERO; terms * m], vec![ZERO; terms * m]);
    for t in 0..terms {
        f.forward_mod(&xs[t], q, &mut xf[t * m..(t + 1) * m], &mut s);
        f.forward_mod(&ys[t], q, &mut yf[t * m..(t + 1) * m], &mut s);
    }
    let [ya, yb]: [CompactTransforms; 2] =
        CompactTransforms::quantize(&[&yf, &yf]).try_into().unwrap();
    assert!(
        ya.scale.log2().fract() == 0.0 && ya.scale <= 4.0,
        "{}",
        ya.scale
    );
    let (mut oa, mut ob) = (vec![ZERO; m], vec![ZERO; m]);
    mul_acc2_compact(&mut oa, &mut ob, &xf, &ya, &yb, false);
    let (mut pa, mut pb) = (vec![ZERO; m], vec![ZERO; m]);
    portable::mul_acc2_compact(&mut pa, &mut pb, &xf, &ya.parts, &yb.parts, ya.scale, false);
    for (x, y) in oa.iter().zip(&pa).chain(ob.iter().zip(&pb)) {
        assert!((x - y).norm() <= 1e-9 * x.norm().max(1.0), "{x} vs {y}");
    }
    // Coefficient errors against the oracle, centered mod q.
    let mut got = vec![0u64; n];
    f.inverse_mod(&mut oa, q, &mut got, &mut s);
    let mut want = vec![0u64; n];
    for t in 0..terms {
        for (w, p) in want.iter_mut().zip(negacyclic_oracle(&xs[t], &ys[t], q)) {
            *w = (*w + p) % q;
        }
    }
    let md = crate::math::Modulus::new(q);
    let errs: Vec<i64> = got
        .iter()
        .zip(&want)
        .map(|(&g, &w)| md.center(md.sub(g, w)))
        .collect();
    let rms = (errs.iter().map(|&e| (e * e) as f64).sum::<f64>() / n as f64).sqrt();
    let max = errs.iter().map(|e| e.abs()).max().unwrap();
    // Key error per coefficient about scale / √12 / √(N/2) (0.025 at scale 2), times
    // the digits (RMS 148, 3 N terms): about 0.025 · 148 · √3072 ≈ 200 (206 measured).
    // A wrong scale or layout gives errors of order q.
    let formula = ya.scale / 12f64.sqrt() / ((n / 2) as f64).sqrt() * 148.0 * 3072f64.sqrt();
    assert!(
        (0.7 * formula..1.4 * formula).contains(&rms) && max < 10_000,
        "rms {rms} against {formula}, max {max}"
    );
}

/// The portable code computes what the dispatched (AVX-512 here) code does.
#[test]
fn portable_code_agrees() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    let (n, q) = (64usize, 268369921u64);
    let f = NegacyclicFft::new(n).unwrap();
    let mut s = f.scratch();
    let m = n / 2;
    let a: Vec<u64> = (0..n).map(|_| rng.gen_range(0..q)).collect();
    let mut fast = vec![ZERO; m];
    f.forward_mod(&a, q, &mut fast, &mut s);
    let mut slow = vec![ZERO; m];
    portable::twist_digits(&a, q, 62, 1, 0, &f.twist, &mut slow);
    f.fft.forward(&mut slow);
    let close = |x: &[C64], y: &[C64]| {
        for (x, y) in x.iter().zip(y) {
            assert!((x - y).norm() <= 1e-6 * x.norm().max(1.0), "{x} vs {y}");
        }
    };
    close(&fast, &slow);
    let mut c = || C64::new(rng.gen_range(-1e6..1e6), rng.gen_range(-1e6..1e6));
    let keys: Vec<C64> = (0..2 * m).map(|_| c()).collect();
    let xs: Vec<C64> = (0..2 * m).map(|_| c()).collect();
    let (mut fa, mut fb): (Vec<C64>, Vec<C64>) =
        ((0..m).map(|_| c()).collect(), (0..m).map(|_| c()).collect());
    let (mut sa, mut sb) = (fa.clone(), fb.clone());
    mul_acc2(&mut fa, &mut fb, &xs, &keys, &keys, true);
    portable::mul_acc2(&mut sa, &mut sb, &xs, &keys, &keys, true);
    close(&fa, &sa);
    close(&fb, &sb);
    let mut fast_out = a.clone();
    f.inverse_mod_add(&mut fast.clone(), q, &mut fast_out, &mut s);
    let mut slow_out = a.clone();
    f.fft.inverse(&mut fast);
    portable::untwist::<true>(&fast, &f.untwist, q, &mut slow_out);
    assert_eq!(fast_out, slow_out);
    // a + a, since inverse(forward(a)) = a.
    let doubled: Vec<u64> = a.iter().map(|&x| 2 * x % q).collect();
    assert_eq!(fast_out, doubled);
    // The digit transforms: those of the gadget digits, and the same on both paths.
    let g = crate::rlwe::gsw::Gadget::new(q, 9).unwrap();
    let d = g.digits();
    let mut digs = vec![0u64; d * n];
    g.decompose(&a, &mut digs);
    let mut want = vec![ZERO; d * m];
    for (x, o) in digs.chunks_exact(n).zip(want.chunks_exact_mut(m)) {
        f.forward_mod(x, q, o, &mut s);
    }
    // With the lowest `skip` digits left out: the other blocks, unchanged.
    for skip in 0..d {
        let mut got = vec![ZERO; (d - skip) * m];
        f.forward_digits(&a, q, 9, d, skip, &mut got, &mut s);
        close(&got, &want[skip * m..]);
        let mut slow = vec![ZERO; (d - skip) * m];
        portable::twist_digits(&a, q, 9, d, skip, &f.twist, &mut slow);
        for row in slow.chunks_exact_mut(m) {
            f.fft.forward(row);
        }
        close(&got, &slow);
    }
}

/// The Fourier automorphism is the transform of the coefficient automorphism.
#[test]
fn automorphisms_permute_the_points() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    let (n, q) = (256usize, 134215681u64);
    let f = NegacyclicFft::new(n).unwrap();
    let mut s = f.scratch();
    let a: Vec<u64> = (0..n).map(|_| rng.gen_range(0..q)).collect();
    let mut x = vec![ZERO; n / 2];
    f.forward_mod(&a, q, &mut x, &mut s);
    for t in [1, 3, 5, 25, 2 * n - 1, n + 1] {
        let mut y = vec![ZERO; n / 2];
        f.automorphism(t, [&x], [&mut y]);
        let mut got = vec![0u64; n];
        f.inverse_mod(&mut y, q, &mut got, &mut s);
        let mut want = vec![0u64; n];
        crate::ring::automorphism::automorphism_coeff(&a, &mut want, t, q);
        assert_eq!(got, want, "t = {t}");
    }
}

#[test]
fn bad_degrees_are_refused() {
    assert!(NegacyclicFft::new(8).is_err());
    assert!(NegacyclicFft::new(1000).is_err());
}

/// Every SIMD path of the FHEW kernels this CPU runs against the portable code: the
/// digit transforms and products to within rounding (the SIMD code fuses multiplies
/// and adds), the rounded coefficients word for word, and the AVX2 and AVX-512 paths
/// word for word with each other (they do the same operations lane for lane).
#[test]
fn every_isa_agrees_with_the_portable_code() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let (n, q) = (256usize, 134215681u64);
    let f = NegacyclicFft::new(n).unwrap();
    let m = n / 2;
    let isas: Vec<Isa> = Isa::ALL.into_iter().filter(|i| i.available()).collect();
    let a: Vec<u64> = (0..n).map(|_| rng.gen_range(0..q)).collect();
    let close = |x: &[C64], y: &[C64], what: &str| {
        for (x, y) in x.iter().zip(y) {
            assert!(
                (x - y).norm() <= 1e-12 * x.norm().max(1.0),
                "{what}: {x} vs {y}"
            );
        }
    };
    let mut c = || C64::new(rng.gen_range(-1e6..1e6), rng.gen_range(-1e6..1e6));
    let (xs, ya, yb): (Vec<C64>, Vec<C64>, Vec<C64>) = (
        (0..3 * m).map(|_| c()).collect(),
        (0..3 * m).map(|_| c()).collect(),
        (0..3 * m).map(|_| c()).collect(),
    );
    let init: Vec<C64> = (0..m).map(|_| c()).collect();
    let [ca, cb]: [CompactTransforms; 2] =
        CompactTransforms::quantize(&[&ya, &yb]).try_into().unwrap();
    let mut results: Vec<(Isa, Vec<Vec<C64>>)> = vec![];
    for &isa in &isas {
        let mut got = vec![];
        // Digits (base 2^9, 3 digits, each skip) and the single centered residue.
        for (lb, d, skip) in [(9, 3, 0), (9, 3, 1), (9, 3, 2), (62, 1, 0)] {
            let mut want = vec![ZERO; (d - skip) * m];
            portable::twist_digits(&a, q, lb, d, skip, &f.twist, &mut want);
            let mut out = vec![ZERO; (d - skip) * m];
            twist_digits(isa, &a, q, lb, d, skip, &f.twist, &mut out);
            close(&out, &want, &format!("{isa} twist_digits {lb} {d} {skip}"));
            got.push(out);
        }
        // Untwisting and rounding of a transform: the same residues, with and
        // without accumulation.
        let mut x = vec![ZERO; m];
        f.forward_mod(&a, q, &mut x, &mut f.scratch());
        f.fft.inverse(&mut x);
        for add in [false, true] {
            let (mut want, mut out) = (a.clone(), a.clone());
            if add {
                portable::untwist::<true>(&x, &f.untwist, q, &mut want);
                untwist::<true>(isa, &x, &f.untwist, q, &mut out);
            } else {
                portable::untwist::<false>(&x, &f.untwist, q, &mut want);
                untwist::<false>(isa, &x, &f.untwist, q, &mut out);
            }
            assert_eq!(out, want, "{isa} untwist, add {add}");
            let expect: Vec<u64> = a.iter().map(|&v| if add { 2 * v % q } else { v }).collect();
            assert_eq!(out, expect, "{isa} untwist, add {add}");
        }
        // Products, exact and compact, from zero and accumulated.
        for accumulate in [false, true] {
            let (mut wa, mut wb) = (init.clone(), init.clone());
            portable::mul_acc2(&mut wa, &mut wb, &xs, &ya, &yb, accumulate);
            let (mut oa, mut ob) = (init.clone(), init.clone());
            mul_acc2_on(isa, &mut oa, &mut ob, &xs, &ya, &yb, accumulate);
            close(&oa, &wa, &format!("{isa} mul_acc2"));
            close(&ob, &wb, &format!("{isa} mul_acc2"));
            let (mut wca, mut wcb) = (init.clone(), init.clone());
            let (pa, pb) = (&ca.parts, &cb.parts);
            portable::mul_acc2_compact(&mut wca, &mut wcb, &xs, pa, pb, ca.scale, accumulate);
            let (mut oca, mut ocb) = (init.clone(), init.clone());
            mul_acc2_compact_on(isa, &mut oca, &mut ocb, &xs, &ca, &cb, accumulate);
            close(&oca, &wca, &format!("{isa} mul_acc2_compact"));
            close(&ocb, &wcb, &format!("{isa} mul_acc2_compact"));
            got.extend([oa, ob, oca, ocb]);
        }
        results.push((isa, got));
    }
    // AVX2 and AVX-512 (with or without IFMA) word for word.
    let simd: Vec<_> = results.iter().filter(|(i, _)| *i >= Isa::Avx2).collect();
    for w in simd.windows(2) {
        let ((i, x), (j, y)) = (w[0], w[1]);
        for (k, (x, y)) in x.iter().zip(y).enumerate() {
            let same = x.len() == y.len()
                && x.iter().zip(y).all(|(x, y)| {
                    x.re.to_bits() == y.re.to_bits() && x.im.to_bits() == y.im.to_bits()
                });
            assert!(same, "{i} vs {j}: output {k}");
        }
    }
}
