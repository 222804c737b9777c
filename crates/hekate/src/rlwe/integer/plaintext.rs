//! The plaintext modulus `t`, the two encoders (batch: `N` slots mod a prime
//! `t ≡ 1 mod 2N`; coefficients: any `t`), and plaintexts.
//!
//! A [`Plaintext`] is the message polynomial `m ∈ Z_t[X]/(X^N + 1)` itself, `N` residues
//! mod `t` in coefficient order. It is lifted into the ciphertext modulus only when it
//! meets a ciphertext (as `[t^-1]_Q α m` for additions and encryption, as the centered `m`
//! for products; see the [module documentation](super)), so one plaintext serves every
//! level and every correction factor.

use crate::math::modulus::Modulus;
use crate::math::ntt::{bit_reverse, NttPlan};
use crate::math::primes::is_prime;
use crate::{Error, Result};

/// The plaintext modulus `t` (`2 <= t < 2^61`), with its batching tables when `t` is a
/// prime `≡ 1 mod 2N`.
#[derive(Debug, Clone)]
pub struct PlaintextModulus {
    t: Modulus,
    n: usize,
    batching: std::result::Result<Batching, String>,
}

/// The NTT mod `t` and the slot order of the `2 × N/2` matrix.
#[derive(Debug, Clone)]
struct Batching {
    plan: NttPlan,
    /// `slot_index[r N/2 + j]` = the position in the (bit-reversed) NTT output of the
    /// evaluation at `ψ^{(-1)^r 5^j}`.
    slot_index: Vec<u32>,
}

impl PlaintextModulus {
    /// The largest accepted `t` (exclusive): `2^61`.
    pub const MAX: u64 = 1 << 61;

    /// `t` for ring degree `n`. Errors if `t` is outside `[2, 2^61)`; batching is
    /// available when `t` is a prime `≡ 1 mod 2n` (see
    /// [`PlaintextModulus::batching_error`] otherwise).
    pub fn new(t: u64, n: usize) -> Result<Self> {
        if !(2..Self::MAX).contains(&t) {
            return Err(Error::InvalidParameters(format!(
                "plaintext modulus t = {t} is outside [2, 2^61)"
            )));
        }
        let two_n = 2 * n as u64;
        let log_2n = two_n.trailing_zeros();
        let batching = if !is_prime(t) {
            Err(format!(
                "t = {t} is not prime: batching needs a prime t ≡ 1 mod 2N = 2^{log_2n}; \
                 encode coefficients instead (encode_coefficients)"
            ))
        } else if !(t - 1).is_multiple_of(two_n) {
            Err(format!(
                "{t} is not 1 mod 2^{log_2n} at N = 2^{}: batching needs a prime \
                 t ≡ 1 mod 2N; encode coefficients instead (encode_coefficients), or pick \
                 such a t",
                log_2n - 1
            ))
        } else {
            let plan = NttPlan::new(n, t)?;
            let log_n = log_2n - 1;
            let half = n / 2;
            let mut slot_index = vec![0u32; n];
            let mut g = 1u64; // 5^j mod 2N
            for j in 0..half {
                for (r, e) in [(0, g), (1, two_n - g)] {
                    slot_index[r * half + j] = bit_reverse(((e - 1) / 2) as usize, log_n) as u32;
                }
                g = g * 5 % two_n;
            }
            Ok(Batching { plan, slot_index })
        };
        Ok(PlaintextModulus {
            t: Modulus::new(t),
            n,
            batching,
        })
    }

    /// `t`.
    pub fn value(&self) -> u64 {
        self.t.value()
    }

    /// `t` as a [`Modulus`].
    pub fn modulus(&self) -> &Modulus {
        &self.t
    }

    /// Whether batching (`N` slots) is available.
    pub fn supports_batching(&self) -> bool {
        self.batching.is_ok()
    }

    /// Why batching is unavailable (`None` when it is available).
    pub fn batching_error(&self) -> Option<&str> {
        self.batching.as_ref().err().map(String::as_str)
    }

    fn batching(&self) -> Result<&Batching> {
        self.batching
            .as_ref()
            .map_err(|e| Error::InvalidParameters(e.clone()))
    }

    /// Checks `len <= N`.
    fn check_len(&self, len: usize, what: &str) -> Result<()> {
        if len > self.n {
            return Err(Error::InvalidParameters(format!(
                "{len} {what} do not fit in N = {}",
                self.n
            )));
        }
        Ok(())
    }

    /// Checks `values.len() <= N` and every value `< t`.
    fn check_values(&self, values: &[u64], what: &str) -> Result<()> {
        self.check_len(values.len(), what)?;
        let t = self.value();
        if let Some((i, v)) = values.iter().enumerate().find(|(_, &v)| v >= t) {
            return Err(Error::InvalidParameters(format!(
                "{what} {i} is {v}, not below t = {t} (reduce it mod t, or use the signed \
                 encoder)"
            )));
        }
        Ok(())
    }

