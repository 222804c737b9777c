use super::gaussian::GaussianMethod;
use super::*;

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

fn mean_var(xs: impl Iterator<Item = f64>) -> (f64, f64, usize) {
    let (mut s, mut s2, mut c) = (0.0, 0.0, 0usize);
    for x in xs {
        s += x;
        s2 += x * x;
        c += 1;
    }
    let mean = s / c as f64;
    (mean, s2 / c as f64 - mean * mean, c)
}

#[test]
fn uniform_residues_moments() {
    let moduli = [
        Modulus::new(3),
        Modulus::new(1 << 20),               // power of two: no rejection
        Modulus::new((1 << 40) + 1),         // worst case: almost half the words rejected
        Modulus::new((1u64 << 61) - 1),      // 61-bit
        Modulus::new(0x3fff_ffff_ffff_ffff), // largest allowed, 62 bits
    ];
    let n = 200_000;
    let mut out = vec![0u64; moduli.len() * n];
    uniform_residues(&mut rng(1), &moduli, n, &mut out);
    for (i, m) in moduli.iter().enumerate() {
        let q = m.value() as f64;
        let limb = &out[i * n..(i + 1) * n];
        assert!(limb.iter().all(|&x| x < m.value()));
        let (mean, var, c) = mean_var(limb.iter().map(|&x| x as f64 / q));
        // Uniform on [0,1): mean 1/2 (sd of estimate 0.29/sqrt(n) ≈ 6.5e-4),
        // variance 1/12 (discrete: (1 - 1/q^2)/12).
        let want_var = (1.0 - 1.0 / (q * q)) / 12.0;
        let want_mean = 0.5 - 0.5 / q;
        assert!(
            (mean - want_mean).abs() < 5e-3,
            "q = {q}: mean {mean} over {c}"
        );
        assert!(
            (var - want_var).abs() < 0.02 * want_var,
            "q = {q}: variance {var} vs {want_var}"
        );
    }
    // q = 3: each residue about a third.
    let mut counts = [0usize; 3];
    for &x in &out[..n] {
        counts[x as usize] += 1;
    }
    for c in counts {
        assert!((c as f64 / n as f64 - 1.0 / 3.0).abs() < 0.01, "{counts:?}");
    }
}

#[test]
fn expand_seed_deterministic_and_streams_differ() {
    let moduli = [Modulus::new((1 << 50) - 27), Modulus::new(12289)];
    let n = 1024;
    let seed = [7u8; 32];
    let mut a = vec![0u64; 2 * n];
    let mut b = vec![0u64; 2 * n];
    let mut c = vec![0u64; 2 * n];
    expand_seed(&seed, 3, &moduli, n, &mut a);
    expand_seed(&seed, 3, &moduli, n, &mut b);
    expand_seed(&seed, 4, &moduli, n, &mut c);
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(a[..n].iter().all(|&x| x < moduli[0].value()));
    assert!(a[n..].iter().all(|&x| x < moduli[1].value()));
    // Prefix property.
    let mut p = vec![0u64; n];
    expand_seed(&seed, 3, &moduli[..1], n, &mut p);
    assert_eq!(p, a[..n]);
    // A different seed differs.
    let mut d = vec![0u64; 2 * n];
    expand_seed(&[8u8; 32], 3, &moduli, n, &mut d);
    assert_ne!(a, d);
}

