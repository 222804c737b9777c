//! Parameters and the context of an integer scheme (BFV or BGV): the RLWE core's chain and
//! engines plus the plaintext modulus `t` and the per-limb constants of the
//! representation ([module documentation](super)).

use super::plaintext::PlaintextModulus;
use crate::math::modulus::Modulus;
use crate::math::rns::{BaseConverter, RnsBasis};
use crate::params::security::SecurityLevel;
use crate::ring::{fnv1a64, RingContext};
use crate::rlwe::keyswitch::{KeyStorage, KeySwitchEngine, KeySwitchMethod};
use crate::rlwe::params::{ChainBuilder, RlweParameters};
use crate::rlwe::SecretDistribution;
use crate::{Error, Result};
use std::sync::{Arc, OnceLock};

/// Which scheme a context runs: the only difference the evaluator sees is the
/// multiplication (and whether BGV switches moduli by itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// BFV: scale-invariant multiplication (the noise is divided by `Q/t` at each product,
    /// so no modulus switching is needed).
    Bfv,
    /// BGV: plain tensor products; the noise is kept small by modulus switching.
    Bgv,
}

impl Scheme {
    /// `"BFV"` or `"BGV"`.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Bfv => "BFV",
            Scheme::Bgv => "BGV",
        }
    }
}

/// When BGV switches moduli.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ModSwitching {
    /// Every multiplication ends with the modulus switches its noise calls for: one per
    /// product for small `t` (OpenFHE's FIXEDAUTO, Lattigo's `MulRelin` + `Rescale`),
    /// more when `t` is large. The default.
    #[default]
    Auto,
    /// Only when the caller asks ([`Evaluator::mod_switch`](super::Evaluator::mod_switch)).
    Manual,
}

/// The parameters of an integer scheme; build with [`IntegerParameters::build`]. The BFV
/// and BGV façades ([`crate::bfv::BfvParameters`], [`crate::bgv::BgvParameters`]) wrap it.
#[derive(Clone, Debug, PartialEq)]
pub struct IntegerParameters {
    pub(crate) chain: ChainBuilder,
    pub(crate) t: u64,
    pub(crate) scheme: Scheme,
    pub(crate) mod_switching: ModSwitching,
    pub(crate) mul_variant: super::MulVariant,
}

impl IntegerParameters {
    /// Parameters of `scheme` at ring degree `N = 2^log_n`, plaintext modulus 65537 until
    /// [`IntegerParameters::plaintext_modulus`] says otherwise.
    pub fn new(scheme: Scheme, log_n: u32) -> Self {
        IntegerParameters {
            chain: ChainBuilder::new(log_n),
            t: 65537,
            scheme,
            mod_switching: ModSwitching::Auto,
            mul_variant: super::MulVariant::default(),
        }
    }

    /// The plaintext modulus `t` (`2 <= t < 2^61`, coprime to every prime of the chain).
    pub fn plaintext_modulus(mut self, t: u64) -> Self {
        self.t = t;
        self
    }

    /// The chain builder, for the options shared with every RLWE scheme.
    pub fn chain(mut self, f: impl FnOnce(ChainBuilder) -> ChainBuilder) -> Self {
        self.chain = f(self.chain);
        self
    }

    /// Bit sizes of the chain primes `q_0 .. q_L`.
    pub fn log_q(self, bits: &[u32]) -> Self {
        self.chain(|c| c.log_q(bits))
    }

    /// Bit sizes of the special primes `P`.
    pub fn log_p(self, bits: &[u32]) -> Self {
        self.chain(|c| c.log_p(bits))
    }

    /// Explicit chain primes.
    pub fn q_primes(self, primes: &[u64]) -> Self {
        self.chain(|c| c.q_primes(primes))
    }

    /// Explicit special primes.
    pub fn p_primes(self, primes: &[u64]) -> Self {
        self.chain(|c| c.p_primes(primes))
    }

    /// The number of key-switching digits.
    pub fn dnum(self, dnum: usize) -> Self {
        self.chain(|c| c.dnum(dnum))
    }

    /// The key-switching engine (hybrid, KLSS, linear or `Auto`).
    pub fn key_switching(self, method: KeySwitchMethod) -> Self {
        self.chain(|c| c.key_switching(method))
    }

    /// How switching keys are stored.
    pub fn key_storage(self, storage: KeyStorage) -> Self {
        self.chain(|c| c.key_storage(storage))
    }

    /// The secret distribution.
    pub fn secret(self, secret: SecretDistribution) -> Self {
        self.chain(|c| c.secret(secret))
    }

