//! Samplers (uniform, ternary, fixed Hamming weight, discrete Gaussian) and seed expansion.
