//! Ring-layer tests: NTT-form operations agree with coefficient-form oracles.

use super::automorphism::{galois_element_for_rotation, galois_inverse};
use super::*;
use crate::math::{Modulus, PrimeGenerator};
use num_bigint::BigInt;
use num_traits::ToPrimitive;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

fn ring(n: usize, q_bits: &[u32], p_bits: &[u32]) -> Arc<RingContext> {
    let mut g = PrimeGenerator::new(n).unwrap();
    let q: Vec<u64> = q_bits.iter().map(|&b| g.next_prime(b).unwrap()).collect();
    let p: Vec<u64> = p_bits.iter().map(|&b| g.next_prime(b).unwrap()).collect();
    RingContext::new(n, &q, &p).unwrap()
}

fn random_poly(ctx: &RingContext, q_limbs: usize, rng: &mut ChaCha8Rng) -> Poly {
    let mut p = ctx.zero(q_limbs, 0, Form::Coeff);
    for (i, limb) in p.limbs_mut().enumerate() {
        let q = ctx.modulus(i, q_limbs).value();
        limb.iter_mut().for_each(|x| *x = rng.next_u64() % q);
    }
    p
}

#[test]
fn automorphism_commutes_with_ntt() {
    let ctx = ring(64, &[50, 40], &[]);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let a = random_poly(&ctx, 2, &mut rng);
    for k in [1usize, 3, 5, 25, 127, galois_element_for_rotation(-3, 64)] {
        let mut coeff_out = ctx.zero(2, 0, Form::Coeff);
        a.automorphism(k, &ctx, &mut coeff_out);
        let mut a_ntt = a.clone();
        a_ntt.ntt(&ctx);
        let mut ntt_out = ctx.zero(2, 0, Form::Ntt);
        a_ntt.automorphism(k, &ctx, &mut ntt_out);
        ntt_out.intt(&ctx);
        assert_eq!(ntt_out, coeff_out, "k = {k}");
        // Applying the inverse automorphism restores the input.
        let mut back = ctx.zero(2, 0, Form::Coeff);
        coeff_out.automorphism(galois_inverse(k, 64), &ctx, &mut back);
        assert_eq!(back, a);
    }
}

#[test]
fn product_in_ntt_form_is_negacyclic_and_monomials_shift() {
    let ctx = ring(32, &[40], &[]);
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let a = random_poly(&ctx, 1, &mut rng);
    for k in [0usize, 1, 5, 31, 32, 33, 63] {
        let mut shifted = a.clone();
        shifted.mul_monomial_assign(k, &ctx);
        // Oracle: multiply by the monomial through the NTT.
        let mut mono = vec![0i64; 32];
        if k < 32 {
            mono[k] = 1;
        } else {
            mono[k - 32] = -1;
        }
        let mut m = ctx.from_signed(&mono, 1, 0);
        m.ntt(&ctx);
        let mut b = a.clone();
        b.ntt(&ctx);
        b.mul_assign(&m, &ctx);
        b.intt(&ctx);
        assert_eq!(shifted, b, "X^{k}");
    }
}

#[test]
fn rescale_is_rounded_division_in_both_forms() {
    // The dropped prime larger than some of the others, smaller than all, and between:
    // the three ways of lifting its centered residues (q_l <= q_i, q_i < q_l < 2 q_i, and
    // q_l >= 2 q_i), each met at least once.
    let mut met = [false; 3];
    for bits in [
        [60, 50, 50],
        [40, 45, 60],
        [60, 40, 50],
        [40, 60, 45],
        [50, 50, 50],
        [49, 50, 50],
        [39, 40, 40],
    ] {
        let ctx = ring(16, &bits, &[]);
        let q: Vec<u64> = ctx.q().moduli().iter().map(|m| m.value()).collect();
        for &qi in &q[..2] {
            met[if q[2] <= qi {
                0
            } else if q[2] - qi < qi {
                1
            } else {
                2
            }] = true;
        }
        rescale_matches_the_oracle(&bits);
    }
    assert_eq!(
        met, [true; 3],
        "every way of lifting the dropped limb is tested"
    );
}

