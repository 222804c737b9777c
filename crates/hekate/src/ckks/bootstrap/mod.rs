//! CKKS bootstrapping (seed 003: ModRaise, CoeffsToSlots, EvalSine, SlotsToCoeffs).

pub mod failure;