/// Reference ChaCha20 block function (original variant, 64-bit counter and nonce),
/// written from the specification to pin down the documented expansion procedure.
fn chacha20_block(key: &[u8; 32], counter: u64, nonce: u64) -> [u8; 64] {
    fn qr(s: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
        s[a] = s[a].wrapping_add(s[b]);
        s[d] = (s[d] ^ s[a]).rotate_left(16);
        s[c] = s[c].wrapping_add(s[d]);
        s[b] = (s[b] ^ s[c]).rotate_left(12);
        s[a] = s[a].wrapping_add(s[b]);
        s[d] = (s[d] ^ s[a]).rotate_left(8);
        s[c] = s[c].wrapping_add(s[d]);
        s[b] = (s[b] ^ s[c]).rotate_left(7);
    }
    let mut st = [0u32; 16];
    st[..4].copy_from_slice(&[0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]);
    for i in 0..8 {
        st[4 + i] = u32::from_le_bytes(key[4 * i..4 * i + 4].try_into().unwrap());
    }
    st[12] = counter as u32;
    st[13] = (counter >> 32) as u32;
    st[14] = nonce as u32;
    st[15] = (nonce >> 32) as u32;
    let mut w = st;
    for _ in 0..10 {
        qr(&mut w, 0, 4, 8, 12);
        qr(&mut w, 1, 5, 9, 13);
        qr(&mut w, 2, 6, 10, 14);
        qr(&mut w, 3, 7, 11, 15);
        qr(&mut w, 0, 5, 10, 15);
        qr(&mut w, 1, 6, 11, 12);
        qr(&mut w, 2, 7, 8, 13);
        qr(&mut w, 3, 4, 9, 14);
    }
    let mut out = [0u8; 64];
    for i in 0..16 {
        out[4 * i..4 * i + 4].copy_from_slice(&w[i].wrapping_add(st[i]).to_le_bytes());
    }
    out
}

/// The documented procedure, implemented independently of rand_chacha.
fn reference_expand(seed: &Seed, stream: u64, moduli: &[Modulus], n: usize) -> Vec<u64> {
    let mut words = Vec::new();
    let mut block = 0u64;
    let mut next = 0usize;
    let mut out = Vec::new();
    for m in moduli {
        let q = m.value();
        let b = 64 - (q - 1).leading_zeros();
        let mask = if b == 64 { u64::MAX } else { (1u64 << b) - 1 };
        for _ in 0..n {
            loop {
                if next == words.len() {
                    let bytes = chacha20_block(seed, block, stream);
                    block += 1;
                    for c in bytes.chunks_exact(8) {
                        words.push(u64::from_le_bytes(c.try_into().unwrap()));
                    }
                }
                let x = words[next] & mask;
                next += 1;
                if x < q {
                    out.push(x);
                    break;
                }
            }
        }
    }
    out
}

#[test]
fn expand_seed_matches_documented_procedure() {
    // The RFC 7539 §2.3.2 test key (0x00..0x1f), read through the 64-bit-nonce variant.
    let mut seed = [0u8; 32];
    for (i, b) in seed.iter_mut().enumerate() {
        *b = i as u8;
    }
    let moduli = [
        Modulus::new((1u64 << 55) - 55),
        Modulus::new(97),
        Modulus::new((1u64 << 61) - 1),
    ];
    for stream in [0u64, 1, 0x0123_4567_89ab_cdef] {
        let n = 300; // several ChaCha blocks, so block boundaries are crossed
        let mut got = vec![0u64; moduli.len() * n];
        expand_seed(&seed, stream, &moduli, n, &mut got);
        assert_eq!(
            got,
            reference_expand(&seed, stream, &moduli, n),
            "stream {stream}"
        );
    }
}

#[test]
fn chacha20_reference_known_answer() {
    // Keystream of the all-zero key and nonce, block 0 (the classic ChaCha20 test
    // vector, e.g. draft-agl-tls-chacha20poly1305 §7, test vector 1).
    let ks = chacha20_block(&[0u8; 32], 0, 0);
    assert_eq!(
        ks[..16],
        [
            0x76, 0xb8, 0xe0, 0xad, 0xa0, 0xf1, 0x3d, 0x90, 0x40, 0x5d, 0x6a, 0xe5, 0x53, 0x86,
            0xbd, 0x28
        ]
    );
}

#[test]
fn expand_seed_known_answer() {
    // Frozen output: first values for seed [0; 32], stream 0, q = 2^50 - 27.
    // A change here breaks every serialized key: do not update it casually.
    let m = [Modulus::new((1u64 << 50) - 27)];
    let mut out = vec![0u64; 4];
    expand_seed(&[0u8; 32], 0, &m, 4, &mut out);
    assert_eq!(out, KAT_Q50_STREAM0);
}