fn rescale_matches_the_oracle(bits: &[u32; 3]) {
    let ctx = ring(16, bits, &[]);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut a = random_poly(&ctx, 3, &mut rng);
    // The dropped limb's centering edges: (q - 1)/2 stays, (q + 1)/2 goes negative.
    let q_last = ctx.q().moduli()[2].value();
    a.limb_mut(2)[..4].copy_from_slice(&[q_last / 2, q_last / 2 + 1, 0, q_last - 1]);
    let q: Vec<BigInt> = ctx
        .q()
        .moduli()
        .iter()
        .map(|m| BigInt::from(m.value()))
        .collect();
    let big_q = &q[0] * &q[1] * &q[2];
    // CRT-compose each coefficient, centered, divide by q_2 with rounding.
    let want: Vec<BigInt> = (0..16)
        .map(|k| {
            let mut x = BigInt::from(0);
            for (i, qi) in q.iter().enumerate() {
                let qi_hat = &big_q / qi;
                let inv = ctx.q().moduli()[i]
                    .inv((&qi_hat % qi).to_u64().unwrap())
                    .unwrap();
                x += BigInt::from(a.limb(i)[k]) * inv * qi_hat;
            }
            let x = x % &big_q;
            let x = if &x * 2 > big_q { x - &big_q } else { x };
            let r = ((&x % &q[2]) + &q[2]) % &q[2];
            let r = if &r * 2 > q[2] { r - &q[2] } else { r };
            (x - r) / &q[2]
        })
        .collect();
    for form in [Form::Coeff, Form::Ntt] {
        let mut b = a.clone();
        if form == Form::Ntt {
            b.ntt(&ctx);
        }
        b.divide_round_by_last_q(&ctx);
        b.intt(&ctx);
        assert_eq!(b.q_limbs(), 2);
        for (i, qi) in q.iter().take(2).enumerate() {
            for (k, wk) in want.iter().enumerate() {
                let w = ((wk % qi) + qi) % qi;
                assert_eq!(b.limb(i)[k], w.to_u64().unwrap(), "{form:?} limb {i}");
            }
        }
    }
}

#[test]
fn extending_to_p_then_mod_down_multiplies_by_p_inverse_exactly() {
    // ModDown(ModUp(a) * P) = a: extension is exact, and dropping P again is lossless.
    let ctx = ring(32, &[50, 40, 40], &[60, 55]);
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let a = random_poly(&ctx, 2, &mut rng);
    let ext = a.extend_to_p(&ctx);
    assert_eq!(ext.p_limbs(), 2);
    assert_eq!(ext.truncated(2), a);
    let mut scaled = ext.clone();
    let p_res: Vec<u64> = (0..4)
        .map(|i| ctx.p().product_mod(ctx.modulus(i, 2)))
        .collect();
    scaled.mul_scalar_assign(&p_res, &ctx);
    assert_eq!(scaled.mod_down_by_p(&ctx), a);
    // NTT form agrees with coefficient form.
    let mut a_ntt = a.clone();
    a_ntt.ntt(&ctx);
    let mut e_ntt = a_ntt.extend_to_p(&ctx);
    e_ntt.intt(&ctx);
    assert_eq!(e_ntt, ext);
}

