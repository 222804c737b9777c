//! The CKKS evaluator's shape: in-place operations give the words of the allocating ones,
//! one evaluator serves many threads with the single-thread results, clones share their
//! keys, and a double-hoisted rotation sum decrypts to the sum of the rotations.

mod common;

use common::*;
use hekate::ckks::{Ciphertext, Scale};
use num_complex::Complex64;
use std::sync::Arc;

fn encrypt(f: &mut Fixture, v: &[Complex64]) -> Ciphertext {
    let pt = f.ctx.encode(v).unwrap();
    f.ctx.encrypt_with(&pt, &f.pk, &mut f.rng).unwrap()
}

/// `op_assign` on a copy of `a` gives exactly `op(a)`.
fn same<F, G>(what: &str, a: &Ciphertext, op: F, op_assign: G)
where
    F: FnOnce(&Ciphertext) -> hekate::Result<Ciphertext>,
    G: FnOnce(&mut Ciphertext) -> hekate::Result<()>,
{
    let want = op(a).unwrap();
    let mut got = a.clone();
    op_assign(&mut got).unwrap();
    assert!(got == want, "{what}: in place differs from allocating");
}

#[test]
fn in_place_operations_equal_the_allocating_ones_word_for_word() {
    let mut f = fixture(12, 11, &[1, -3]);
    let (x, y) = (random_values(2048, 1), random_values(2048, 2));
    let (a, b) = (encrypt(&mut f, &x), encrypt(&mut f, &y));
    let e = f.eval.clone();
    // Operands at different levels and scales (an integer scale ratio: b is 3x a's scale).
    let low = e.drop_level(&b, 1).unwrap();
    let big: Scale = f.ctx.default_scale().mul_integer(3);
    let pt_big = f.ctx.encode_at(&y, 2048, f.ctx.max_level(), &big).unwrap();
    let tripled = f.ctx.encrypt_with(&pt_big, &f.pk, &mut f.rng).unwrap();
    let pt = f.ctx.encode(&y).unwrap();
    let pt_low = f.ctx.encode_at(&y, 2048, low.level(), low.scale()).unwrap();
    let c = Complex64::new(0.75, -0.5);
    for (lhs, rhs) in [(&a, &b), (&a, &low), (&low, &a)] {
        same("add", lhs, |p| e.add(p, rhs), |p| e.add_assign(p, rhs));
        same("sub", lhs, |p| e.sub(p, rhs), |p| e.sub_assign(p, rhs));
    }
    same(
        "add (scales)",
        &a,
        |p| e.add(p, &tripled),
        |p| e.add_assign(p, &tripled),
    );
    same(
        "add (scales)",
        &tripled,
        |p| e.add(p, &a),
        |p| e.add_assign(p, &a),
    );
    same(
        "sub (scales)",
        &low,
        |p| e.sub(p, &tripled),
        |p| e.sub_assign(p, &tripled),
    );
    let deg2 = e.mul_no_relin(&a, &b).unwrap();
    same(
        "add (degrees)",
        &a,
        |p| e.add(p, &deg2),
        |p| e.add_assign(p, &deg2),
    );
    same(
        "sub (degrees)",
        &a,
        |p| e.sub(p, &deg2),
        |p| e.sub_assign(p, &deg2),
    );
    same("mul", &a, |p| e.mul(p, &b), |p| e.mul_assign(p, &b));
    same(
        "mul (levels)",
        &a,
        |p| e.mul(p, &low),
        |p| e.mul_assign(p, &low),
    );
    same("square", &a, |p| e.square(p), |p| e.square_assign(p));
    same(
        "relinearize",
        &deg2,
        |p| e.relinearize(p),
        |p| e.relinearize_assign(p),
    );
    same("rescale", &a, |p| e.rescale(p), |p| e.rescale_assign(p));
    let target = f.ctx.default_scale().clone();
    same(
        "rescale_to",
        &a,
        |p| e.rescale_to(p, &target),
        |p| e.rescale_to_assign(p, &target),
    );
    same(
        "drop_level",
        &a,
        |p| e.drop_level(p, 2),
        |p| e.drop_level_assign(p, 2),
    );
    for (ct, pt) in [(&a, &pt), (&a, &pt_low), (&low, &pt)] {
        same(
            "add_plain",
            ct,
            |p| e.add_plain(p, pt),
            |p| e.add_plain_assign(p, pt),
        );
        same(
            "sub_plain",
            ct,
            |p| e.sub_plain(p, pt),
            |p| e.sub_plain_assign(p, pt),
        );
        same(
            "mul_plain",
            ct,
            |p| e.mul_plain(p, pt),
            |p| e.mul_plain_assign(p, pt),
        );
    }
    for k in [c, Complex64::new(-2.5, 0.0)] {
        same(
            "add_const",
            &a,
            |p| e.add_const(p, k),
            |p| e.add_const_assign(p, k),
        );
        same(
            "mul_const",
            &a,
            |p| e.mul_const(p, k),
            |p| e.mul_const_assign(p, k),
        );
    }
    same(
        "mul_integer",
        &a,
        |p| e.mul_integer(p, -7),
        |p| e.mul_integer_assign(p, -7),
    );
    same("mul_by_i", &a, |p| e.mul_by_i(p), |p| e.mul_by_i_assign(p));
    same(
        "mul_monomial",
        &a,
        |p| e.mul_monomial(p, 5),
        |p| e.mul_monomial_assign(p, 5),
    );
    same("neg", &a, |p| e.neg(p), |p| e.neg_assign(p));
    same(
        "rotate",
        &a,
        |p| e.rotate(p, -3),
        |p| e.rotate_assign(p, -3),
    );
    same(
        "conjugate",
        &a,
        |p| e.conjugate(p),
        |p| e.conjugate_assign(p),
    );
    // A refused in-place operation leaves its operand as it was.
    let mut bottom = e.drop_level(&a, a.level()).unwrap();
    let before = bottom.clone();
    assert!(e.rescale_assign(&mut bottom).is_err());
    assert!(e.rotate_assign(&mut bottom, 2).is_err());
    assert!(bottom == before);
}