    /// The security level checked at build time.
    pub fn security(self, level: SecurityLevel) -> Self {
        self.chain(|c| c.security(level))
    }

    /// When BGV switches moduli (ignored by BFV, whose products do not need it).
    pub fn mod_switching(mut self, m: ModSwitching) -> Self {
        self.mod_switching = m;
        self
    }

    /// How BFV's scale-invariant product rounds (ignored by BGV).
    pub fn mul_variant(mut self, v: super::MulVariant) -> Self {
        self.mul_variant = v;
        self
    }

    /// Builds the context (the chain's checks, then `t`'s: its range, and coprimality
    /// with every chain and special prime).
    pub fn build(self) -> Result<Arc<IntegerContext>> {
        IntegerContext::new(self)
    }
}

/// The context of a BFV or BGV instance: the RLWE parameters (chain, special primes,
/// engine, security), the plaintext modulus with its encoders, and the constants of the
/// representation.
#[derive(Debug)]
pub struct IntegerContext {
    rlwe: Arc<RlweParameters>,
    t: PlaintextModulus,
    scheme: Scheme,
    mod_switching: ModSwitching,
    mul_variant: super::MulVariant,
    /// Per chain limb `i`: `[t]_{q_i}` and `[t^-1]_{q_i}`.
    t_mod_q: Vec<u64>,
    t_inv_mod_q: Vec<u64>,
    /// Per chain limb `i`: `[q_i^-1]_t` (the factor of a modulus switch dropping `q_i`).
    q_inv_mod_t: Vec<u64>,
    /// Per level `ℓ`: `κ_ℓ = [-Q_ℓ^-1]_t`, the factor of a scale-invariant product.
    kappa: Vec<u64>,
    /// Per level: the exact centered conversion `Q_ℓ -> {t}` (built on first use).
    to_t: Vec<OnceLock<BaseConverter>>,
    /// Per level: the scale-invariant tensor's auxiliary basis (built on first use).
    pub(crate) tensors: Vec<OnceLock<super::tensor::ScaleInvariantTensor>>,
}

impl IntegerContext {
    fn new(p: IntegerParameters) -> Result<Arc<Self>> {
        let rlwe = p.chain.build()?;
        let ring = rlwe.ring().clone();
        let t = PlaintextModulus::new(p.t, ring.n())?;
        let tm = *t.modulus();
        let primes: Vec<u64> = ring
            .q()
            .moduli()
            .iter()
            .chain(ring.p().moduli())
            .map(Modulus::value)
            .collect();
        if let Some(&q) = primes.iter().find(|&&q| gcd(q, p.t) != 1) {
            return Err(Error::InvalidParameters(format!(
                "the plaintext modulus t = {} shares a factor with the prime {q} of the \
                 chain: pick another t or other primes",
                p.t
            )));
        }
        let qm = ring.q().moduli();
        let t_mod_q: Vec<u64> = qm.iter().map(|q| q.reduce(p.t)).collect();
        let t_inv_mod_q = qm
            .iter()
            .zip(&t_mod_q)
            .map(|(q, &x)| q.inv(x).expect("t coprime to q"))
            .collect();
        let q_inv_mod_t: Vec<u64> = qm
            .iter()
            .map(|q| tm.inv(tm.reduce(q.value())).expect("q coprime to t"))
            .collect();
        let mut kappa = Vec::with_capacity(qm.len());
        let mut q_inv = 1u64; // [Q_ℓ^-1]_t
        for &w in &q_inv_mod_t {
            q_inv = tm.mul(q_inv, w);
            kappa.push(tm.neg(q_inv));
        }
        let levels = qm.len();
        Ok(Arc::new(IntegerContext {
            rlwe: Arc::new(rlwe),
            t,
            scheme: p.scheme,
            mod_switching: p.mod_switching,
            mul_variant: p.mul_variant,
            t_mod_q,
            t_inv_mod_q,
            q_inv_mod_t,
            kappa,
            to_t: (0..levels).map(|_| OnceLock::new()).collect(),
            tensors: (0..levels).map(|_| OnceLock::new()).collect(),
        }))
    }

    /// The RLWE parameters (chain, special primes, engine, key generation).
    pub fn rlwe(&self) -> &Arc<RlweParameters> {
        &self.rlwe
    }

    /// The ring.
    pub fn ring(&self) -> &Arc<RingContext> {
        self.rlwe.ring()
    }

    /// The ring degree `N`.
    pub fn n(&self) -> usize {
        self.rlwe.n()
    }

    /// The top level `L` (the chain has `L + 1` primes).
    pub fn max_level(&self) -> usize {
        self.rlwe.max_level()
    }

