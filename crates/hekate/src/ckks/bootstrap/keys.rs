//! The keys one bootstrap needs, and their generation.

use super::bootstrapper::{labelled_elements, relinearization_level};
use super::config::BootstrapConfig;
use super::encapsulation::EncapsulationKeys;
use crate::ckks::CkksContext;
use crate::math::sample;
use crate::rlwe::evaluation_keys::{EvaluationKeySet, GaloisKeys};
use crate::rlwe::SecretKey;
use crate::Result;
use rand_chacha::rand_core::{CryptoRng, RngCore};
use std::sync::Arc;

/// The public keys of a [`Bootstrapper`](super::Bootstrapper): the evaluation keys (a
/// relinearization key and the Galois keys of [`galois_elements`], shareable with the
/// application's evaluator) and, with sparse-secret encapsulation, its two switching keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BootstrapKeys {
    /// The relinearization and Galois keys.
    pub evaluation: Arc<EvaluationKeySet>,
    /// The encapsulation keys (`Some` exactly when the configuration has an
    /// `ephemeral_weight`).
    pub encapsulation: Option<EncapsulationKeys>,
}

impl BootstrapKeys {
    /// Total size of the keys in memory, in bytes.
    pub fn size_bytes(&self) -> usize {
        self.evaluation.size_bytes()
            + self
                .encapsulation
                .as_ref()
                .map_or(0, EncapsulationKeys::size_bytes)
    }
}

/// Evaluation keys alone (configurations without encapsulation).
impl From<Arc<EvaluationKeySet>> for BootstrapKeys {
    fn from(evaluation: Arc<EvaluationKeySet>) -> Self {
        BootstrapKeys {
            evaluation,
            encapsulation: None,
        }
    }
}

/// Evaluation keys alone (configurations without encapsulation).
impl From<EvaluationKeySet> for BootstrapKeys {
    fn from(evaluation: EvaluationKeySet) -> Self {
        Arc::new(evaluation).into()
    }
}

/// The Galois elements one bootstrap uses, known before any key exists: the rotations of
/// both DFTs' BSGS plans, the SubSum rotations (sparse packing) and conjugation; increasing.
pub fn galois_elements(ctx: &CkksContext, config: &BootstrapConfig) -> Result<Vec<usize>> {
    Ok(labelled_elements(ctx, config)?.into_keys().collect())
}

/// The keys one bootstrap uses with the highest level each is used at, known before any
/// key exists: `(g, l)` for each Galois element of [`galois_elements`] (increasing), then
/// the relinearization key's level (EvalMod's first). [`generate_keys`] generates each key
/// for exactly its level (with the hybrid engine a key for levels `<= l` has
/// `ceil((l + 1) / α)` digits over `Q_l ∪ P`: CoeffsToSlots's keys are the widest,
/// SlotsToCoeffs's about half as wide).
pub fn key_levels(
    ctx: &CkksContext,
    config: &BootstrapConfig,
) -> Result<(Vec<(usize, usize)>, usize)> {
    let galois = labelled_elements(ctx, config)?
        .into_iter()
        .map(|(g, u)| (g, u.level))
        .collect();
    Ok((galois, relinearization_level(ctx, config)))
}

/// The keys one bootstrap needs: a relinearization key, exactly the Galois keys of
/// [`galois_elements`], each only as wide as the level it is used at ([`key_levels`]),
/// and the encapsulation keys when `config` has an ephemeral weight.
/// `progress(done, total)` is called after each key.
pub fn generate_keys_with<R: RngCore + CryptoRng>(
    ctx: &CkksContext,
    config: &BootstrapConfig,
    sk: &SecretKey,
    rng: &mut R,
    mut progress: impl FnMut(usize, usize),
) -> Result<BootstrapKeys> {
    ctx.rlwe().check_ring_id(sk.ring_id(), "secret key")?;
    let (elements, relin_level) = key_levels(ctx, config)?;
    let extra = if config.ephemeral_weight.is_some() {
        2
    } else {
        0
    };
    let total = elements.len() + 1 + extra;
    let rlk = ctx
        .rlwe()
        .generate_relinearization_key_at_with(sk, relin_level, rng)?;
    progress(1, total);
    let mut keys = Vec::with_capacity(elements.len());
    for (i, &(g, level)) in elements.iter().enumerate() {
        keys.push(ctx.rlwe().generate_galois_key_at_with(sk, g, level, rng)?);
        progress(i + 2, total);
    }
    let encapsulation = match config.ephemeral_weight {
        Some(h) => {
            let k = EncapsulationKeys::generate_with(ctx, sk, h, rng)?;
            progress(total, total);
            Some(k)
        }
        None => None,
    };
    Ok(BootstrapKeys {
        evaluation: Arc::new(EvaluationKeySet::new(
            Some(rlk),
            keys.into_iter().collect::<GaloisKeys>(),
        )),
        encapsulation,
    })
}

/// [`generate_keys_with`] with the operating system's randomness and no progress report.
pub fn generate_keys(
    ctx: &CkksContext,
    config: &BootstrapConfig,
    sk: &SecretKey,
) -> Result<BootstrapKeys> {
    generate_keys_with(ctx, config, sk, &mut sample::os_rng(), |_, _| {})
}