// The first value is the low 50 bits of the first keystream word 0x903df1a0ade0b876 of
// the all-zero ChaCha20 key (see `chacha20_reference_known_answer`).
const KAT_Q50_STREAM0: [u64; 4] = [
    547147390957686,
    429169866071360,
    437196399694525,
    412917299099304,
];

#[test]
fn ternary_proportions() {
    let n = 300_000;
    let v = ternary(&mut rng(2), n);
    let mut counts = [0usize; 3];
    for &x in &v {
        assert!((-1..=1).contains(&x));
        counts[(x + 1) as usize] += 1;
    }
    for c in counts {
        // sd of each proportion ≈ 8.6e-4
        assert!((c as f64 / n as f64 - 1.0 / 3.0).abs() < 5e-3, "{counts:?}");
    }
}

#[test]
fn hamming_weight_exact() {
    let mut r = rng(3);
    for (n, h) in [(16, 0), (16, 16), (1024, 64), (65536, 192), (8192, 8192)] {
        let v = ternary_hamming(&mut r, n, h).unwrap();
        assert_eq!(v.len(), n);
        assert_eq!(v.iter().filter(|&&x| x != 0).count(), h);
        assert!(v.iter().all(|&x| (-1..=1).contains(&x)));
    }
    assert!(matches!(
        ternary_hamming(&mut r, 8, 9),
        Err(Error::InvalidParameters(_))
    ));
    // Positions and signs are spread: over many draws every position is hit, both signs.
    let (n, h) = (64, 8);
    let mut hits = vec![0usize; n];
    let mut plus = 0usize;
    let trials = 20_000;
    for _ in 0..trials {
        for (i, x) in ternary_hamming(&mut r, n, h)
            .unwrap()
            .into_iter()
            .enumerate()
        {
            if x != 0 {
                hits[i] += 1;
            }
            if x == 1 {
                plus += 1;
            }
        }
    }
    let expect = (trials * h / n) as f64; // 2500 per position
    for c in &hits {
        assert!((*c as f64 - expect).abs() < 0.1 * expect, "{hits:?}");
    }
    assert!((plus as f64 / (trials * h) as f64 - 0.5).abs() < 0.01);
}

fn check_gaussian(g: &DiscreteGaussian, seed: u64, count: usize) {
    let mut out = vec![0i64; count];
    g.fill(&mut rng(seed), &mut out);
    let b = g.bound();
    assert!(out.iter().all(|&x| x.abs() <= b), "sample beyond bound {b}");
    let (mean, var, _) = mean_var(out.iter().map(|&x| x as f64));
    let s2 = g.sigma() * g.sigma();
    assert!(
        (var - s2).abs() < 0.05 * s2,
        "σ = {}: variance {var} vs {s2}",
        g.sigma()
    );
    // Mean: sd of the estimate is σ/sqrt(count); allow 6 of those.
    assert!(
        mean.abs() < 6.0 * g.sigma() / (count as f64).sqrt(),
        "mean {mean}"
    );
}

#[test]
fn gaussian_default_sigma() {
    let g = DiscreteGaussian::default();
    assert_eq!(g.bound(), 19);
    assert!(matches!(g.method, GaussianMethod::Cdt(_)));
    check_gaussian(&g, 4, 1_000_000);
}

#[test]
fn gaussian_sigma_32() {
    let g = DiscreteGaussian::new(32.0, 6.0).unwrap();
    assert_eq!(g.bound(), 192);
    assert!(matches!(g.method, GaussianMethod::Cdt(_)));
    check_gaussian(&g, 5, 200_000);
    // The rejection path agrees at the same σ.
    let r = DiscreteGaussian {
        method: GaussianMethod::Rejection,
        ..g.clone()
    };
    check_gaussian(&r, 6, 200_000);
}