    /// Reduces signed values into `[0, t)`.
    fn reduce_signed(&self, values: &[i64]) -> Vec<u64> {
        values.iter().map(|&v| self.t.reduce_i64(v)).collect()
    }

    /// Batch encoding: `values[r N/2 + j]` goes to row `r`, column `j` of the slot matrix
    /// (missing values are zero). Errors if batching is unavailable, if there are more
    /// than `N` values, or a value is not below `t`.
    pub fn encode_slots(&self, values: &[u64]) -> Result<Plaintext> {
        let b = self.batching()?;
        self.check_values(values, "slot values")?;
        let mut coeffs = vec![0u64; self.n];
        for (&v, &i) in values.iter().zip(&b.slot_index) {
            coeffs[i as usize] = v;
        }
        b.plan.inverse(&mut coeffs);
        Ok(Plaintext {
            coeffs,
            t: self.value(),
        })
    }

    /// [`PlaintextModulus::encode_slots`] of signed values (reduced mod `t`).
    pub fn encode_slots_signed(&self, values: &[i64]) -> Result<Plaintext> {
        self.check_len(values.len(), "slot values")?;
        self.encode_slots(&self.reduce_signed(values))
    }

    /// The `N` slot values of `pt` in `[0, t)` (row 0 then row 1).
    pub fn decode_slots(&self, pt: &Plaintext) -> Result<Vec<u64>> {
        let b = self.batching()?;
        self.check_plaintext(pt)?;
        let mut evals = pt.coeffs.clone();
        b.plan.forward(&mut evals);
        Ok(b.slot_index.iter().map(|&i| evals[i as usize]).collect())
    }

    /// The slot values of `pt`, centered in `(-t/2, t/2]`.
    pub fn decode_slots_signed(&self, pt: &Plaintext) -> Result<Vec<i64>> {
        Ok(self.center_all(&self.decode_slots(pt)?))
    }

    /// Coefficient encoding: `m = Σ values[i] X^i` (missing coefficients are zero); works
    /// for every `t`.
    pub fn encode_coefficients(&self, values: &[u64]) -> Result<Plaintext> {
        self.check_values(values, "coefficients")?;
        let mut coeffs = values.to_vec();
        coeffs.resize(self.n, 0);
        Ok(Plaintext {
            coeffs,
            t: self.value(),
        })
    }

    /// [`PlaintextModulus::encode_coefficients`] of signed values (reduced mod `t`).
    pub fn encode_coefficients_signed(&self, values: &[i64]) -> Result<Plaintext> {
        self.check_len(values.len(), "coefficients")?;
        self.encode_coefficients(&self.reduce_signed(values))
    }

    /// The `N` coefficients of `pt` in `[0, t)`.
    pub fn decode_coefficients(&self, pt: &Plaintext) -> Result<Vec<u64>> {
        self.check_plaintext(pt)?;
        Ok(pt.coeffs.clone())
    }

    /// The coefficients of `pt`, centered in `(-t/2, t/2]`.
    pub fn decode_coefficients_signed(&self, pt: &Plaintext) -> Result<Vec<i64>> {
        Ok(self.center_all(&self.decode_coefficients(pt)?))
    }

    fn center_all(&self, v: &[u64]) -> Vec<i64> {
        v.iter().map(|&x| self.t.center(x)).collect()
    }

    /// Checks that `pt` is a plaintext of this modulus and degree.
    pub(crate) fn check_plaintext(&self, pt: &Plaintext) -> Result<()> {
        if pt.t != self.value() || pt.coeffs.len() != self.n {
            return Err(Error::ParameterMismatch(format!(
                "plaintext mod {} of degree {} used with t = {} and N = {}",
                pt.t,
                pt.coeffs.len(),
                self.value(),
                self.n
            )));
        }
        if pt.coeffs.iter().any(|&c| c >= pt.t) {
            return Err(Error::ParameterMismatch(
                "plaintext coefficient not reduced mod t".into(),
            ));
        }
        Ok(())
    }
}

/// A message polynomial `m ∈ Z_t[X]/(X^N + 1)`: `N` coefficients in `[0, t)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plaintext {
    pub(crate) coeffs: Vec<u64>,
    pub(crate) t: u64,
}

impl Plaintext {
    /// The coefficients of `m`, in `[0, t)`.
    pub fn coefficients(&self) -> &[u64] {
        &self.coeffs
    }

    /// The plaintext modulus `t`.
    pub fn plaintext_modulus(&self) -> u64 {
        self.t
    }

