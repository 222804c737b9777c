//! Full-RNS CKKS.