#[test]
fn one_evaluator_serves_many_threads() {
    let mut f = fixture(12, 12, &[1, 2]);
    let inputs: Vec<(Ciphertext, Ciphertext)> = (0..4)
        .map(|i| {
            let (x, y) = (random_values(2048, 10 + i), random_values(2048, 20 + i));
            (encrypt(&mut f, &x), encrypt(&mut f, &y))
        })
        .collect();
    let eval = &f.eval;
    let work = |(a, b): &(Ciphertext, Ciphertext)| -> Ciphertext {
        let p = eval.rescale(&eval.mul(a, b).unwrap()).unwrap();
        let r = eval.rotate_hoisted(&p, &[1, 2]).unwrap();
        eval.add(&r[0], &eval.conjugate(&r[1]).unwrap()).unwrap()
    };
    let single: Vec<Ciphertext> = inputs.iter().map(work).collect();
    let threaded: Vec<Ciphertext> = std::thread::scope(|s| {
        let handles: Vec<_> = inputs.iter().map(|io| s.spawn(move || work(io))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        single == threaded,
        "threaded results differ from single-thread ones"
    );
    // Clones share the keys instead of copying them.
    let clone = f.eval.clone();
    assert!(Arc::ptr_eq(clone.keys(), f.eval.keys()));
}

#[test]
fn rotation_sum_is_the_sum_of_the_rotations() {
    let mut f = fixture(12, 13, &[1, 2, 5]);
    let xs: Vec<Vec<Complex64>> = (0..4).map(|i| random_values(2048, 30 + i)).collect();
    let cts: Vec<Ciphertext> = xs.iter().map(|x| encrypt(&mut f, x)).collect();
    let steps = [1i64, 0, 5, 2];
    let terms: Vec<(&Ciphertext, i64)> = cts.iter().zip(steps).collect();
    let sum = f.eval.rotate_sum(&terms).unwrap();
    let got = f.ctx.decrypt_decode(&sum, &f.sk).unwrap();
    let want: Vec<Complex64> = (0..2048)
        .map(|i| {
            xs.iter()
                .zip(steps)
                .map(|(x, s)| x[(i + s as usize) % 2048])
                .sum()
        })
        .collect();
    let (_, max) = error_stats(&got, &want);
    assert!(
        bits(max) > 20.0,
        "rotation sum precision {:.1} bits",
        bits(max)
    );
    // One term is exactly the rotation.
    let one = f.eval.rotate_sum(&[(&cts[0], 5)]).unwrap();
    assert!(one == f.eval.rotate(&cts[0], 5).unwrap());
}

/// `mul_const_scaled_add_assign` (the fused leaf step of polynomial evaluation) gives the
/// words of its three steps (`ct` brought to `acc`'s level, `mul_const_scaled`, `add`):
/// fused (a real constant, `acc` below `ct`, the exact product scale) and in every
/// fallback (a complex constant, `acc` above `ct`, a scale three times the product's).
#[test]
fn fused_constant_product_addition_equals_its_steps_word_for_word() {
    let mut f = fixture(12, 17, &[1]);
    let (x, y) = (random_values(2048, 3), random_values(2048, 4));
    let (a, b) = (encrypt(&mut f, &x), encrypt(&mut f, &y));
    let e = f.eval.clone();
    let steps = |acc: &Ciphertext, ct: &Ciphertext, c: Complex64, s: &Scale| {
        let level = acc.level().min(ct.level());
        let mut t = e.drop_level(ct, ct.level() - level).unwrap();
        e.mul_const_scaled_assign(&mut t, c, s).unwrap();
        e.add(acc, &t).unwrap()
    };
    let s = f.ctx.constant_scale(f.ctx.max_level() - 1);
    // acc one level below b, at exactly b's scale times s.
    let mut acc = e.drop_level(&a, 1).unwrap();
    e.mul_const_scaled_assign(&mut acc, Complex64::new(0.5, 0.0), &s)
        .unwrap();
    let big = s.mul_integer(3);
    let cases: [(&str, &Ciphertext, Complex64, &Scale); 4] = [
        ("fused", &b, Complex64::new(-0.625, 0.0), &s),
        ("complex constant", &b, Complex64::new(0.25, 0.5), &s),
        (
            "acc above ct",
            &e.drop_level(&b, 2).unwrap(),
            Complex64::new(0.25, 0.0),
            &s,
        ),
        ("another scale", &b, Complex64::new(0.25, 0.0), &big),
    ];
    for (what, ct, c, scale) in cases {
        let want = steps(&acc, ct, c, scale);
        let mut got = acc.clone();
        e.mul_const_scaled_add_assign(&mut got, ct, c, scale)
            .unwrap();
        assert!(got == want, "{what}: differs from its steps");
    }
    // And it decrypts to acc + c b.
    let mut got = acc.clone();
    let c = Complex64::new(-0.625, 0.0);
    e.mul_const_scaled_add_assign(&mut got, &b, c, &s).unwrap();
    let out = f.ctx.decrypt_decode(&got, &f.sk).unwrap();
    let err = out
        .iter()
        .zip(x.iter().zip(&y))
        .map(|(o, (u, v))| (o - (u * 0.5 + v * c)).norm())
        .fold(0.0, f64::max);
    assert!(err < 1e-6, "{err}");
}