/// ModDown by the encryption prefix `P'` of `P` (public-key encryption) is the rounded
/// division by `P'` of the centered CRT value, against a big-integer oracle: `P'` is
/// `p_0` alone when `p_0 >= 2^40`, two primes when `p_0` is smaller, all of `P` when even
/// that does not reach `2^40`; the noise `e` goes in as in the full ModDown.
#[test]
fn mod_down_by_the_encryption_prefix_matches_the_oracle() {
    for (p_bits, want_len) in [
        (&[55u32, 50][..], 1usize),
        (&[30, 30, 30][..], 2),
        (&[20, 20][..], 2),
    ] {
        let ctx = ring(16, &[50, 45, 40], p_bits);
        assert_eq!(ctx.encryption_p_len(), want_len, "{p_bits:?}");
        let (ql, kp) = (3, want_len);
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut x = ctx.zero(ql, kp, Form::Coeff);
        for (i, limb) in x.limbs_mut().enumerate() {
            let m = ctx.modulus(i, ql).value();
            limb.iter_mut().for_each(|v| *v = rng.next_u64() % m);
        }
        let e: Vec<i64> = (0..16).map(|_| (rng.next_u64() % 41) as i64 - 20).collect();
        let moduli: Vec<u64> = (0..ql + kp).map(|i| ctx.modulus(i, ql).value()).collect();
        let big: Vec<BigInt> = moduli.iter().map(|&m| BigInt::from(m)).collect();
        let all: BigInt = big.iter().product();
        let p_prime: BigInt = big[ql..].iter().product();
        let want: Vec<BigInt> = (0..16)
            .map(|k| {
                let mut v = BigInt::from(0);
                for (i, m) in big.iter().enumerate() {
                    let hat = &all / m;
                    let inv = Modulus::new(moduli[i])
                        .inv((&hat % m).to_u64().unwrap())
                        .unwrap();
                    v += BigInt::from(x.limb(i)[k]) * inv * hat;
                }
                let v = (v + e[k]) % &all;
                let v = if &v * 2 > all { v - &all } else { v };
                // Rounded division of the centered value: floor((2v + P') / 2P').
                let num = v * 2 + &p_prime;
                let den = &p_prime * 2;
                let q = &num / &den;
                if (&num % &den) < BigInt::from(0) {
                    q - 1
                } else {
                    q
                }
            })
            .collect();
        for form in [Form::Coeff, Form::Ntt] {
            let mut a = x.clone();
            if form == Form::Ntt {
                a.ntt(&ctx);
            }
            let mut got = a.mod_down_by_p_adding(Some(&e), &ctx);
            got.intt(&ctx);
            for (i, m) in big.iter().take(ql).enumerate() {
                for (k, w) in want.iter().enumerate() {
                    let w = ((w % m) + m) % m;
                    assert_eq!(
                        got.limb(i)[k],
                        w.to_u64().unwrap(),
                        "{p_bits:?} {form:?} limb {i}"
                    );
                }
            }
        }
    }
}

#[test]
fn mod_down_adding_small_noise_equals_adding_it_first() {
    // Public-key encryption adds its noise during ModDown, in coefficient form: the same
    // words as adding NTT(e) to every limb first, in both forms.
    let ctx = ring(64, &[50, 40, 40], &[60, 55]);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut x = ctx.zero(3, 2, Form::Coeff);
    for (i, limb) in x.limbs_mut().enumerate() {
        let q = ctx.modulus(i, 3).value();
        limb.iter_mut().for_each(|v| *v = rng.next_u64() % q);
    }
    let e: Vec<i64> = (0..64).map(|_| (rng.next_u64() % 41) as i64 - 20).collect();
    for form in [Form::Coeff, Form::Ntt] {
        let mut a = x.clone();
        let mut ep = ctx.from_signed(&e, 3, 2);
        if form == Form::Ntt {
            a.ntt(&ctx);
            ep.ntt(&ctx);
        }
        let mut first = a.clone();
        first.add_assign(&ep, &ctx);
        assert_eq!(
            a.mod_down_by_p_adding(Some(&e), &ctx),
            first.mod_down_by_p(&ctx),
            "{form:?}"
        );
    }
    // from_signed: the fast path for small coefficients and the general one agree.
    let big: Vec<i64> = (0..64).map(|i| (i as i64 - 32) << 55).collect();
    let p = ctx.from_signed(&big, 3, 2);
    for (i, limb) in p.limbs().enumerate() {
        let m = ctx.modulus(i, 3);
        for (&r, &c) in limb.iter().zip(&big) {
            assert_eq!(r, m.reduce_i64(c));
        }
    }
    let small = ctx.from_signed(&e, 3, 2);
    for (i, limb) in small.limbs().enumerate() {
        let m = ctx.modulus(i, 3);
        for (&r, &c) in limb.iter().zip(&e) {
            assert_eq!(r, m.reduce_i64(c));
        }
    }
}