    /// A plaintext from coefficients (checked: `N` values below `t`), e.g. read back from
    /// bytes.
    pub fn from_coefficients(t: &PlaintextModulus, coeffs: Vec<u64>) -> Result<Self> {
        let pt = Plaintext {
            coeffs,
            t: t.value(),
        };
        t.check_plaintext(&pt)?;
        Ok(pt)
    }

    /// The centered coefficients `(-t/2, t/2]`, as lifted into the ciphertext modulus.
    pub(crate) fn centered(&self) -> Vec<i64> {
        let m = Modulus::new(self.t);
        self.coeffs.iter().map(|&c| m.center(c)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ring::automorphism::{automorphism_coeff, galois_element_for_rotation};

    /// Rotating the coefficient polynomial by `X -> X^{5^k}` rotates both rows left by `k`;
    /// `X -> X^{2N-1}` swaps the rows (SEAL's layout).
    #[test]
    fn automorphisms_rotate_rows_and_swap_them() {
        let n = 64;
        let pm = PlaintextModulus::new(65537, n).unwrap();
        let values: Vec<u64> = (0..n as u64).map(|i| i * 977 % 65537).collect();
        let pt = pm.encode_slots(&values).unwrap();
        assert_eq!(pm.decode_slots(&pt).unwrap(), values);
        let half = n / 2;
        for k in [1i64, 3, -1, 31] {
            let g = galois_element_for_rotation(k, n);
            let mut out = vec![0; n];
            automorphism_coeff(&pt.coeffs, &mut out, g, 65537);
            let got = pm
                .decode_slots(&Plaintext {
                    coeffs: out,
                    t: 65537,
                })
                .unwrap();
            for r in 0..2 {
                for j in 0..half {
                    let src = (j as i64 + k).rem_euclid(half as i64) as usize;
                    assert_eq!(got[r * half + j], values[r * half + src], "k {k}");
                }
            }
        }
        let mut out = vec![0; n];
        automorphism_coeff(&pt.coeffs, &mut out, 2 * n - 1, 65537);
        let got = pm
            .decode_slots(&Plaintext {
                coeffs: out,
                t: 65537,
            })
            .unwrap();
        assert_eq!(&got[..half], &values[half..]);
        assert_eq!(&got[half..], &values[..half]);
    }

    /// Slot-wise products are products of the polynomials mod `t`.
    #[test]
    fn slots_multiply_pointwise() {
        let n = 32;
        let t = 7681; // 7681 = 15·2^9 + 1
        let pm = PlaintextModulus::new(t, n).unwrap();
        let a: Vec<u64> = (0..n as u64).map(|i| (i * 31 + 7) % t).collect();
        let b: Vec<u64> = (0..n as u64).map(|i| (i * i + 3) % t).collect();
        let (pa, pb) = (pm.encode_slots(&a).unwrap(), pm.encode_slots(&b).unwrap());
        // Negacyclic product mod t, schoolbook.
        let mut c = vec![0u64; n];
        for i in 0..n {
            for j in 0..n {
                let p = pa.coeffs[i] * pb.coeffs[j] % t;
                let k = (i + j) % n;
                c[k] = if i + j < n {
                    (c[k] + p) % t
                } else {
                    (c[k] + t - p) % t
                };
            }
        }
        let got = pm.decode_slots(&Plaintext { coeffs: c, t }).unwrap();
        let want: Vec<u64> = a.iter().zip(&b).map(|(x, y)| x * y % t).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn batching_errors_say_why() {
        let e = PlaintextModulus::new(65537, 1 << 16).unwrap();
        assert_eq!(
            e.batching_error().unwrap().split(':').next().unwrap(),
            "65537 is not 1 mod 2^17 at N = 2^16"
        );
        assert!(e.encode_slots(&[1]).is_err());
        let two = PlaintextModulus::new(2, 1 << 10).unwrap();
        assert!(two
            .batching_error()
            .unwrap()
            .contains("2 is not 1 mod 2^11"));
        let composite = PlaintextModulus::new(65535, 16).unwrap();
        assert!(composite.batching_error().unwrap().contains("not prime"));
        let pt = two.encode_coefficients(&[1, 0, 1]).unwrap();
        assert_eq!(&two.decode_coefficients(&pt).unwrap()[..3], &[1, 0, 1]);
        assert!(PlaintextModulus::new(1, 16).is_err());
        assert!(PlaintextModulus::new(1 << 61, 16).is_err());
        assert!(two.encode_coefficients(&[2]).is_err());
        assert!(two.encode_coefficients(&vec![0; 1025]).is_err());
        assert!(PlaintextModulus::new(65537, 1 << 15)
            .unwrap()
            .supports_batching());
    }
}
