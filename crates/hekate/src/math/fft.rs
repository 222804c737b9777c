//! CKKS special FFT over the 5^k slot ordering (filled in by the encoder work).
