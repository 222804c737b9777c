//! NTT benchmark against tfhe-ntt (filled in by the NTT work).
fn main() {}