    /// The scheme (BFV or BGV).
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// When BGV switches moduli.
    pub fn mod_switching(&self) -> ModSwitching {
        self.mod_switching
    }

    /// BFV's product variant.
    pub fn mul_variant(&self) -> super::MulVariant {
        self.mul_variant
    }

    /// The plaintext modulus `t` with its encoders.
    pub fn plaintext_modulus(&self) -> &PlaintextModulus {
        &self.t
    }

    /// `t`.
    pub fn t(&self) -> u64 {
        self.t.value()
    }

    /// The chain primes.
    pub fn q_primes(&self) -> Vec<u64> {
        self.rlwe.q_primes()
    }

    /// The special primes.
    pub fn p_primes(&self) -> Vec<u64> {
        self.rlwe.p_primes()
    }

    /// `log2(Q P)`.
    pub fn log_qp(&self) -> f64 {
        self.rlwe.log_qp()
    }

    /// The security level the parameters were checked against.
    pub fn security(&self) -> SecurityLevel {
        self.rlwe.security()
    }

    /// The key-switching engine.
    pub fn keyswitcher(&self) -> &KeySwitchEngine {
        self.rlwe.keyswitcher()
    }

    /// `log2 Q_ℓ`.
    pub fn log_q_at(&self, level: usize) -> f64 {
        self.ring().q().moduli()[..=level]
            .iter()
            .map(|q| (q.value() as f64).log2())
            .sum()
    }

    pub(crate) fn t_mod_q(&self) -> &[u64] {
        &self.t_mod_q
    }

    pub(crate) fn t_inv_mod_q(&self) -> &[u64] {
        &self.t_inv_mod_q
    }

    /// `[q_i^-1]_t`.
    pub(crate) fn q_inv_mod_t(&self, i: usize) -> u64 {
        self.q_inv_mod_t[i]
    }

    /// `κ_ℓ = [-Q_ℓ^-1]_t`.
    pub(crate) fn kappa(&self, level: usize) -> u64 {
        self.kappa[level]
    }

    /// The exact centered conversion `Q_ℓ -> {t}`.
    pub(crate) fn to_t(&self, level: usize) -> &BaseConverter {
        self.to_t[level].get_or_init(|| {
            let from = RnsBasis::from_moduli(self.ring().q().moduli()[..=level].to_vec());
            let to = RnsBasis::from_moduli(vec![*self.t.modulus()]);
            BaseConverter::new(&from, &to)
        })
    }

    /// The auxiliary primes `R` of BFV's scale-invariant product at `level` (built on
    /// first use; see [`MulVariant`](super::MulVariant)).
    pub fn auxiliary_primes(&self, level: usize) -> Result<Vec<u64>> {
        self.rlwe.check_level(level)?;
        Ok(self.tensor(level)?.aux_primes())
    }

    /// The scale-invariant tensor at `level` (its auxiliary basis is built on first use).
    pub(crate) fn tensor(&self, level: usize) -> Result<&super::tensor::ScaleInvariantTensor> {
        if let Some(t) = self.tensors[level].get() {
            return Ok(t);
        }
        let built = super::tensor::ScaleInvariantTensor::new(self.ring(), level + 1, self.t())?;
        Ok(self.tensors[level].get_or_init(|| built))
    }

    /// The fingerprint objects of this context carry: the ring's, mixed with `t` (a
    /// ciphertext mod `t` is meaningless under another plaintext modulus).
    pub fn fingerprint(&self) -> u64 {
        integer_fingerprint(self.ring().fingerprint(), self.t())
    }

    /// Refuses an object made under another context (ring or `t`).
    pub(crate) fn check_id(&self, id: u64, what: &str) -> Result<()> {
        if id != self.fingerprint() {
            return Err(Error::ParameterMismatch(format!(
                "the {what} belongs to another context (fingerprint {id:#018x}, this \
                 context's is {:#018x}: another ring or plaintext modulus)",
                self.fingerprint()
            )));
        }
        Ok(())
    }

    pub(crate) fn check_ring_id(&self, ring_id: u64, what: &str) -> Result<()> {
        self.rlwe.check_ring_id(ring_id, what)
    }
}

/// [`fnv1a64`] of the little-endian `u64`s of the ring fingerprint and `t`: the
/// fingerprint of an [`IntegerContext`] (also computed from a parameter body before the
/// context is built).
pub(crate) fn integer_fingerprint(ring_fingerprint: u64, t: u64) -> u64 {
    let mut bytes = ring_fingerprint.to_le_bytes().to_vec();
    bytes.extend_from_slice(&t.to_le_bytes());
    fnv1a64(&bytes)
}

pub(crate) fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
