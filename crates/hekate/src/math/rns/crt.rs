//! [`CrtReconstructor`]: Garner's CRT reconstruction, to `f64` or mixed-radix digits.

use super::RnsBasis;
use crate::math::modulus::Modulus;

/// Garner CRT reconstruction over a basis (any prefix of it can be used).
#[derive(Clone, Debug)]
pub struct CrtReconstructor {
    moduli: Vec<Modulus>,
    /// inv[i * l + j] = q_j^-1 mod q_i for j < i, with Shoup companions.
    inv: Vec<u64>,
    inv_shoup: Vec<u64>,
}

impl CrtReconstructor {
    /// Constants for the basis.
    pub fn new(basis: &RnsBasis) -> Self {
        let l = basis.len();
        let mut inv = vec![0u64; l * l];
        let mut inv_shoup = vec![0u64; l * l];
        for i in 0..l {
            let qi = &basis.moduli[i];
            for j in 0..i {
                let w = qi.inv(qi.reduce(basis.moduli[j].value())).expect("coprime");
                inv[i * l + j] = w;
                inv_shoup[i * l + j] = qi.shoup(w);
            }
        }
        CrtReconstructor {
            moduli: basis.moduli.clone(),
            inv,
            inv_shoup,
        }
    }

    /// Mixed-radix digits `a_i` in `[0, q_i)` of `x` (given by `limbs` limbs of `n`
    /// residues), with `x = a_0 + a_1 q_0 + a_2 q_0 q_1 + ...`; written limb-major to `digits`.
    pub fn mixed_radix(&self, residues: &[u64], digits: &mut [u64], n: usize) {
        let l = self.moduli.len();
        let limbs = residues.len() / n;
        assert!(limbs <= l && digits.len() == residues.len());
        digits.copy_from_slice(residues);
        for i in 1..limbs {
            let qi = &self.moduli[i];
            let qv = qi.value();
            let (done, cur) = digits.split_at_mut(i * n);
            let cur = &mut cur[..n];
            for j in 0..i {
                let (w, ws) = (self.inv[i * l + j], self.inv_shoup[i * l + j]);
                for (t, &a) in cur.iter_mut().zip(&done[j * n..(j + 1) * n]) {
                    *t = qi.mul_shoup(*t + qv - qi.reduce(a), w, ws);
                }
            }
        }
    }

    /// The centered representatives (in `[-Q/2, Q/2]`) of the residues, as `f64`, for the
    /// first `residues.len() / n` primes. `digits` is scratch of `residues.len()` words.
    ///
    /// Fast exact path: the centered value `v` of the first two limbs (an `i128`) is checked
    /// against every other limb (`v mod q_i == x_i`); if all agree, `v` is the answer by CRT
    /// uniqueness (`|v| < q_0 q_1 / 2 <= Q/2`). That costs `O(l)` per coefficient, and CKKS
    /// messages pass it unless they exceed `q_0 q_1 / 2` (about `2^110` in practice).
    /// Coefficients that fail it go through Garner's mixed-radix reconstruction, `O(l^2)`.
    ///
    /// Accuracy: the result is the exact integer rounded once per Horner step (relative
    /// error below `l * 2^-53`), whatever the size of `Q`; values beyond `f64`'s range
    /// (`Q > 2^1024`) come out infinite: [`centered_log2_abs`](Self::centered_log2_abs)
    /// measures those.
    pub fn centered_f64(&self, residues: &[u64], digits: &mut [u64], n: usize, out: &mut [f64]) {
        self.centered_each(residues, digits, n, |k, v| out[k] = v.to_f64());
    }

    /// `log2 |v|` of the centered representatives `v` (`-inf` for 0), for any size of `Q`
    /// (the noise of a ciphertext over a 1800-bit chain is far beyond `f64`); same
    /// arguments and accuracy as [`centered_f64`](Self::centered_f64).
    pub fn centered_log2_abs(
        &self,
        residues: &[u64],
        digits: &mut [u64],
        n: usize,
        out: &mut [f64],
    ) {
        self.centered_each(residues, digits, n, |k, v| out[k] = v.log2_abs());
    }