#[test]
fn smudging_noise_is_sampled_in_constant_time() {
    // Threshold FHEW's σ_smenc = 2^6 · 3.19: the convolution of two CDT samples.
    for sigma in [3.19 * 64.0, 50.0, 700.0] {
        let g = DiscreteGaussian::new(sigma, 6.0).unwrap();
        assert!(
            matches!(g.method, GaussianMethod::Convolution { .. }),
            "σ = {sigma}"
        );
        assert!(g.is_constant_time());
        check_gaussian(&g, 9, 400_000);
    }
    // Its magnitudes follow D_σ: P(|x| <= σ) ≈ 0.683 within sampling error.
    let g = DiscreteGaussian::new(3.19 * 64.0, 6.0).unwrap();
    let mut out = vec![0i64; 400_000];
    g.fill(&mut rng(10), &mut out);
    let within = out
        .iter()
        .filter(|&&x| (x as f64).abs() <= g.sigma())
        .count() as f64;
    assert!((within / out.len() as f64 - 0.6827).abs() < 0.005);
}

#[test]
fn gaussian_large_sigma() {
    for sigma in [(1u64 << 20) as f64, 1e12] {
        let g = DiscreteGaussian::new(sigma, 6.0).unwrap();
        assert!(matches!(g.method, GaussianMethod::Rejection));
        check_gaussian(&g, 7, 200_000);
    }
}

#[test]
fn gaussian_small_table_exact() {
    // σ = 3.2: the probability of 0 is 1/Σ exp(-k^2/2σ^2) over |k| <= 19.
    let g = DiscreteGaussian::default();
    let total: f64 = (-19i64..=19).map(|k| (-(k * k) as f64 / 20.48).exp()).sum();
    let GaussianMethod::Cdt(t) = &g.method else {
        unreachable!()
    };
    let p0 = t[0] as f64 / (1u64 << 63) as f64;
    assert!((p0 - 1.0 / total).abs() < 1e-15);
    let count = 1_000_000;
    let mut out = vec![0i64; count];
    g.fill(&mut rng(8), &mut out);
    let zeros = out.iter().filter(|&&x| x == 0).count() as f64 / count as f64;
    assert!(
        (zeros - 1.0 / total).abs() < 2e-3,
        "{zeros} vs {}",
        1.0 / total
    );
    let pos = out.iter().filter(|&&x| x > 0).count();
    let neg = out.iter().filter(|&&x| x < 0).count();
    assert!((pos as f64 / neg as f64 - 1.0).abs() < 0.01);
}

#[test]
fn gaussian_rejects_bad_parameters() {
    for (s, t) in [
        (0.0, 6.0),
        (-1.0, 6.0),
        (f64::NAN, 6.0),
        (f64::INFINITY, 6.0),
        (3.2, 0.5),
        (3.2, 100.0),
        (0.1, 6.0),
        (1e15, 6.0),
    ] {
        assert!(
            matches!(
                DiscreteGaussian::new(s, t),
                Err(Error::InvalidParameters(_))
            ),
            "σ = {s}, tail = {t}"
        );
    }
}

#[test]
fn signed_to_residues_limb_major() {
    let moduli = [Modulus::new(17), Modulus::new((1u64 << 61) - 1)];
    let c = [0i64, 1, -1, 20, -20, i64::MIN + 1, i64::MAX];
    let mut out = vec![0u64; 2 * c.len()];
    signed_to_residues(&c, &moduli, &mut out);
    for (i, m) in moduli.iter().enumerate() {
        let q = m.value() as i128;
        for (j, &x) in c.iter().enumerate() {
            assert_eq!(out[i * c.len() + j] as i128, (x as i128).rem_euclid(q));
        }
    }
}

#[test]
fn os_sources_work() {
    let a = fresh_seed();
    let b = fresh_seed();
    assert_ne!(a, b);
    let mut r1 = os_rng();
    let mut r2 = os_rng();
    assert_ne!(r1.next_u64(), r2.next_u64());
}
