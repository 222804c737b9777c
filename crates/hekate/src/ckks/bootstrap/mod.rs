//! CKKS bootstrapping (seed 003 §5): ModRaise, CoeffsToSlots, EvalMod, SlotsToCoeffs.

pub mod dft;
pub mod failure;