/// `mod_down_rescale` gives the words of ModDown, `k` times, plus the addend, then the
/// rescale (and `add_coeff_product_rescale` those of the NTT, `k` times, the addend,
/// the rescale), on chains whose dropped prime is smaller than, like, and far larger than the
/// others (the three cases of the rescale's lift).
#[test]
fn fused_rescales_are_word_for_word_the_unfused_steps() {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    for (q_bits, p_bits) in [
        (&[40u32, 40, 40, 60, 60][..], &[61u32, 61][..]),
        (&[50, 50, 50][..], &[55][..]),
        (&[60, 45, 40][..], &[61, 61, 61][..]),
    ] {
        let ctx = ring(256, q_bits, p_bits);
        let (kp, top) = (p_bits.len(), q_bits.len());
        for ql in 2..=top {
            for k in [1i64, 2, -3, 0] {
                let mut x = ctx.zero(ql, kp, Form::Ntt);
                for (i, limb) in x.limbs_mut().enumerate() {
                    let q = ctx.modulus(i, ql).value();
                    limb.iter_mut().for_each(|v| *v = rng.next_u64() % q);
                }
                let mut add = random_poly(&ctx, ql, &mut rng);
                add.ntt(&ctx);
                let fused = x.clone().mod_down_rescale(k, &add, &ctx);
                let mut want = x.mod_down_by_p(&ctx);
                let s = ctx.integer_residues(k, ql);
                want.mul_scalar_assign(&s, &ctx);
                want.add_assign(&add, &ctx);
                want.divide_round_by_last_q(&ctx);
                assert_eq!(fused.q_limbs(), ql - 1);
                assert!(fused == want, "q {q_bits:?}, P {p_bits:?}, ql {ql}, k {k}");
                // The coefficient-form entry (KLSS and linear key switching's exit).
                let u = random_poly(&ctx, ql, &mut rng);
                let got = add.clone().add_coeff_product_rescale(&u, &s, &ctx);
                let mut want = u;
                want.ntt(&ctx);
                want.mul_scalar_assign(&s, &ctx);
                want.add_assign(&add, &ctx);
                want.divide_round_by_last_q(&ctx);
                assert!(
                    got == want,
                    "coefficient form: q {q_bits:?}, ql {ql}, k {k}"
                );
            }
        }
    }
}

/// The block form of the NTT-form automorphisms (every `n >= 8`, every odd `k`) gives the
/// word table's words, alone and with the fused addition, on every instruction set this
/// CPU runs (AVX-512's lane permutations, AVX2's two-vector blocks).
#[test]
fn ntt_permutation_blocks_match_the_word_table() {
    use super::automorphism::{galois_element_for_conjugation, NttPermutation};
    use crate::math::Isa;
    use rand::{RngCore, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0xb10c);
    for log_n in [3u32, 4, 7, 12] {
        let n = 1usize << log_n;
        let mut ks: Vec<usize> = [1i64, -1, 3, -7, (n / 4) as i64]
            .iter()
            .map(|&r| galois_element_for_rotation(r, n))
            .collect();
        ks.extend([galois_element_for_conjugation(n), 2 * n - 3, 1]);
        for k in ks {
            let perm = NttPermutation::new(n, k);
            assert!(perm.has_blocks(), "n = {n}, k = {k}");
            for q in [(1u64 << 61) - 1, 0xffff_fffb, 97] {
                let a: Vec<u64> = (0..n).map(|_| rng.next_u64() % q).collect();
                let mut b: Vec<u64> = (0..n).map(|_| rng.next_u64() % q).collect();
                b[0] = q - 1;
                let (mut got, mut want) = (vec![0u64; n], vec![0u64; n]);
                perm.apply_words(&a, &mut want);
                for isa in Isa::ALL.into_iter().filter(|i| i.available()) {
                    got.fill(0);
                    perm.apply_on(isa, &a, &mut got);
                    assert_eq!(got, want, "apply: n = {n}, k = {k}, {isa:?}");
                }
                perm.apply(&a, &mut got);
                assert_eq!(got, want, "apply: n = {n}, k = {k}");
                perm.apply_add_words(&a, &b, &mut want, q);
                for isa in Isa::ALL.into_iter().filter(|i| i.available()) {
                    got.fill(0);
                    perm.apply_add_on(isa, &a, &b, &mut got, q);
                    assert_eq!(got, want, "apply_add: n = {n}, k = {k}, q = {q}, {isa:?}");
                }
                perm.apply_add(&a, &b, &mut got, q);
                assert_eq!(got, want, "apply_add: n = {n}, k = {k}, q = {q}");
            }
        }
    }
}

