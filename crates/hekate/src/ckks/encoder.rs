//! The CKKS encoder: complex (or real) vectors <-> scaled integer polynomials.
//!
//! Encoding `n` values (`n` a power of two, `n <= N/2`; sparse packing when `n < N/2`)
//! runs the inverse special FFT (`math::fft`) to get the `2n` real coefficients of
//! `m'(Y)`, multiplies by the scale `Δ`, rounds, and places coefficient `k` at `X^(k·N/2n)`
//! (`Y = X^(N/2n)`). The rounded integers are reduced into each limb exactly whatever their
//! size ([`Modulus::reduce_f64`](crate::math::Modulus::reduce_f64)); encoding refuses
//! values whose scaled coefficients would not fit in `(-Q_l/2, Q_l/2)`.
//!
//! Decoding reconstructs the centered coefficients exactly (Garner CRT, no big integers),
//! divides by `Δ` and runs the forward special FFT. Rounding to the integers adds an error
//! of at most `1/2` per coefficient, i.e. about `sqrt(n/12)/Δ` per slot in the canonical
//! norm — the "encoding error" every CKKS precision bound starts from.

use super::scale::Scale;
use crate::math::fft::SpecialFft;
use crate::ring::{Form, Poly, RingContext};
use crate::{Error, Result};
use num_complex::Complex64;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Encodes and decodes CKKS plaintext polynomials (one per context; FFTs cached per slot
/// count).
#[derive(Debug)]
pub struct Encoder {
    ring: Arc<RingContext>,
    ffts: Mutex<HashMap<usize, Arc<SpecialFft>>>,
}

impl Encoder {
    /// The encoder for a ring.
    pub fn new(ring: Arc<RingContext>) -> Self {
        Encoder {
            ring,
            ffts: Mutex::new(HashMap::new()),
        }
    }

    /// Checks a slot count: a power of two in `[1, N/2]`.
    pub fn check_slots(&self, slots: usize) -> Result<()> {
        if !slots.is_power_of_two() || slots > self.ring.n() / 2 {
            return Err(Error::InvalidParameters(format!(
                "slot count {slots} must be a power of two in [1, N/2 = {}]",
                self.ring.n() / 2
            )));
        }
        Ok(())
    }

    fn fft(&self, slots: usize) -> Arc<SpecialFft> {
        let mut cache = self.ffts.lock().expect("FFT cache poisoned");
        cache
            .entry(slots)
            .or_insert_with(|| Arc::new(SpecialFft::new(slots).expect("checked slot count")))
            .clone()
    }

    /// Encodes `values` (at most `slots` of them; the rest are zero) at `scale` over the
    /// first `q_limbs` chain primes, in NTT form.
    pub fn encode(
        &self,
        values: &[Complex64],
        slots: usize,
        q_limbs: usize,
        scale: &Scale,
    ) -> Result<Poly> {
        self.encode_over(values, slots, q_limbs, 0, scale)
    }

    /// [`Encoder::encode`] over the first `q_limbs` chain primes and the first `p_limbs`
    /// special primes: the same integer polynomial (it fits modulo the chain primes)
    /// reduced modulo each, in NTT form.
    pub fn encode_over(
        &self,
        values: &[Complex64],
        slots: usize,
        q_limbs: usize,
        p_limbs: usize,
        scale: &Scale,
    ) -> Result<Poly> {
        self.check_slots(slots)?;
        if values.len() > slots {
            return Err(Error::InvalidMessage(format!(
                "{} values do not fit in {slots} slots",
                values.len()
            )));
        }
        if let Some(i) = values
            .iter()
            .position(|v| !(v.re.is_finite() && v.im.is_finite()))
        {
            return Err(Error::InvalidMessage(format!(
                "value {i} is not finite ({})",
                values[i]
            )));
        }
        let mut padded = values.to_vec();
        padded.resize(slots, Complex64::new(0.0, 0.0));
        let mut coeffs = vec![0.0f64; 2 * slots];
        self.fft(slots).coeffs_from_slots(&padded, &mut coeffs);
        let delta = scale.to_f64();
        let mut max_abs = 0.0f64;
        for c in coeffs.iter_mut() {
            *c = (*c * delta).round();
            max_abs = max_abs.max(c.abs());
        }
        let log_q: f64 = self.ring.q().moduli()[..q_limbs]
            .iter()
            .map(|m| (m.value() as f64).log2())
            .sum();
        if !max_abs.is_finite() || max_abs.log2() >= log_q - 1.0 {
            return Err(Error::InvalidMessage(format!(
                "scaled values reach 2^{:.1}, which does not fit modulo Q = 2^{log_q:.1} at \
                 this level: lower the scale ({scale}) or the values, or encode at a higher level",
                max_abs.log2()
            )));
        }
        let n = self.ring.n();
        let gap = n / (2 * slots);
        let mut poly = self.ring.zero(q_limbs, p_limbs, Form::Coeff);
        for (i, limb) in poly.limbs_mut().enumerate() {
            let m = self.ring.modulus(i, q_limbs);
            for (k, &c) in coeffs.iter().enumerate() {
                limb[k * gap] = m.reduce_f64(c);
            }
        }
        poly.ntt(&self.ring);
        Ok(poly)
    }

    /// Decodes a plaintext polynomial (either form) with `slots` slots at `scale`.
    pub fn decode(&self, poly: &Poly, slots: usize, scale: &Scale) -> Result<Vec<Complex64>> {
        self.check_slots(slots)?;
        let mut p = poly.clone();
        p.intt(&self.ring);
        let (n, q_limbs) = (self.ring.n(), p.q_limbs());
        let gap = n / (2 * slots);
        let m = 2 * slots;
        // Gather the coefficients at the gap positions, limb-major.
        let mut residues = vec![0u64; q_limbs * m];
        for (i, limb) in p.limbs().enumerate() {
            for k in 0..m {
                residues[i * m + k] = limb[k * gap];
            }
        }
        let mut digits = vec![0u64; residues.len()];
        let mut coeffs = vec![0.0f64; m];
        self.ring
            .crt()
            .centered_f64(&residues, &mut digits, m, &mut coeffs);
        let inv = 1.0 / scale.to_f64();
        coeffs.iter_mut().for_each(|c| *c *= inv);
        let mut out = vec![Complex64::new(0.0, 0.0); slots];
        self.fft(slots).slots_from_coeffs(&coeffs, &mut out);
        Ok(out)
    }
}
