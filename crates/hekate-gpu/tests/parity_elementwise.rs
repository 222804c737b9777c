//! The device's coefficient-wise kernels and automorphisms against `Poly`'s, word for word,
//! over chain and special-prime limbs, with the edge words `0, 1, q - 1` planted.

mod common;

use hekate::ring::automorphism::{galois_element_for_conjugation, galois_element_for_rotation};
use hekate::ring::{Form, Poly};
use hekate_gpu::{DevicePoly, Gpu, Select};

const N: usize = 1 << 10;

#[test]
fn arithmetic_matches_the_cpu() {
    let Some(gpu) = common::gpu() else { return };
    let (ring, dctx) = common::ring(&gpu, N, &[61, 50, 40, 36], &[60, 55]);
    for (ql, pl) in [(4, 2), (3, 0), (1, 1)] {
        let a = common::random_poly(&ring, ql, pl, Form::Ntt, 1, 10 + ql as u64);
        let b = common::random_poly(&ring, ql, pl, Form::Ntt, 1, 20 + ql as u64);
        let c = common::random_poly(&ring, ql, pl, Form::Ntt, 1, 30 + ql as u64);
        let (da, db, dc) = (
            DevicePoly::upload(&dctx, &a).unwrap(),
            DevicePoly::upload(&dctx, &b).unwrap(),
            DevicePoly::upload(&dctx, &c).unwrap(),
        );
        let run = |name: &str, cpu: &dyn Fn(&mut Poly), dev: &dyn Fn(&mut DevicePoly)| {
            let mut x = a.clone();
            cpu(&mut x);
            let mut d = DevicePoly::upload(&dctx, &a).unwrap();
            dev(&mut d);
            assert_eq!(
                d.download().unwrap().data(),
                x.data(),
                "{name}, {ql} + {pl} limbs"
            );
        };
        run("add", &|x| x.add_assign(&b, &ring), &|d| {
            d.add_assign(&db).unwrap()
        });
        run("sub", &|x| x.sub_assign(&b, &ring), &|d| {
            d.sub_assign(&db).unwrap()
        });
        run("neg", &|x| x.neg_assign(&ring), &|d| {
            d.neg_assign().unwrap()
        });
        run("mul", &|x| x.mul_assign(&b, &ring), &|d| {
            d.mul_assign(&db).unwrap()
        });
        run("mul_add", &|x| x.mul_add_assign(&b, &c, &ring), &|d| {
            d.mul_add_assign(&db, &dc).unwrap()
        });
        let scalars: Vec<u64> = (0..ql + pl)
            .map(|i| ring.modulus(i, ql).value() - 1 - 12345 * i as u64)
            .collect();
        run(
            "mul_scalar",
            &|x| x.mul_scalar_assign(&scalars, &ring),
            &|d| d.mul_scalar_assign(&scalars).unwrap(),
        );
        // Self-aliasing: a + a.
        run(
            "add self",
            &|x| {
                let y = x.clone();
                x.add_assign(&y, &ring)
            },
            &|d| d.add_assign(&da).unwrap(),
        );
        let _ = &dc;
    }
}

#[test]
fn automorphisms_match_the_cpu() {
    let Some(gpu) = common::gpu() else { return };
    let (ring, dctx) = common::ring(&gpu, N, &[50, 45], &[61]);
    let ks = [
        galois_element_for_rotation(1, N),
        galois_element_for_rotation(-7, N),
        galois_element_for_rotation(300, N),
        galois_element_for_conjugation(N),
        2 * N + 3, // taken mod 2N
    ];
    for form in [Form::Coeff, Form::Ntt] {
        let a = common::random_poly(&ring, 2, 1, form, 1, 7);
        let da = DevicePoly::upload(&dctx, &a).unwrap();
        for &k in &ks {
            let mut cpu = ring.zero(2, 1, form);
            a.automorphism(k, &ring, &mut cpu);
            let mut out = DevicePoly::zero(&dctx, 2, 1, form).unwrap();
            da.automorphism(k, &mut out).unwrap();
            assert_eq!(
                out.download().unwrap().data(),
                cpu.data(),
                "k = {k}, {form:?}"
            );
        }
        let mut out = DevicePoly::zero(&dctx, 2, 1, form).unwrap();
        assert!(da.automorphism(4, &mut out).is_err(), "even exponent");
    }
}

#[test]
fn rejects_bad_scalars() {
    let Some(gpu) = common::gpu() else { return };
    let (ring, dctx) = common::ring(&gpu, 16, &[40], &[]);
    let mut d = DevicePoly::upload(&dctx, &ring.zero(1, 0, Form::Ntt)).unwrap();
    assert!(d.mul_scalar_assign(&[1, 2]).is_err(), "one scalar per limb");
    let q = ring.modulus(0, 1).value();
    assert!(d.mul_scalar_assign(&[q]).is_err(), "unreduced scalar");
}