/// The tensor product is the four whole-polynomial passes word for word, with operands
/// above the output's level (read in place) and below it refused, a square (its middle
/// term doubled) included, at `N = 2^13` with the largest 61-bit residues.
#[test]
fn tensor_is_the_four_products_word_for_word() {
    let ctx = ring(1 << 13, &[61, 55, 50, 40], &[]);
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let mut parts: Vec<Poly> = (0..4).map(|_| random_poly(&ctx, 4, &mut rng)).collect();
    for p in parts.iter_mut() {
        p.ntt(&ctx);
        let q = ctx.modulus(0, 4).value();
        p.limb_mut(0)[..8].fill(q - 1);
    }
    for ql in [4, 2] {
        // The four whole-polynomial passes on copies at the level, and the tensor product
        // reading `a`, `b` in place; `b = a` is a square (its middle term doubled).
        let steps = |a: [&Poly; 2], b: [&Poly; 2]| {
            let [a0, a1, b0, b1] = [a[0], a[1], b[0], b[1]].map(|p| p.truncated(ql));
            let mut want = [0, 1, 2].map(|_| ctx.zero(ql, 0, Form::Ntt));
            Poly::mul_into(&a0, &b0, &mut want[0], &ctx);
            Poly::mul_into(&a0, &b1, &mut want[1], &ctx);
            want[1].mul_add_assign(&a1, &b0, &ctx);
            Poly::mul_into(&a1, &b1, &mut want[2], &ctx);
            want
        };
        let tensor = |a: [&Poly; 2], b: [&Poly; 2]| {
            let mut got = [0, 1, 2].map(|_| ctx.zero(ql, 0, Form::Ntt));
            let [g0, g1, g2] = &mut got;
            Poly::tensor_into(a, b, [g0, g1, g2], &ctx);
            got
        };
        let (a, b) = ([&parts[0], &parts[1]], [&parts[2], &parts[3]]);
        for (name, a, b) in [("product", a, b), ("square", a, a)] {
            for (g, w) in tensor(a, b).iter().zip(&steps(a, b)) {
                assert_eq!(g.data(), w.data(), "{name}, output level {}", ql - 1);
            }
        }
    }
    let low = parts[0].truncated(1);
    let outcome = std::panic::catch_unwind(|| {
        let mut out = [0, 1, 2].map(|_| ctx.zero(2, 0, Form::Ntt));
        let [o0, o1, o2] = &mut out;
        Poly::tensor_into(
            [&low, &parts[1]],
            [&parts[2], &parts[3]],
            [o0, o1, o2],
            &ctx,
        );
    });
    assert!(
        outcome.is_err(),
        "an operand below the output's level was accepted"
    );
}

/// `mul_scalar_then_add_assign` gives the words of `mul_scalar_assign` then `add_assign`
/// (with and without the constant, in both forms), reading an addend with more chain
/// limbs at the target's level in place; an addend below that level is refused.
#[test]
fn scalar_then_add_is_the_two_steps_word_for_word() {
    let ctx = ring(1 << 10, &[61, 55, 50, 40], &[]);
    let mut rng = ChaCha8Rng::seed_from_u64(43);
    for form in [Form::Ntt, Form::Coeff] {
        let [mut x, mut w] = [0, 1].map(|_| random_poly(&ctx, 4, &mut rng));
        x.limb_mut(1)[..8].fill(ctx.modulus(1, 4).value() - 1);
        w.limb_mut(1)[..8].fill(ctx.modulus(1, 4).value() - 1);
        x.set_form(form);
        w.set_form(form);
        for ql in [4, 3, 1] {
            let s: Vec<u64> = (0..ql)
                .map(|i| rng.next_u64() % ctx.modulus(i, ql).value())
                .collect();
            for scalars in [Some(&s[..]), None] {
                let mut want = x.truncated(ql);
                if let Some(s) = scalars {
                    want.mul_scalar_assign(s, &ctx);
                }
                want.add_assign(&w.truncated(ql), &ctx);
                let mut got = x.truncated(ql);
                got.mul_scalar_then_add_assign(scalars, &w, &ctx);
                assert!(got == want, "{form:?}, {ql} limbs, {}", scalars.is_some());
            }
        }
    }
    let low = ctx.zero(2, 0, Form::Ntt);
    let outcome = std::panic::catch_unwind(|| {
        let mut x = ctx.zero(3, 0, Form::Ntt);
        x.mul_scalar_then_add_assign(None, &low, &ctx);
    });
    assert!(outcome.is_err(), "an addend below the level was accepted");
}
