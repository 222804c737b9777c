//! Tests of the parameter search.

use super::*;
mod scratch {
    use super::*;
    fn costs() -> UnitCosts {
        UnitCosts {
            n: 1 << 12,
            ntt_narrow: 10e-6,
            ntt_wide: 14e-6,
            hadamard: 3e-6,
            conversion: 2e-6,
        }
    }
    #[test]
    fn scratch_sets() {
        let sets: [(
            &str,
            u32,
            usize,
            SecretDistribution,
            u32,
            f64,
            f64,
            usize,
            Security,
        ); 6] = [
            (
                "I",
                16,
                1 << 15,
                SecretDistribution::HammingWeight(192),
                40,
                25.7,
                -15.58,
                9,
                Security::Bits128,
            ),
            (
                "II",
                16,
                1 << 15,
                SecretDistribution::HammingWeight(192),
                45,
                28.0,
                -15.58,
                5,
                Security::Bits128,
            ),
            (
                "III",
                16,
                1 << 15,
                SecretDistribution::HammingWeight(192),
                30,
                19.1,
                -15.58,
                7,
                Security::Bits128,
            ),
            (
                "IV",
                16,
                1 << 15,
                SecretDistribution::HammingWeight(32768),
                45,
                16.8,
                -14.90,
                9,
                Security::MaxLogQp(1782.0),
            ),
            (
                "V",
                15,
                1 << 14,
                SecretDistribution::HammingWeight(192),
                25,
                15.5,
                -16.58,
                2,
                Security::Bits128,
            ),
            (
                "q12",
                12,
                1 << 11,
                SecretDistribution::Ternary,
                40,
                15.0,
                -40.0,
                1,
                Security::NotChecked,
            ),
        ];
        for (name, log_n, slots, secret, ls, d, kappa, left, sec) in sets {
            let mut i = SearchInputs::new(log_n, slots, secret);
            (
                i.log_scale,
                i.precision,
                i.log2_failure,
                i.levels_left,
                i.security,
            ) = (ls, d, kappa, left, sec);
            let t = std::time::Instant::now();
            match search(&i, &costs()) {
                Ok(c) => {
                    for x in c.iter().take(3) {
                        println!("{name}: R={} K={} r={} d={} depth {} rho=({},{}) res {:?} stc {} em {} cts {} P {:?} dnum {} logQP {:.0} t {:.2} prec {:.1} keys {} MiB", x.log_message_ratio, x.k, x.double_angles, x.degree, x.eval_mod_depth, x.cts_levels, x.stc_levels, x.residual, x.stc_bits, x.eval_mod_bits, x.cts_bits, x.log_p, x.dnum, x.log_qp, x.predicted_seconds, x.predicted_precision, x.key_bytes >> 20);
                    }
                }
                Err(e) => println!("{name}: {e}"),
            }
            println!("  ({:.2} s)", t.elapsed().as_secs_f64());
        }
    }
}
