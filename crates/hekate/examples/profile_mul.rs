use hekate::ckks::{CkksParameters, Evaluator};
use hekate::params::SecurityLevel;
use hekate::rlwe::KeySwitcher;
use std::time::Instant;

fn med(mut v: Vec<f64>) -> f64 { v.sort_by(|a, b| a.partial_cmp(b).unwrap()); v[v.len() / 2] }

fn main() {
    let limbs: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(16);
    let dnum: usize = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(3);
    let mut lq = vec![60u32]; lq.extend(std::iter::repeat(50).take(limbs - 1));
    let alpha = limbs.div_ceil(dnum);
    let k = ((60 + 50 * (alpha - 1)) as f64 / 61.0).ceil() as usize + 0;
    let ctx = CkksParameters::new(16).log_q(&lq).log_p(&vec![61; k]).dnum(dnum).log_scale(50).security(SecurityLevel::NotChecked).build().unwrap();
    let sk = ctx.generate_secret_key();
    let pk = ctx.generate_public_key(&sk);
    let t = Instant::now();
    let rlk = ctx.generate_relinearization_key(&sk);
    eprintln!("rlk gen {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let gk = ctx.generate_galois_keys(&sk, &[1], false);
    let eval = Evaluator::new(ctx.clone(), Some(rlk.clone()), gk);
    let v: Vec<f64> = (0..ctx.max_slots()).map(|i| (i as f64 / 1000.0).sin()).collect();
    let ct = ctx.encrypt(&ctx.encode_real(&v).unwrap(), &pk).unwrap();
    let ks = ctx.keyswitcher();
    let reps = 7;
    let mut tm = |name: &str, f: &mut dyn FnMut()| {
        f();
        let mut ts = vec![];
        for _ in 0..reps { let t = Instant::now(); f(); ts.push(t.elapsed().as_secs_f64() * 1e3); }
        eprintln!("{name:>20}: {:8.2} ms", med(ts));
    };
    tm("mul+relin", &mut || { eval.mul(&ct, &ct).unwrap(); });
    tm("tensor", &mut || { eval.mul_no_relin(&ct, &ct).unwrap(); });
    let c1 = ct.parts()[1].clone();
    tm("decompose", &mut || { ks.decompose(&c1); });
    let d = ks.decompose(&c1);
    tm("inner product", &mut || { let mut acc = ks.zero_accumulator(limbs); ks.multiply_add(&d, &rlk.0, &mut acc); });
    let mut acc = ks.zero_accumulator(limbs); ks.multiply_add(&d, &rlk.0, &mut acc);
    tm("mod_down", &mut || { ks.mod_down(acc.clone()); });
    tm("acc clone", &mut || { let _ = acc.clone(); });
    tm("rotate", &mut || { eval.rotate(&ct, 1).unwrap(); });
    tm("rescale", &mut || { eval.rescale(&ct).unwrap(); });
    tm("encrypt", &mut || { ctx.encrypt(&ctx.encode_real(&v).unwrap(), &pk).unwrap(); });
    tm("decrypt+decode", &mut || { ctx.decrypt_decode(&ct, &sk).unwrap(); });
    tm("add", &mut || { eval.add(&ct, &ct).unwrap(); });
}