    /// The centered value of each coefficient `k`, handed to `emit(k, value)`: the fast
    /// `i128` path where it applies, Garner's digits otherwise (see
    /// [`centered_f64`](Self::centered_f64)).
    fn centered_each(
        &self,
        residues: &[u64],
        digits: &mut [u64],
        n: usize,
        mut emit: impl FnMut(usize, Scaled),
    ) {
        let limbs = residues.len() / n;
        // (The slow path below uses 2 * limbs words of `digits`: n >= 2 guarantees them.)
        if limbs < 3 || n < 2 {
            self.mixed_radix(residues, digits, n);
            for k in 0..n {
                emit(k, self.centered_from_digits(digits, n, limbs, k));
            }
            return;
        }
        let (q0, q1) = (&self.moduli[0], &self.moduli[1]);
        let q01 = q0.value() as i128 * q1.value() as i128;
        let (w, ws) = (
            self.inv[self.moduli.len()],
            self.inv_shoup[self.moduli.len()],
        );
        let mut fast_ok = vec![true; n];
        let mut v = vec![0i128; n];
        for k in 0..n {
            let (x0, x1) = (residues[k], residues[n + k]);
            // v = x0 + q0 * [(x1 - x0) q0^-1]_{q1}, then centered.
            let t = q1.mul_shoup(x1 + q1.value() - q1.reduce(x0), w, ws);
            let mut val = x0 as i128 + q0.value() as i128 * t as i128;
            if 2 * val > q01 {
                val -= q01;
            }
            v[k] = val;
        }
        for i in 2..limbs {
            let qi = &self.moduli[i];
            let row = &residues[i * n..(i + 1) * n];
            for k in 0..n {
                if qi.reduce_i128(v[k]) != row[k] {
                    fast_ok[k] = false;
                }
            }
        }
        // Slow path, per coefficient, in the first 2 * limbs words of `digits`.
        let (column, col_digits) = digits[..2 * limbs].split_at_mut(limbs);
        for k in 0..n {
            if fast_ok[k] {
                emit(
                    k,
                    Scaled {
                        m: v[k] as f64,
                        e: 0,
                    },
                );
            } else {
                for i in 0..limbs {
                    column[i] = residues[i * n + k];
                }
                self.mixed_radix(column, col_digits, 1);
                emit(k, self.centered_from_digits(col_digits, 1, limbs, 0));
            }
        }
    }

    /// The centered value of coefficient `k` from its mixed-radix digits.
    fn centered_from_digits(&self, digits: &[u64], n: usize, limbs: usize, k: usize) -> Scaled {
        // (Q-1)/2 has mixed-radix digits (q_i - 1)/2: compare from the top digit.
        let mut negative = false;
        for i in (0..limbs).rev() {
            let half = (self.moduli[i].value() - 1) / 2;
            let a = digits[i * n + k];
            if a != half {
                negative = a > half;
                break;
            }
        }
        // Q - x has digits (q_i - 1 - a_i) plus one. Horner in `m 2^e`: `m` is scaled down
        // by 2^-RESCALE whenever it passes RESCALE_AT, and the digits are added times
        // `unit = 2^-e`, so no step leaves f64's range (and values within it, e = 0, are
        // computed exactly as a plain Horner evaluation).
        const RESCALE_AT: f64 = 1e280; // about 2^930, with room for one more q_i < 2^62
        const RESCALE: i32 = 900;
        let mut acc = Scaled { m: 0.0, e: 0 };
        let mut unit = 1.0f64;
        for i in (0..limbs).rev() {
            let a = digits[i * n + k];
            let d = if negative {
                self.moduli[i].value() - 1 - a
            } else {
                a
            };
            acc.m = acc.m * self.moduli[i].value() as f64 + d as f64 * unit;
            if acc.m > RESCALE_AT {
                let down = (-RESCALE as f64).exp2();
                acc.m *= down;
                unit *= down;
                acc.e += RESCALE;
            }
        }
        if negative {
            acc.m = -(acc.m + unit);
        }
        acc
    }
}

/// A real number `m 2^e` (`e >= 0`): Garner's Horner evaluation beyond `f64`'s range.
#[derive(Clone, Copy, Debug)]
struct Scaled {
    m: f64,
    e: i32,
}

impl Scaled {
    /// As an `f64` (infinite beyond its range).
    fn to_f64(self) -> f64 {
        if self.e == 0 {
            self.m
        } else {
            self.m * (self.e as f64).exp2()
        }
    }

    /// `log2 |m 2^e|` (`-inf` for 0).
    fn log2_abs(self) -> f64 {
        self.m.abs().log2() + self.e as f64
    }
}
