//! Leveled BFV products: drop the top primes the noise has made useless before the
//! tensor, and come back to the full modulus after relinearization (OpenFHE's
//! `HPSPOVERQLEVELED` idea, in this crate's representation).
//!
//! # Why it is exact
//!
//! A BFV ciphertext at level `ℓ` with factor `α` decrypts to `[t^-1]_{Q} α m + e` with
//! `[t^-1]_Q = (1 + κ Q) / t`, `κ = [-Q^-1]_t` (see [`integer`](crate::rlwe::integer)).
//!
//! * **Down** by `Q_d` (the top `k` primes, `Q = Q' Q_d`): `c' = round(c / Q_d)`, BFV's
//!   rounding without BGV's `t`-correction ([`Poly::divide_round_by_last_q`], `k` times).
//!   Then `c'_0 + c'_1 s = [t^-1]_{Q'} α' m + e'` with `α' = κ'^-1 κ α` (`κ' = κ` of `Q'`),
//!   since `κ α m Q / t / Q_d = κ α m Q' / t ≡ [t^-1]_{Q'} κ'^-1 κ α m` modulo `Q'` up to
//!   less than 1, and `e' = e / Q_d + r_0 + r_1 s` plus that fraction (`|r_i| ≤ 1/2`).
//! * The **tensor and relinearization** run over `Q'`: `ℓ + 1 - k` limbs instead of
//!   `ℓ + 1`, for the tensor's `Q ∪ R` products and conversions and for the key switch.
//! * **Up** by `Q_d`: `c = Q_d · c'` over `Q` (zero residues modulo the dropped primes),
//!   which decrypts to `[t^-1]_Q α'' m + Q_d e'` plus less than `Q_d` with
//!   `α'' = κ^-1 κ' α'`. Down and up together leave the factor of a product where the
//!   plain one puts it (`κ α_a α_b`).
//!
//! # What it costs in noise
//!
//! Writing `σ^2` for the variance of `t e` as in [`noise`](crate::rlwe::integer::noise),
//! with `ρ = t^2 (1 + N V_s) / 12 + t^2 / 12` for one rounding and `T(·)` and `K` the tensor
//! and key-switch rules, the plain product has `T(σ_a^2, σ_b^2) + K` and the leveled one
//! `Q_d^2 (T(σ_a^2 / Q_d^2 + ρ, σ_b^2 / Q_d^2 + ρ) + K' + ρ)`. `T` is linear in its
//! operands' variances, so the two agree while `Q_d^2 ρ` stays below the operands'
//! variances: fresh ciphertexts drop nothing, and a product deep in a chain (whose noise
//! has grown by about `2 t N` per level) drops about one prime per two levels.
//! [`Evaluator::leveled_primes`] takes the largest `k` whose estimate is at most twice
//! the plain one (half a bit of budget).

use super::*;

impl Evaluator {
    /// Turns leveled BFV products on or off (off by default; BGV ignores it): with it,
    /// [`Evaluator::mul`] and [`Evaluator::square`] drop the top primes the noise allows
    /// before the tensor ([`Evaluator::leveled_primes`]) and return to the operands'
    /// level after relinearization, with at most half a bit less estimated budget. The
    /// results decrypt to the same values; the words differ from the plain product's.
    pub fn with_leveled_products(mut self, on: bool) -> Self {
        self.leveled = on;
        self
    }

    /// Whether BFV products are leveled ([`Evaluator::with_leveled_products`]).
    pub fn leveled_products(&self) -> bool {
        self.leveled
    }

    /// How many top primes a leveled product of `a` and `b` drops: the largest `k` whose
    /// estimated noise is at most twice the plain product's (0 for BGV, and for fresh
    /// ciphertexts). Computed whether or not leveling is on.
    pub fn leveled_primes(&self, a: &Ciphertext, b: &Ciphertext) -> usize {
        if self.ctx.scheme() != Scheme::Bfv {
            return 0;
        }
        let level = a.level().min(b.level());
        let square = a.parts == b.parts;
        let (la, lb) = (2.0 * a.noise, 2.0 * b.noise);
        let plain = self.leveled_log_variance(la, lb, square, level, 0.0);
        let q = self.ring().q().moduli();
        let mut log_qd = 0.0;
        let mut k = 0;
        while k < level {
            let next = log_qd + (q[level - k].value() as f64).log2();
            if self.leveled_log_variance(la, lb, square, level - k - 1, next) > plain + 1.0 {
                break;
            }
            k += 1;
            log_qd = next;
        }
        k
    }

    /// `log2` of the estimated variance of a product of operands of variances `2^la`,
    /// `2^lb`, switched down by `Q_d = 2^log_qd` to `low`, relinearized there and
    /// switched back up (`log_qd = 0`: the plain product at `low`).
    fn leveled_log_variance(&self, la: f64, lb: f64, square: bool, low: usize, log_qd: f64) -> f64 {
        let rho = self.switch_log_variance();
        let down = |lv: f64| {
            if log_qd == 0.0 {
                lv
            } else {
                log2_add(lv - 2.0 * log_qd, rho)
            }
        };
        let tensor = bfv_tensor_log_variance_of(&self.ctx, (down(la), la), (down(lb), lb), square);
        let relin = self.key_switched_log_variance(tensor, low);
        if log_qd == 0.0 {
            relin
        } else {
            2.0 * log_qd + log2_add(relin, rho)
        }
    }

