//! Key switching whose engine depends on the level: hybrid at some levels, KLSS at the
//! others ([`KeySwitchMethod::Mixed`](super::KeySwitchMethod::Mixed), what
//! [`KeySwitchMethod::Auto`](super::KeySwitchMethod::Auto) resolves to when the cost model's
//! pick changes with the level).
//!
//! Both engines give the same words for the same key (the KLSS key is the hybrid key
//! decomposed again, and every step is exact), so choosing per level changes speed only.
//! A mixed engine keeps every key in both forms: the ordinary hybrid key and its KLSS
//! expansion
//! ([`KeyStorage::ExpandedWithOrdinary`](super::KeyStorage::ExpandedWithOrdinary)), so its
//! keys take the memory of both.
//!
//! The choice is made where a key switch starts ([`MixedKeySwitcher::klss_at`] on the
//! input's chain limbs); decompositions and accumulators carry their engine from then on.

use super::{HybridKeySwitcher, KlssKeySwitcher};
use crate::{Error, Result};

/// A set of chain-limb counts `1..=256`: the levels (as `q_limbs = level + 1`) at which a
/// mixed engine runs KLSS.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LevelSet([u64; 4]);

impl LevelSet {
    /// The largest limb count a set can hold.
    pub const MAX_LIMBS: usize = 256;

    /// The set of the given limb counts (each in `1..=256`).
    pub fn from_limbs(limbs: impl IntoIterator<Item = usize>) -> Result<Self> {
        let mut s = LevelSet::default();
        for l in limbs {
            if !(1..=Self::MAX_LIMBS).contains(&l) {
                return Err(Error::InvalidParameters(format!(
                    "limb count {l} is outside 1..={}",
                    Self::MAX_LIMBS
                )));
            }
            s.0[(l - 1) / 64] |= 1 << ((l - 1) % 64);
        }
        Ok(s)
    }

    /// Whether `q_limbs` is in the set.
    pub fn contains(&self, q_limbs: usize) -> bool {
        (1..=Self::MAX_LIMBS).contains(&q_limbs)
            && self.0[(q_limbs - 1) / 64] >> ((q_limbs - 1) % 64) & 1 == 1
    }

    /// The limb counts in the set, increasing.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (1..=Self::MAX_LIMBS).filter(|&l| self.contains(l))
    }

    /// How many limb counts the set holds.
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }
}

/// Hybrid and KLSS engines over one ring, KLSS at the limb counts of a [`LevelSet`].
#[derive(Debug)]
pub struct MixedKeySwitcher {
    /// The hybrid engine (and the ordinary keys' shape).
    pub hybrid: HybridKeySwitcher,
    /// The KLSS engine.
    pub klss: KlssKeySwitcher,
    /// Where KLSS runs.
    pub levels: LevelSet,
}

impl MixedKeySwitcher {
    /// Whether a key switch of a polynomial with `q_limbs` chain limbs runs KLSS.
    pub fn klss_at(&self, q_limbs: usize) -> bool {
        self.levels.contains(q_limbs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_sets_hold_exactly_their_members() {
        let s = LevelSet::from_limbs([1, 2, 64, 65, 200, 256]).unwrap();
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![1, 2, 64, 65, 200, 256]);
        assert_eq!(s.len(), 6);
        assert!(!s.contains(0) && !s.contains(3) && !s.contains(257));
        assert!(LevelSet::default().is_empty());
        assert!(LevelSet::from_limbs([0]).is_err());
        assert!(LevelSet::from_limbs([257]).is_err());
    }
}