#[test]
fn fresh_buffers_are_poisoned_in_debug_and_zeroed_on_request() {
    let Some(gpu) = common::gpu() else { return };
    let fresh = gpu.download(&gpu.alloc(1000).unwrap()).unwrap();
    if cfg!(debug_assertions) {
        let poison = u64::from_ne_bytes([hekate_gpu::POISON; 8]);
        assert!(fresh.iter().all(|&w| w == poison), "debug builds poison");
    }
    let mut b = gpu.upload(&[7u64; 1000]).unwrap();
    assert!(gpu
        .download(&gpu.alloc_zeroed(1000).unwrap())
        .unwrap()
        .iter()
        .all(|&w| w == 0));
    gpu.fill(&mut b, 0).unwrap();
    assert!(gpu.download(&b).unwrap().iter().all(|&w| w == 0));
    let (ring, dctx) = common::ring(&gpu, N, &[40, 40], &[]);
    let mut d =
        DevicePoly::upload(&dctx, &common::random_poly(&ring, 2, 0, Form::Ntt, 1, 3)).unwrap();
    d.set_zero().unwrap();
    assert_eq!(d.download().unwrap(), ring.zero(2, 0, Form::Ntt));
    let z = DevicePoly::zero(&dctx, 2, 0, Form::Coeff).unwrap();
    assert_eq!(z.download().unwrap(), ring.zero(2, 0, Form::Coeff));
}

/// A dropped buffer returns to its device's pool, and the next allocation of its length
/// takes it back without a driver allocation, poisoned in debug builds as a fresh one and
/// holding what its new owner writes; other lengths allocate; `trim` empties the pool.
#[test]
fn dropped_buffers_are_reused_by_length() {
    let Some(_) = common::gpu() else { return };
    // A device of its own: the counters of the shared one move with the other tests.
    let gpu = Gpu::open(Select::Auto).unwrap();
    let a = gpu.upload(&[1u64; 777]).unwrap();
    let made = gpu.allocations();
    assert_eq!(gpu.pooled_bytes(), 0);
    drop(a);
    assert_eq!(gpu.pooled_bytes(), 777 * 8);
    let mut b = gpu.alloc(777).unwrap();
    assert_eq!(gpu.allocations(), made, "served from the pool");
    assert_eq!(gpu.pooled_bytes(), 0);
    if cfg!(debug_assertions) {
        let poison = u64::from_ne_bytes([hekate_gpu::POISON; 8]);
        assert!(gpu.download(&b).unwrap().iter().all(|&w| w == poison));
    }
    gpu.write(&mut b, &[9u64; 777]).unwrap();
    assert!(gpu.download(&b).unwrap().iter().all(|&w| w == 9));
    let c = gpu.alloc(778).unwrap();
    assert_eq!(gpu.allocations(), made + 1, "another length");
    drop((b, c));
    assert_eq!(gpu.pooled_bytes(), (777 + 778) * 8);
    gpu.trim();
    assert_eq!(gpu.pooled_bytes(), 0);
    drop(gpu.alloc(777).unwrap());
    assert_eq!(gpu.allocations(), made + 2, "trimmed");
}

/// A constant product uploads its table of constants the first time only: the same
/// constants again are found on the device (a warm circuit uploads nothing), others are
/// uploaded, and every product is still the CPU's.
#[test]
fn constant_tables_are_uploaded_once() {
    let Some(_) = common::gpu() else { return };
    let gpu = Gpu::open(Select::Auto).unwrap();
    let (ring, dctx) = common::ring(&gpu, N, &[40, 40], &[]);
    let p = common::random_poly(&ring, 2, 0, Form::Ntt, 1, 5);
    let mut want = p.clone();
    let mut d = DevicePoly::upload(&dctx, &p).unwrap();
    let uploads = gpu.uploads();
    for (round, scalars) in [[3u64, 5], [3, 5], [7, 5], [3, 5]].iter().enumerate() {
        d.mul_scalar_assign(scalars).unwrap();
        want.mul_scalar_assign(scalars, &ring);
        assert_eq!(d.download().unwrap(), want, "round {round}");
    }
    assert_eq!(gpu.uploads() - uploads, 2, "[3, 5] once, [7, 5] once");
}

/// The operations on a ciphertext's parts (two per launch) refuse mismatched counts and
/// parts of different shapes.
#[test]
fn parts_operations_check_their_inputs() {
    let Some(gpu) = common::gpu() else { return };
    let (ring, dctx) = common::ring(&gpu, 1 << 4, &[40, 41], &[]);
    let up = |ql| DevicePoly::upload(&dctx, &ring.zero(ql, 0, Form::Ntt)).unwrap();
    let (a, b, short) = (up(2), up(2), up(1));
    let mut acc = vec![up(2), up(2)];
    assert!(DevicePoly::add_assign_parts(&mut acc, &[&a], false).is_err());
    let mut mixed = vec![up(2), up(1)];
    assert!(DevicePoly::add_assign_parts(&mut mixed, &[&a, &short], false).is_err());
    assert!(DevicePoly::add_assign_parts(&mut acc, &[&a, &b], false).is_ok());
    let mut out = vec![up(2)];
    assert!(DevicePoly::add_parts(&mut out, &[&a, &b], &[&a], false).is_err());
    assert!(DevicePoly::copy_parts(&[&a, &short], 1).is_err());
    assert!(DevicePoly::copy_parts(&[&a, &b], 3).is_err());
    assert_eq!(DevicePoly::copy_parts(&[&a, &b], 1).unwrap().len(), 2);
}