    /// `log2 ρ`: the variance one BFV switch (down or up) adds, a rounding plus the
    /// message's fractional term (module documentation).
    fn switch_log_variance(&self) -> f64 {
        (rounding_variance(&self.ctx) + message_variance(&self.ctx)).log2()
    }

    /// The leveled product, when leveling is on and drops at least one prime.
    pub(super) fn leveled_mul(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Option<Ciphertext>> {
        if !self.leveled || self.ctx.scheme() != Scheme::Bfv {
            return Ok(None);
        }
        self.ctx.check_ciphertext(a)?;
        self.ctx.check_ciphertext(b)?;
        let k = self.leveled_primes(a, b);
        if k == 0 {
            return Ok(None);
        }
        let level = a.level().min(b.level());
        let square = a.parts == b.parts;
        let (da, db) = (self.at_level(a, level), self.at_level(b, level));
        let da = self.bfv_down(&da, k);
        let product = if square {
            self.mul_no_relin(&da, &da)?
        } else {
            self.mul_no_relin(&da, &self.bfv_down(&db, k))?
        };
        let low = self.relinearize(&product)?;
        let mut out = self.bfv_up(&low, level);
        // The noise rule with the operands' own degrees in s (the rounded-down copies'
        // magnitudes no longer show them: noise::bfv_tensor_log_variance_of).
        let log_qd: f64 = self.ring().q().moduli()[level - k + 1..=level]
            .iter()
            .map(|q| (q.value() as f64).log2())
            .sum();
        let lv = self.leveled_log_variance(2.0 * a.noise, 2.0 * b.noise, square, level - k, log_qd);
        out.noise = 0.5 * lv;
        Ok(Some(out))
    }

    /// BFV's modulus switch down by the top `k` primes: `round(c / Q_d)`, factor
    /// `κ'^-1 κ α` (module documentation).
    fn bfv_down(&self, ct: &Ciphertext, k: usize) -> Ciphertext {
        let (level, low) = (ct.level(), ct.level() - k);
        let mut parts = ct.parts.clone();
        for p in &mut parts {
            for _ in 0..k {
                p.divide_round_by_last_q(self.ring());
            }
        }
        let t = self.t_mod();
        let kappa_low_inv = t.inv(self.ctx.kappa(low)).expect("κ is a unit mod t");
        let factor = t.mul(t.mul(kappa_low_inv, self.ctx.kappa(level)), ct.factor);
        let log_qd: f64 = self.ring().q().moduli()[low + 1..=level]
            .iter()
            .map(|q| (q.value() as f64).log2())
            .sum();
        let rho = self.switch_log_variance();
        let noise = 0.5 * log2_add(2.0 * ct.noise - 2.0 * log_qd, rho);
        Self::result(ct, parts, factor, noise)
    }

    /// Back up to `level`: `Q_d · c` over `Q_level` (zero modulo the dropped primes),
    /// factor `κ^-1 κ' α`.
    fn bfv_up(&self, ct: &Ciphertext, level: usize) -> Ciphertext {
        let ring = self.ring();
        let (low, n) = (ct.level(), self.ctx.n());
        let q = ring.q().moduli();
        let (l1, lo1) = (level + 1, low + 1);
        let mut parts = Vec::with_capacity(ct.parts.len());
        for p in &ct.parts {
            let mut up = ring.scratch_poly(l1, 0, p.form());
            let data = up.data_mut();
            for (i, qi) in q[..lo1].iter().enumerate() {
                // [Q_d]_{q_i}
                let qd = q[lo1..l1]
                    .iter()
                    .fold(1u64, |acc, d| qi.mul(acc, qi.reduce(d.value())));
                let (src, dst) = (p.limb(i), &mut data[i * n..(i + 1) * n]);
                let qds = qi.shoup(qd);
                for (o, &x) in dst.iter_mut().zip(src) {
                    *o = qi.mul_shoup(x, qd, qds);
                }
            }
            data[lo1 * n..].fill(0);
            parts.push(up);
        }
        let t = self.t_mod();
        let kappa_inv = t.inv(self.ctx.kappa(level)).expect("κ is a unit mod t");
        let factor = t.mul(t.mul(kappa_inv, self.ctx.kappa(low)), ct.factor);
        let log_qd: f64 = q[lo1..l1].iter().map(|q| (q.value() as f64).log2()).sum();
        let rho = self.switch_log_variance();
        let noise = 0.5 * (2.0 * log_qd + log2_add(2.0 * ct.noise, rho));
        Self::result(ct, parts, factor, noise)
    }
}
