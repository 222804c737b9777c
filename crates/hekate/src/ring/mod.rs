//! RNS polynomials over a prefix of a modulus chain, in coefficient or NTT form.
