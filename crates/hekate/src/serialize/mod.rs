//! The versioned binary format of hekate objects, validated on read.
//!
//! The format is small and explicit (no serde, no self-description): an object is a fixed
//! 16-byte header followed by a type-specific body. Reading needs the parameters the
//! object was made under (a [`RingContext`] for the ring-level
//! types, a [`CkksContext`](crate::ckks::CkksContext) for CKKS plaintexts, ciphertexts and
//! evaluation keys, an [`IntegerContext`](crate::rlwe::integer::IntegerContext) for BFV/BGV
//! ones, a [`FhewContext`](crate::fhew::FhewContext) for FHEW ciphertexts and
//! keys, an [`MlweContext`](crate::mlwe::MlweContext) for MLWE-CKKS ciphertexts and keys;
//! CKKS, BFV/BGV, FHEW and MLWE-CKKS parameters are self-contained and need nothing), checks that they
//! are the writer's (by fingerprint), and validates every field:
//! a reader never panics, never allocates before checking that the input holds the data
//! the allocation is for, charges everything it allocates (the decoded object, what it
//! expands from seeds, the tables of a context, expanded keys; all but a constant) to the
//! caller's [`ReadPolicy::max_alloc_bytes`] first, and rejects truncated, corrupt, trailing or
//! foreign bytes with [`Error::Deserialize`] and a message saying what was wrong. The
//! **reader** decides policy: its minimum security level, opt-ins and allocation limit
//! ([`ReadPolicy`]); bytes never lower them. A writer refuses an object of another context
//! ([`Serialize::check_writable`]) instead of writing bytes that context would misread.
//!
//! ```no_run
//! # use hekate::ring::{Poly, RingContext};
//! use hekate::serialize::{Deserialize, Serialize};
//! # fn f(ctx: &RingContext, poly: &Poly) -> hekate::Result<()> {
//! let bytes = poly.to_bytes(ctx)?;
//! let back = Poly::from_bytes(&bytes, ctx)?;
//! assert_eq!(&back, poly);
//! # Ok(()) }
//! ```
//!
//! # Format, version 1
//!
//! All integers are little-endian. `uN` is an unsigned integer of `N` bits.
//!
//! ## Header (16 bytes, every top-level object)
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0  | 4 | magic `48 4B 54 00` (`b"HKT\0"`) |
//! | 4  | 2 | format version, `u16` = [`FORMAT_VERSION`] = 1 |
//! | 6  | 2 | object tag, `u16` ([`ObjectTag`]) |
//! | 8  | 8 | parameter fingerprint, `u64` ([`ParameterFingerprint`]) |
//!
//! A reader refuses another magic, another version, an unknown tag, a tag other than the
//! type asked for, a fingerprint other than its context's, and any byte after the body.
//!
//! ## Object tags
//!
//! Every serializable type declares its tag beside its codec ([`Serialize::TAG`]), and
//! every scheme owns a block of codes, declared beside its codecs; the only shared list
//! is the registry of blocks (one line per scheme) that [`ObjectTag::from_code`] and
//! [`peek_header`] search. A code once written is never changed or reused: bytes written
//! by earlier versions stay readable (the crate's tests read a committed corpus of them).
//!
//! | block | owner, codecs in | tags |
//! |-------|------------------|------|
//! | `0x0000` | reserved | |
//! | `0x0001..=0x000F` | ring and RLWE, `rlwe/serialize/` | 1 `Poly`, 2 `SecretKey`, 3 `PublicKey`, 4 `HybridKey` |
//! | `0x0010..=0x001F` | CKKS, `ckks/serialize/` | 16 parameters, 17 plaintext, 18 ciphertext, 19 relinearization key, 20 Galois keys |
//! | `0x0020..=0x0026` | FHEW, `fhew/serialize/` | 32 parameters, 33 LWE ciphertext, 34 LWE secret key, 35 FHEW secret key, 36 LWE key-switching key, 37 blind-rotation key, 38 bootstrapping key |
//! | `0x0027..=0x002F` | threshold FHEW, `fhew/threshold/serialize.rs` | 39 public-key share, 40 evaluation-key share, 41 partial decryption, 42 joint public key |
//! | `0x0030..=0x00FF` | unassigned | |
//! | `0x0100..=0x01FF` | BFV and BGV, `rlwe/integer/serialize/` | 256 parameters, 257 plaintext, 258 ciphertext, 259 relinearization key, 260 Galois keys |
//! | `0x0200..=0x02FF` | MLWE-CKKS, `mlwe/serialize/` | `0x0200` parameters, `0x0201` ciphertext, `0x0202` secret key, `0x0203` public key, `0x0204` relinearization key, `0x0205` rank-reduction key, `0x0206` rotation key, `0x0207` hoisted rotation keys, `0x0208` plaintext |
//! | `0x0300..=0x03FF`, `0x0400..=0x04FF`, … | one block of 256 per new scheme, or a second block for a scheme whose first is full | |
//!
//! A new scheme adds a `serialize` module with its codecs and its block, and one line to
//! the registry; a unit test checks that every tag lies in its block, that no two codes or
//! names repeat, and that the blocks are disjoint. The format version changes only when
//! the encoding of an existing tag changes.
//!
//! ## Ring fingerprint
//!
//! For a [`RingContext`] with degree `N`, chain
//! `q_0 .. q_L` and special primes `p_0 .. p_{k-1}`, the fingerprint is the 64-bit FNV-1a
//! hash ([`fnv1a64`]: offset basis `0xcbf29ce484222325`, prime `0x100000001b3`, for each
//! byte `h = (h ^ byte) * prime mod 2^64`) of the concatenation of the `u64`
//! little-endian encodings of
//!
//! ```text
//! N, L + 1, k, q_0, .., q_L, p_0, .., p_{k-1}
//! ```
//!
//! ([`ring_fingerprint`]). It identifies parameters; it is not a cryptographic commitment.
//!
//! ## Bodies
//!
//! A body may contain other bodies (a public key contains a polynomial body, without
//! its own header). In the tables, offsets are relative to the start of the body.
//!
//! ### `Poly` (tag 1)
//!
//! | size | field |
//! |-----:|-------|
//! | 4 | `n`, `u32`: the ring degree, a power of two `<= 2^17`, equal to the context's `N` |
//! | 2 | `q_limbs`, `u16`: chain limbs, `<=` the context's `L + 1` (and `<= 256`) |
//! | 2 | `p_limbs`, `u16`: special limbs, `<=` the context's `k` |
//! | 1 | form, `u8`: 0 coefficient, 1 NTT (bit-reversed evaluations) |
//! | … | the limbs, in order `q_0 .. q_{q_limbs-1}, p_0 .. p_{p_limbs-1}` |
//!
//! Limb `i`, modulo `m_i`, holds its `n` residues (each in `[0, m_i)`) bit-packed in
//! `w_i = ceil(log2 m_i)` bits each (the bit length of `m_i - 1`) in `ceil(n·w_i / 8)`
//! bytes: residue `j` occupies bits `j·w_i .. (j+1)·w_i` of the limb's bytes read as one
//! little-endian bit string (bit `b` of the string is bit `b mod 8` of byte `b / 8`); the
//! unused high bits of the limb's last byte are zero. The widths come from the context,
//! not the stream. Every residue is checked to be below its modulus, and padding bits to
//! be zero, so every polynomial has exactly one encoding. For 40–60-bit primes this is
//! 62–94% of the size of plain `u64` words.
//!
//! ### `SecretKey` (tag 2)
//!
//! | size | field |
//! |-----:|-------|
//! | 4 | `n`, `u32`, equal to the context's `N` |
//! | 1 | coefficient encoding, `u8` |
//! | … | the `n` coefficients `s_0 .. s_{n-1}` |
//!
//! Encodings, the writer picks the first that fits every coefficient (and the reader
//! refuses any other choice, to keep encodings unique):
//!
//! * 0, ternary (all in `{-1, 0, 1}`): 2 bits each, packed as above (`ceil(n/4)` bytes),
//!   `00` = 0, `01` = +1, `10` = −1; `11` is invalid.
//! * 1, `i8` (all in `[-128, 127]`, e.g. Gaussian secrets): one two's-complement byte each.
//! * 2, `i64`: eight little-endian two's-complement bytes each.
//!
//! The NTT form of the key is recomputed on read. The bytes of a secret key are secret:
//! the caller owns (and should zeroize) them.
//!
//! ### `PublicKey` (tag 3), seed-compressed
//!
//! | size | field |
//! |-----:|-------|
//! | 32 | the seed of `a` |
//! | … | `b`, a `Poly` body (NTT form; `p_limbs` 0 or `k`) |
//!
//! `a` is not stored: the reader re-expands it as
//! [`expand_uniform`](crate::rlwe::keys::expand_uniform)`(ctx, seed, 0, q_limbs, p_limbs)`
//! with the shape of `b` (the expansion procedure is frozen, see
//! [`expand_seed`](crate::math::sample::expand_seed)). Writing assumes `a` is that
//! expansion, as for every key hekate generates.
//!
//! ### `HybridKey` (tag 4), seed-compressed
//!
//! | size | field |
//! |-----:|-------|
//! | 32 | the seed of every `a_j` |
//! | 2 | `dnum`, `u16`: number of digits, in `[1, L + 1]` |
//! | … | `b_0 .. b_{dnum-1}`, each a `Poly` body (NTT form, `p_limbs = k`) |
//!
//! `a_j` is re-expanded as `expand_uniform(ctx, seed, j, q_limbs, p_limbs)` with the
//! shape of `b_j`. The key's width `w` (it serves levels `< w`) is written as the chain
//! limb count of its digits: every `b_j` has the same `w`, with `dnum <= w <= L + 1`
//! (`w = L + 1` for a full key, less for a
//! [level-aware](crate::rlwe::HybridKeySwitcher::generate_key_at) one).
//!
//! ## CKKS objects
//!
//! Plaintexts, ciphertexts and evaluation keys are read under a
//! [`CkksContext`](crate::ckks::CkksContext), whose fingerprint is its ring's
//! ([`ring_fingerprint`] of `N`, `Q` and `P`); the ring-level bodies inside them (`Poly`,
//! `HybridKey`) are read under its [`ring`](crate::ckks::CkksContext::ring). A plaintext or
//! ciphertext read gets the context's ring fingerprint as its parameter identity.
//!
//! ### Scale (part of several bodies)
//!
//! A scale is an exact positive rational `a / b` in lowest terms:
//!
//! | size | field |
//! |-----:|-------|
//! | 2 | length of `a` in bytes, `u16`, in `[1, 2048]` ([`MAX_SCALE_BYTES`]) |
//! | … | `a`, little-endian, its last (most significant) byte non-zero |
//! | 2 | length of `b` in bytes, `u16`, in `[1, 2048]` |
//! | … | `b`, little-endian, its last byte non-zero |
//!
//! `a` and `b` must be coprime, so every scale has exactly one encoding (`2^30` is
//! `04 00 | 00 00 00 40 | 01 00 | 01`). 2048 bytes hold the product of the largest chain
//! the format accepts, so every scale reachable by rescaling fits; writing a scale with a
//! larger numerator or denominator panics.
//!
//! ### CKKS parameters (tag 16), self-contained
//!
//! Written by [`ckks_context_to_bytes`] (or `ctx.to_bytes(&())`), read by
//! [`ckks_context_from_bytes`] (or `CkksContext::from_bytes(bytes, &())`) without any
//! context. The header's fingerprint is the [`ring_fingerprint`] of the `N` and primes in
//! the body (the fingerprint every object made under these parameters carries), and is
//! checked against them.
//!
//! | size | field |
//! |-----:|-------|
//! | 4 | `N`, `u32`, a power of two in `[2, 2^17]` |
//! | 2 | `L + 1`, `u16`: chain primes, in `[1, 256]` |
//! | 2 | `k`, `u16`: special primes, in `[1, 256]` |
//! | 8(L+1) | `q_0 .. q_L`, `u64` each |
//! | 8k | `p_0 .. p_{k-1}`, `u64` each |
//! | 2 | `dnum`, `u16`, in `[1, L + 1]` |
//! | 1 | secret distribution, `u8`: 0 ternary, 1 Hamming weight, 2 Gaussian |
//! | 0 or 4 | for a Hamming weight only: `h`, `u32`, in `[1, N]` |
//! | 1 | security level, `u8`: 0 128-bit, 1 192-bit, 2 256-bit, 3 not checked |
//! | … | the default scale (a scale as above that is exactly an `f64`) |
//! | 1 | key switching, `u8`: 0 hybrid, 1 KLSS / linear (then the next 11 bytes), 2 mixed (then the next 11 + 2 + 2c bytes), 3 hybrid with digits by bits (CKKS only; `dnum` above must be the count the grouping gives) |
//! | 2 | KLSS `r̃`, `u16`, in `[1, L + 1 + k]` |
//! | 2 | KLSS `r'`, `u16`: 0 derived from the bound, else in `[1, 64]` |
//! | 1 | KLSS bound, `u8`: 0 worst case (Eq. (5)), 1 heuristic |
//! | 1 | KLSS `B'` prime size in bits, `u8`, in `[30, 61]` |
//! | 4 | KLSS accumulation, `u32`, in `[1, 2^16]` |
//! | 2 | mixed only: `c`, `u16`, the number of levels running KLSS, in `[1, L]` |
//! | 2c | mixed only: those levels as chain-limb counts, `u16` each, increasing, in `[1, L + 1]` |
//! | 1 | key storage in memory, `u8`: 0 expanded, 1 compact |
//!
//! Evaluation keys are always written in the ordinary (hybrid, seed-compressed) form,
//! whatever the engine; a KLSS context expands them when it reads them.
//!
//! Every prime must be a prime below `2^62` with `q = 1 mod 2N`, distinct from every
//! other; this, the caps and the fingerprint are checked before anything is built. The
//! context is then built with [`CkksParameters`](crate::ckks::CkksParameters) and the
//! explicit primes, so every check of the builder runs again: the security check against
//! the stored level, and that `P` covers the largest key-switching digit. A failure of the
//! builder is reported as [`Error::Deserialize`] naming the builder's error.
//!
//! ### CKKS `Plaintext` (tag 17)
//!
//! | size | field |
//! |-----:|-------|
//! | … | the scale |
//! | 4 | slot count, `u32`, a power of two in `[1, N/2]` |
//! | … | the polynomial, a `Poly` body: NTT form, at least one chain limb, no special limb |
//!
//! The level is the chain limb count minus one.
//!
//! ### CKKS `Ciphertext` (tag 18)
//!
//! | size | field |
//! |-----:|-------|
//! | 1 | degree `d`, `u8`: 1, or 2 (after a product without relinearization) |
//! | 1 | storage, `u8`: 0 every part, 1 seed-compressed (only for `d = 1`) |
//! | … | the scale |
//! | 4 | slot count, `u32`, a power of two in `[1, N/2]` |
//! | … | storage 0: `c_0 .. c_d`, `Poly` bodies; storage 1: the 32-byte seed of `c_1`, then `c_0` |
//!
//! Every part is in NTT form with no special limb and the same (non-zero) number of
//! chain limbs. A fresh secret-key encryption
//! ([`encrypt_symmetric`](crate::ckks::CkksContext::encrypt_symmetric), whose
//! [`seed`](crate::ckks::Ciphertext::seed) is set) is written seed-compressed, about half
//! the size; the reader re-expands
//! `c_1 = `[`expand_uniform`](crate::rlwe::keys::expand_uniform)`(ring, seed, 0, l + 1, 0)`
//! with the chain limbs `l + 1` of `c_0`, and the ciphertext keeps its seed. Every other
//! ciphertext (the seed is cleared by every operation) is written with every part.
//!
//! ### `RelinearizationKey` (tag 19)
//!
//! A `HybridKey` body of the context's shape for its width `w`: the context's `dnum`
//! digits over all of `Q ∪ P` (`w = L + 1`, a full key), or, for a key generated for
//! levels `< w` only, the digits in use below `w` over `Q_{w-1} ∪ P`
//! ([`DigitPartition::key_digits`](crate::rlwe::keyswitch::DigitPartition::key_digits):
//! `ceil(w / α)` with `α = ceil((L + 1) / dnum)` for uniform digits). Only a hybrid context reads the narrower keys (KLSS and mixed contexts
//! expand full keys only).
//!
//! ### `GaloisKeys` (tag 20)
//!
//! | size | field |
//! |-----:|-------|
//! | 4 | key count `c`, `u32`, `<= N` |
//! | … | `c` times: the Galois element `g`, `u32` (odd, `< 2N`), then its key, a `HybridKey` body as in tag 19 |
//!
//! The keys are written in increasing order of `g`, and a reader refuses any other order
//! (or a repeated element), so that the encoding of a set does not depend on its hash map.
//!
//! ## BFV and BGV objects
//!
//! BFV and BGV share one representation ([`rlwe::integer`](crate::rlwe::integer)), so one
//! set of codecs and one tag block serve both; the scheme is a field of the parameters.
//! Plaintexts, ciphertexts and evaluation keys are read under an
//! [`IntegerContext`](crate::rlwe::integer::IntegerContext), whose fingerprint
//! ([`IntegerContext::fingerprint`](crate::rlwe::integer::IntegerContext::fingerprint)) is
//! [`fnv1a64`] of the little-endian `u64`s of the [`ring_fingerprint`] and the plaintext
//! modulus `t`: an object of another `t`, or of a CKKS context of the same ring, is
//! refused. Secret and public keys are ring-level objects (tags 2, 3), written and read
//! under the context's [`ring`](crate::rlwe::integer::IntegerContext::ring).
//!
//! ### BFV/BGV parameters (tag 256), self-contained
//!
//! Written by [`integer_context_to_bytes`] (or `ctx.to_bytes(&())`), read by
//! [`integer_context_from_bytes`] (or `IntegerContext::from_bytes(bytes, &())`) without any
//! context. The header's fingerprint is the context's (of the `N`, primes and `t` in the
//! body), and is checked against them. The fields shared with CKKS parameters have the
//! same encodings and checks (tag 16).
//!
//! | size | field |
//! |-----:|-------|
//! | 1 | scheme, `u8`: 0 BFV, 1 BGV |
//! | 4 | `N`, `u32`, a power of two in `[2, 2^17]` |
//! | 2 | `L + 1`, `u16`: chain primes, in `[1, 256]` |
//! | 2 | `k`, `u16`: special primes, in `[1, 256]` |
//! | 8(L+1) | `q_0 .. q_L`, `u64` each |
//! | 8k | `p_0 .. p_{k-1}`, `u64` each |
//! | 8 | `t`, `u64`, in `[2, 2^61)`, coprime to every prime of `Q` and `P` |
//! | 2 | `dnum`, `u16`, in `[1, L + 1]` |
//! | 1 | secret distribution, `u8` (then `h`, `u32`, for a Hamming weight), as in tag 16 |
//! | 1 | security level, `u8`, as in tag 16 |
//! | … | key switching, as in tag 16 (1, 12 or `14 + 2c` bytes) |
//! | 1 | key storage in memory, `u8`: 0 expanded, 1 compact |
//! | 1 | modulus switching, `u8`: 0 automatic, 1 manual (used by BGV) |
//! | 1 | multiplication variant, `u8`: 0 exact, 1 HPS (used by BFV) |
//!
//! Batching is not stored: the context derives it from `t` and `N` (a prime
//! `t = 1 mod 2N`), as when it was built. After the checks above (and the reader's
//! [`ReadPolicy`]: minimum security level, heuristic KLSS bound, allocation limit), the
//! context is built with [`IntegerParameters`](crate::rlwe::integer::IntegerParameters) and
//! the explicit primes, so every check of the builder runs again; a failure of the builder
//! is reported as [`Error::Deserialize`] naming the builder's error.
//!
//! ### BFV/BGV `Plaintext` (tag 257)
//!
//! | size | field |
//! |-----:|-------|
//! | 4 | `n`, `u32`, equal to the context's `N` |
//! | … | the `n` coefficients of `m`, each `< t`, bit-packed in `ceil(log2 t)` bits as a `Poly` limb |
//!
//! ### BFV/BGV `Ciphertext` (tag 258)
//!
//! | size | field |
//! |-----:|-------|
//! | 1 | degree `d`, `u8`: 1, or 2 (after a product without relinearization) |
//! | 1 | storage, `u8`: 0 every part, 1 seed-compressed (only for `d = 1`) |
//! | 8 | correction factor `α`, `u64`: in `[1, t)` and invertible mod `t` |
//! | 8 | noise estimate `log2 σ`, the `f64`'s IEEE 754 bits as a `u64`: in `[0, 2^16]` ([`MAX_NOISE_LOG2`]), not NaN |
//! | … | storage 0: `c_0 .. c_d`, `Poly` bodies; storage 1: the 32-byte seed of `c_1`, then `c_0` |
//!
//! The parts are as in a CKKS ciphertext (tag 18): NTT form, no special limb, the same
//! non-zero number `l + 1` of chain limbs (the level is `l`); a fresh secret-key
//! encryption is written seed-compressed and `c_1` re-expanded as
//! `expand_uniform(ring, seed, 0, l + 1, 0)`.
//!
//! ### BFV/BGV `RelinearizationKey` (tag 259) and `GaloisKeys` (tag 260)
//!
//! The bodies of tags 19 and 20 (the ordinary, seed-compressed hybrid form whatever the
//! engine), under the integer context's `dnum` and engine. They are written and read by
//! [`IntegerContext::relinearization_key_to_bytes`](crate::rlwe::integer::IntegerContext::relinearization_key_to_bytes),
//! [`relinearization_key_from_bytes`](crate::rlwe::integer::IntegerContext::relinearization_key_from_bytes),
//! [`galois_keys_to_bytes`](crate::rlwe::integer::IntegerContext::galois_keys_to_bytes) and
//! [`galois_keys_from_bytes`](crate::rlwe::integer::IntegerContext::galois_keys_from_bytes)
//! (the key types' [`Serialize`] implementation is the CKKS one).
//!
//! ## FHEW objects
//!
//! FHEW ciphertexts and keys are read under a [`FhewContext`](crate::fhew::FhewContext),
//! whose fingerprint is [`fhew_fingerprint`] of its parameters; the RLWE-level bodies
//! inside them (`SecretKey`) are read under its
//! [`ring`](crate::fhew::FhewContext::ring). Every dimension, modulus, base and count in a
//! body must be the context's; every residue is checked to be below its modulus.
//!
//! ### FHEW fingerprint
//!
//! [`fnv1a64`] of the little-endian `u64` words
//!
//! ```text
//! "FHEW" (bytes 46 48 45 57 00 00 00 00), n, q, N, log Q, log B_g, B_r, log Q_ks,
//! log B_ks, bits(σ), secret code, secret parameter, r, lb_0, c_0, .., lb_(r-1), c_(r-1)
//! ```
//!
//! (`bits(σ)` the IEEE-754 bits of `σ`; secret code and parameter as in the body below;
//! the `r` runs `(lb_i, c_i)` of the `B_g` schedule). Every numeric field counts; the
//! descriptive strings (`name`, `source`, `security`) do not.
//!
//! ### FHEW parameters (tag 32), self-contained
//!
//! Written by [`fhew_context_to_bytes`] (or `params.to_bytes(&())`), read by
//! [`fhew_params_from_bytes`] / [`fhew_context_from_bytes`] without any context. The
//! header's fingerprint is the FHEW fingerprint of the body and is checked against it.
//!
//! | size | field |
//! |-----:|-------|
//! | 4 | `n`, `u32`, LWE dimension in `[1, 2^12]` ([`MAX_LWE_DIM`]) |
//! | 4 | `q`, `u32`, a power of two in `[8, 2N]` |
//! | 4 | `N`, `u32`, a power of two in `[16, 2^12]` ([`MAX_FHEW_RING_DIM`]) |
//! | 1 | `log Q`, `u8` (`Q` is the largest `log Q`-bit prime `= 1 mod 2N`) |
//! | 1 | `log B_g`, `u8` |
//! | 2 | `r`, `u16`: runs of the per-index `B_g` schedule, `<=` [`MAX_SCHEDULE_RUNS`] (0: none) |
//! | 5r | each run: `log B_g`, `u8`, and its key count, `u32`; the counts sum to `n` |
//! | 4 | `B_r`, `u32`, in `[2, q]` |
//! | 1 | `log Q_ks`, `u8`, in `[7, 32]` ([`MIN_LOG_Q_KS`]) |
//! | 1 | `log B_ks`, `u8`, in `[1, min(log Q_ks, 16)]` |
//! | 8 | `σ`, the `f64` bits: positive, finite, `1 <= floor(6σ) <= 2^50` |
//! | 1 | LWE secret distribution, `u8`: 0 binary, 1 ternary, 2 Gaussian, 3 uniform |
//! | 0 or 8 | Gaussian: its `σ` (`f64` bits, as above); uniform: the bound, `u64`, `< 2^30` |
//!
//! The reader then runs every check building a context and its keys makes
//! ([`FhewParams::validate`](crate::fhew::FhewParams::validate), the prime `Q`, a gadget
//! for every base). Parameters equal to a preset in every numeric field get the preset's
//! name, source and security; others are named `"custom"`.
//!
//! ### `LweCiphertext` (tag 33)
//!
//! | size | field |
//! |-----:|-------|
//! | 4 | `n`, `u32`, the context's LWE dimension |
//! | 8 | `q`, `u64`, the context's LWE modulus |
//! | … | `α_0 .. α_(n-1), β`, bit-packed as in `Poly` in `ceil(log2 q)` bits each, each `< q` |
//!
//! ### `LweSecretKey` (tag 34)
//!
//! | size | field |
//! |-----:|-------|
//! | 4 | `n`, `u32`, the context's LWE dimension |
//! | 1 | coefficient encoding, `u8`, as in `SecretKey` (0 ternary, 1 `i8`, 2 `i64`; the first that fits) |
//! | … | the `n` coefficients |
//!
//! ### `FhewSecretKey` (tag 35)
//!
//! An `LweSecretKey` body (`s`), then a `SecretKey` body (`z`, over the context's ring).
//!
//! ### `LweKeySwitchKey` (tag 36), seed-compressed
//!
//! | size | field |
//! |-----:|-------|
//! | 1 | `log Q_ks`, `u8`, the context's |
//! | 1 | `log B_ks`, `u8`, the context's |
//! | 4 | input dimension, `u32`: `N` |
//! | 4 | output dimension, `u32`: `n` |
//! | 32 | the seed of every `α` |
//! | … | the `N d_ks (B_ks - 1)` values `β`, bit-packed in `log Q_ks` bits each |
//!
//! The `α` parts are re-expanded with
//! [`KsMasks::expand`](crate::fhew::KsMasks::expand)`(seed, 0, log Q_ks, ..)` (frozen:
//! [`expand_lwe_masks`](crate::fhew::lwe::expand_lwe_masks) up to 16 bits,
//! [`expand_lwe_masks_wide`](crate::fhew::lwe::expand_lwe_masks_wide) above). The body is
//! [`compressed_bytes`](crate::fhew::LweKeySwitchKey::compressed_bytes)` + 10` bytes.
//!
//! ### RLWE' (part of the bodies below), seed-compressed
//!
//! | size | field |
//! |-----:|-------|
//! | 32 | seeded form: the seed of every `a_i` |
//! | … | explicit form, instead of the seed: `a_0 .. a_(d_g-1)`, packed as the `b_i` |
//! | … | `b_0 .. b_(d_g-1)` (NTT form), each the `N` residues bit-packed in `ceil(log2 Q)` bits, each `< Q` |
//!
//! The enclosing blind-rotation key says which form its RLWE' bodies take. In the seeded
//! form `a_i` is re-expanded as [`expand_uniform`](crate::rlwe::keys::expand_uniform)`(ring,
//! seed, i, 1, 0)`. The gadget (so `d_g`) is not stored: it is the one the context gives
//! the key's position. This is exactly
//! [`RlwePrime::compressed_bytes`](crate::rlwe::gsw::RlwePrime::compressed_bytes). An RGSW
//! body is two RLWE' bodies, `RLWE'(z m)` then `RLWE'(m)`.
//!
//! ### `BlindRotationKey` (tag 37), seed-compressed
//!
//! | size | field |
//! |-----:|-------|
//! | 1 | method, `u8`: 0 AP, 1 GINX, 2 Alg. 3, 3 Alg. 4, 4 Alg. 5 (it must apply to `q`, `N`) |
//! | 1 | ALTMULT, `u8`: 0 RGSW keys, 1 RLWE' keys |
//! | 1 | automorphism key set, `u8`: 0 full, 1 powers of five, 2 generators |
//! | 1 | mask form, `u8`: 0 seeded (every RLWE' body holds its seed), 1 explicit (every RLWE' body holds its packed `a` parts instead: keys combined from threshold shares have no seed) |
//! | 0 or 1 | GINX only: `U`, `u8` `c <= 62`: 0 is `{1}`, else `{1, -1, 2, -2, .., 2^(c-1), -2^(c-1)}` |
//! | 4 | key count `K`, `u32`: AP `n d_r (B_r - 1)`, GINX `n |U|`, Alg. 3 `n`, Alg. 4 `2n`, Alg. 5 `n + 1` |
//! | … | the `K` keys in the layout of [`BlindRotationKey::keys`](crate::fhew::BlindRotationKey::keys): RGSW bodies, or RLWE' bodies with ALTMULT |
//! | … | ALTMULT only: `RLWE'(z^2)`, an RLWE' body |
//! | 4 | automorphism key count `A`, `u32`, the configuration's (0 for AP, GINX) |
//! | … | the `A` automorphism keys, RLWE' bodies, in the order of their exponents |
//!
//! The gadget of key `k` is the schedule's base of its LWE index `i` (AP, GINX:
//! `i = k / (keys per index)`; Alg. 3, 5: `i = k`; Alg. 4: `i = k mod n`), and `log B_g`
//! for Alg. 5's last key, `RLWE'(z^2)` and the automorphism keys. The automorphism
//! exponents are not stored: they are the configuration's (full: `2j + 1` for
//! `j in [1, N)`, or `(2N/q) j + 1` for `j in [1, q)` with Alg. 5; powers of five:
//! `2N - 1, 5, 5^2, 5^4, ..` while the power of two `< N/2`; generators: `5, 2N - 1`).
//! The reader checks the whole length before allocating anything. The body is
//! [`compressed_bytes`](crate::fhew::BlindRotationKey::compressed_bytes)` + 12` bytes
//! (`+ 13` for GINX).
//!
//! ### `BootstrapKey` (tag 38)
//!
//! A `BlindRotationKey` body, then an `LweKeySwitchKey` body:
//! [`compressed_bytes`](crate::fhew::BootstrapKey::compressed_bytes)` + 22` bytes (`+ 23`
//! for GINX) after the header.
//!
//! ### Threshold FHEW (tags 39-42)
//!
//! Read against a [`ThresholdContext`](crate::fhew::threshold::ThresholdContext), whose
//! fingerprint is the FNV-1a hash of `b"THRESHLD"` and the little-endian `u64`s of the
//! FHEW fingerprint, `k`, and the bits of `σ_smenc` and `σ_flood`. A party index is a
//! `u16` below `k`.
//!
//! | tag | object | body |
//! |----:|--------|------|
//! | 39 | `PublicKeyShare` | party, then a `Poly` body (one limb, NTT form): `b_j` |
//! | 40 | `EvalKeyShare` | party; a `BlindRotationKey` body (RGSW keys, no `RLWE'(z^2)`, masks explicit: public-key encryptions have no seed); then `log Q_ks` `u8`, `log B_ks` `u8` (the context's), the 32-byte seed of the key-switching masks, and the `N d_ks (B_ks - 1)` values `β` bit-packed in `log Q_ks` bits |
//! | 41 | `PartialDecryption` | party, `q` as `u32` (the context's), the value as `u32` (below `q`) |
//! | 42 | `ThresholdPublicKey` | two `Poly` bodies (one limb, NTT form): `a`, `b` |
//!
//! ## MLWE-CKKS objects
//!
//! Ciphertexts and keys are read under an [`MlweContext`](crate::mlwe::MlweContext),
//! whose fingerprint ([`mlwe_fingerprint`](crate::mlwe::mlwe_fingerprint)) is [`fnv1a64`]
//! of the little-endian `u64` words
//!
//! ```text
//! "MLWE" (bytes 4D 4C 57 45 00 00 00 00), F(n, Q, P), r, d, r̂, μ, F(n, Q, P̂)
//! ```
//!
//! (`F` the [`ring_fingerprint`]; `r̂`, `μ` and `F(n, Q, P̂)` are 0 without DPad-HE): an
//! object of another rank, digit count or DPad-HE setting is refused even over the same
//! ring, and so is a CKKS object of that ring. The polynomial bodies inside are read
//! under the context's [`ring`](crate::mlwe::MlweContext::ring) over `Q ∪ P` (or DPad-HE's
//! ring over `Q ∪ P̂`, where said).
//!
//! ### MLWE parameters (tag `0x0200`), self-contained
//!
//! Written by [`mlwe_context_to_bytes`] (or `ctx.to_bytes(&())`), read by
//! [`mlwe_context_from_bytes`] / [`mlwe_context_from_bytes_with`] (or
//! `MlweContext::from_bytes(bytes, &())`) without any context. The header's fingerprint
//! is the MLWE fingerprint of the body, checked against it before anything is built.
//!
//! | size | field |
//! |-----:|-------|
//! | 4 | `n`, `u32`, a power of two in `[2, 2^17]` (the builder accepts `[2, 2^16]`) |
//! | 2 | `L + 1`, `u16`: chain primes, in `[1, 256]` |
//! | 2 | `k`, `u16`: special primes of `P`, in `[1, 256]` |
//! | 8(L+1) | `q_0 .. q_L`, `u64` each |
//! | 8k | `p_0 .. p_{k-1}`, `u64` each |
//! | 2 | rank `r`, `u16`, in `[1, 16]` ([`MAX_RANK`](crate::mlwe::MAX_RANK)) |
//! | 2 | `d`, `u16`: digits of `KeySwitch_d`, in `[1, L + 1]` |
//! | 1 | DPad-HE, `u8`: 0 none, 1 enabled (then the next `8 + 8k̂` bytes) |
//! | 2 | `r̂`, `u16`, in `(r, 2r]` |
//! | 2 | `k̂`, `u16`: special primes of `P̂`, in `[1, 256]` |
//! | 8k̂ | `p̂_0 .. p̂_{k̂-1}`, `u64` each |
//! | 2 | `μ`, `u16`: digits of `KeySwitch_μ`, in `[1, L + 1]` |
//! | 1 | secret distribution, `u8` (then `h`, `u32`, for a Hamming weight), as in tag 16 |
//! | 1 | security level, `u8`, as in tag 16 (refused below the reader's minimum) |
//! | … | the default scale (a scale as in tag 16 that is exactly an `f64`) |
//!
//! Every prime must be a prime below `2^62` with `q = 1 mod 2n`, distinct from every
//! other. The context is then built with [`MlweParameters`](crate::mlwe::MlweParameters)
//! and the explicit primes, `d` and `μ`, so every check of the builder runs again: primes
//! `1 mod 2N'` for the conversion ring `N' = r'·n`, the digits covered by `P` and `P̂`,
//! `P̂ > P`, and the security check at `r·n` (and `r̂·n` with `QP̂`). A failure of the
//! builder is reported as [`Error::Deserialize`] naming the builder's error.
//!
//! ### Module switching key (part of tags `0x0204..=0x0207`), seed-compressed
//!
//! A [`ModuleKey`](crate::rlwe::ModuleKey) `KSGen(s_from, s_to)` with `r1` inputs and
//! `1 + r2` columns, both fixed by the enclosing body:
//!
//! | size | field |
//! |-----:|-------|
//! | 32 | the seed of every `a` |
//! | 2 | width `w`, `u16`: the chain limbs of its polynomials, in `[1, L + 1]` (it serves levels `< w`) |
//! | … | for each input `j < r1` and digit `i < d_w`: `b_{j,i}`, a `Poly` body over `Q_{w-1} ∪ P` (every special limb), NTT form |
//!
//! `d_w` is the engine's digit count at width `w`
//! ([`key_digits`](crate::rlwe::HybridKeySwitcher::key_digits)); the `a_{j,i,t}`
//! (`t < r2`) are re-expanded as
//! [`expand_uniform`](crate::rlwe::keys::expand_uniform)`(ring, seed, (j d_w + i) r2 + t, w, k)`,
//! as [`generate_module_key`](crate::rlwe::HybridKeySwitcher::generate_module_key) drew them.
//!
//! ### MLWE `Ciphertext` (tag `0x0201`)
//!
//! | size | field |
//! |-----:|-------|
//! | 1 | rank `r'`, `u8`: in `[1, r]`, or up to `r̂` with DPad-HE (a lifted ciphertext) |
//! | 1 | form, `u8`: 0 linear, 1 quadratic (after a product without relinearization), 2 seed-compressed (linear) |
//! | … | the scale, as in tag 16 |
//! | 4 | slot count, `u32`, a power of two in `[1, n/2]` |
//! | … | forms 0, 1: the `1 + r'` parts `b, a_1 .. a_r'`, then (form 1) the `r'(r'+1)/2` parts `c_{jk}`, `Poly` bodies; form 2: the 32-byte seed of `a_1 .. a_r'`, then `b` |
//!
//! Every part is in NTT form with no special limb and the same non-zero number `l + 1`
//! of chain limbs (the level is `l`). A fresh secret-key encryption (whose
//! [`seed`](crate::mlwe::Ciphertext::seed) is set) is written in form 2, about
//! `1/(1 + r')` of the size: the reader re-expands
//! `a_{t+1} = `[`expand_uniform`](crate::rlwe::keys::expand_uniform)`(ring, seed, t, l + 1, 0)`
//! and the ciphertext keeps its seed. Every other ciphertext (every operation clears the
//! seed) is written with every part.
//!
//! ### MLWE plaintext (tag `0x0208`)
//!
//! A CKKS `Plaintext` made under an MLWE context (written through
//! [`MlwePlaintext`](crate::mlwe::MlwePlaintext)): the body of tag 17 (scale, slot count
//! in `[1, n/2]`, the message polynomial in NTT form over `Q_l` without special limbs),
//! under the MLWE context's fingerprint.
//!
//! ### MLWE `SecretKey` (tag `0x0202`)
//!
//! | size | field |
//! |-----:|-------|
//! | 4 | `n`, `u32`, the context's |
//! | 2 | component count, `u16`: `r̂` with DPad-HE, `r` otherwise |
//! | … | each component: an encoding byte and the `n` coefficients, as in `SecretKey` (tag 2) |
//!
//! The NTT forms over `Q ∪ P` (and `Q ∪ P̂`) are recomputed on read. The bytes are secret.
//!
//! ### MLWE `PublicKey` (tag `0x0203`), seed-compressed
//!
//! The 32-byte seed, then the `r` polynomials `b_k`, `Poly` bodies over all of `Q ∪ P` in
//! NTT form; `a_{k,t} = expand_uniform(ring, seed, k r + t, L + 1, k)`.
//!
//! ### MLWE keys (tags `0x0204..=0x0207`)
//!
//! | tag | object | body |
//! |----:|--------|------|
//! | `0x0204` | `RelinearizationKey` | method `u8` (0 ModHE, 1 DPad-HE), rank `r' <= r` `u8`; ModHE: a module key (`C(r'+1, 2)` inputs, `1 + r'` columns); DPad-HE: `crk` over `Q ∪ P̂` (`C(r'+1, 2)` inputs, `1 + r' + r̂ - r` columns), then `rdk` (`r̂ - r` inputs, `1 + r'` columns) of the same width |
//! | `0x0205` | `RankReductionKey` | `from` `u8`, `to` `u8` (`1 <= to < from <= r`), a module key (`from - to` inputs, `1 + to` columns) |
//! | `0x0206` | `RotationKey` | the Galois element `u32` (odd, `< 2n`), a module key (`r` inputs, `1 + r` columns) |
//! | `0x0207` | `HoistedRotationKeys` | count `c <= n` `u32`; `c` times a Galois element (odd, `< 2n`, strictly increasing) and a module key over `Q ∪ P̂` (`r̂` inputs, `1 + r̂` columns); then the rank-down key (`r̂ - r` inputs, `1 + r` columns) |
//!
//! Relinearization and rank-reduction keys must be at a (rank, level) the context's
//! security schedule allows ([`max_level_for_rank`](crate::mlwe::MlweContext::max_level_for_rank)),
//! as when generated.
//!
//! # Contract
//!
//! Every type implementing [`Serialize`] and [`Deserialize`] round-trips exactly,
//! serializes deterministically, has a unique encoding (any byte string a reader accepts
//! re-serializes to itself), and rejects every truncation, trailing data and another
//! context's parameters. [`testing::check_contract`] checks all of it for one object
//! ([`testing::check_contract_standalone`] for self-contained objects, which have no other
//! parameters to be read under: CKKS, BFV/BGV, FHEW and MLWE-CKKS parameters). The BFV/BGV
//! evaluation keys, read by methods of the integer context, are checked the same way by
//! `tests/serialize_bfv_bgv.rs`.

mod buffer;
// The serialization contract checker: public (and hidden from the docs) only so that the
// crate's integration tests can call it; not an API for users.
#[doc(hidden)]
pub mod testing;
#[cfg(test)]
mod tests;

/// An [`Error::Deserialize`] with `msg`: how every reader reports bad bytes.
pub(crate) fn err<T>(msg: String) -> Result<T> {
    Err(Error::Deserialize(msg))
}

pub use crate::ckks::serialize::{
    ckks_context_from_bytes, ckks_context_from_bytes_with, ckks_context_to_bytes, MAX_SCALE_BYTES,
};
pub use crate::fhew::serialize::{
    fhew_context_from_bytes, fhew_context_from_bytes_with, fhew_context_to_bytes, fhew_fingerprint,
    fhew_params_from_bytes, MAX_FHEW_RING_DIM, MAX_LWE_DIM, MAX_SCHEDULE_RUNS, MIN_LOG_Q_KS,
};
pub use crate::mlwe::serialize::{
    mlwe_context_from_bytes, mlwe_context_from_bytes_with, mlwe_context_to_bytes,
};
pub use crate::rlwe::integer::serialize::{
    integer_context_from_bytes, integer_context_from_bytes_with, integer_context_to_bytes,
    MAX_NOISE_LOG2,
};
pub use buffer::{packed_len, ReadPolicy, Reader, Writer};

use crate::ring::RingContext;
use crate::{Error, Result};

/// The four magic bytes every object starts with.
pub const MAGIC: [u8; 4] = *b"HKT\0";

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u16 = 1;

/// Size of the header in bytes.
pub const HEADER_LEN: usize = 16;

/// The largest ring degree the format accepts.
pub const MAX_N: usize = 1 << 17;

/// The largest number of chain (or special) limbs the format accepts.
pub const MAX_LIMBS: usize = 256;

/// What a serialized object is (header bytes 6–7): its `u16` code and a name for
/// messages.
///
/// Each serializable type declares its own tag beside its codec, as
/// [`Serialize::TAG`]; the codes are allocated in per-scheme blocks (the table in the
/// module documentation), so a new scheme adds its types and one block without editing
/// the others. [`ObjectTag::from_code`] knows every tag of every block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ObjectTag {
    code: u16,
    name: &'static str,
}

impl ObjectTag {
    /// The tag with header code `code` and message name `name`. A code, once written, is
    /// never reused for another type: bytes of older versions must stay readable.
    pub(crate) const fn new(code: u16, name: &'static str) -> Self {
        Self { code, name }
    }

    /// The tag's `u16` code in the header.
    pub const fn code(self) -> u16 {
        self.code
    }

    /// The tag with code `code`, if any type of this build has it.
    pub fn from_code(code: u16) -> Option<Self> {
        block_of(code)?
            .tags
            .iter()
            .find(|t| t.code == code)
            .copied()
    }

    /// A human-readable name, for messages.
    pub const fn name(self) -> &'static str {
        self.name
    }
}

/// One scheme's block of tag codes, `first..=last`, and the tags its types have taken
/// from it (each type's [`Serialize::TAG`]).
pub(crate) struct TagBlock {
    /// The scheme (or layer) that owns the block, for messages.
    pub(crate) scheme: &'static str,
    /// The first code of the block.
    pub(crate) first: u16,
    /// The last code of the block.
    pub(crate) last: u16,
    /// The tags allocated in the block.
    pub(crate) tags: &'static [ObjectTag],
}

/// The block `code` belongs to, if any.
fn block_of(code: u16) -> Option<&'static TagBlock> {
    TAG_BLOCKS
        .into_iter()
        .find(|b| (b.first..=b.last).contains(&code))
}

/// The registry: every scheme's block, in code order. A new scheme adds its block here
/// (one line; the block itself lives beside the scheme's codecs).
pub(crate) const TAG_BLOCKS: [&TagBlock; 6] = [
    &crate::rlwe::serialize::TAGS,
    &crate::ckks::serialize::TAGS,
    &crate::fhew::serialize::TAGS,
    &crate::fhew::threshold::serialize::TAGS,
    &crate::rlwe::integer::serialize::TAGS,
    &crate::mlwe::serialize::TAGS,
];

/// A decoded header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The format version.
    pub version: u16,
    /// What the object is.
    pub tag: ObjectTag,
    /// The fingerprint of the parameters it was written under.
    pub fingerprint: u64,
}

pub use crate::ring::{fnv1a64, ring_fingerprint};

/// Parameters an object is serialized under, identified by a 64-bit fingerprint stored in
/// the header (so that loading under other parameters is refused).
pub trait ParameterFingerprint {
    /// The fingerprint; equal parameters must give equal fingerprints.
    fn fingerprint(&self) -> u64;
}

impl ParameterFingerprint for RingContext {
    /// [`ring_fingerprint`] of `N`, `Q` and `P` (computed once, at construction).
    fn fingerprint(&self) -> u64 {
        RingContext::fingerprint(self)
    }
}

/// The "no parameters" context of self-contained objects (CKKS, BFV/BGV, FHEW and
/// MLWE-CKKS parameters).
impl ParameterFingerprint for () {
    /// Unused (0): self-contained objects put the fingerprint of what they describe in
    /// their header instead.
    fn fingerprint(&self) -> u64 {
        0
    }
}

impl Writer {
    /// The 16-byte header of a top-level object.
    pub fn write_header(&mut self, tag: ObjectTag, fingerprint: u64) {
        self.write_bytes(&MAGIC);
        self.write_u16(FORMAT_VERSION);
        self.write_u16(tag.code());
        self.write_u64(fingerprint);
    }
}

impl Reader<'_> {
    /// Reads and checks magic and version, and decodes the tag (any known one).
    pub fn read_any_header(&mut self) -> Result<Header> {
        self.require(HEADER_LEN, "header")?;
        let magic: [u8; 4] = self.read_array("magic")?;
        if magic != MAGIC {
            return Err(Error::Deserialize(format!(
                "not a hekate object: magic bytes are {magic:02x?}, expected {MAGIC:02x?} (\"HKT\\0\")"
            )));
        }
        let version = self.read_u16("format version")?;
        if version != FORMAT_VERSION {
            return Err(Error::Deserialize(format!(
                "unsupported format version {version}: this build reads version {FORMAT_VERSION}"
            )));
        }
        let code = self.read_u16("object tag")?;
        let tag = ObjectTag::from_code(code).ok_or_else(|| {
            Error::Deserialize(match block_of(code) {
                Some(b) => format!(
                    "unknown object tag {code}: a {} object this build does not know (written \
                     by a newer version of hekate?)",
                    b.scheme
                ),
                None => format!("unknown object tag {code}"),
            })
        })?;
        let fingerprint = self.read_u64("parameter fingerprint")?;
        Ok(Header {
            version,
            tag,
            fingerprint,
        })
    }

    /// Reads a header and checks it announces a `tag` object written under parameters with
    /// fingerprint `fingerprint`.
    pub fn read_header(&mut self, tag: ObjectTag, fingerprint: u64) -> Result<()> {
        let h = self.read_any_header()?;
        if h.tag != tag {
            return Err(Error::Deserialize(format!(
                "wrong object type: expected a {} (tag {}), found a {} (tag {})",
                tag.name(),
                tag.code(),
                h.tag.name(),
                h.tag.code()
            )));
        }
        if h.fingerprint != fingerprint {
            return Err(Error::Deserialize(format!(
                "parameter mismatch: the {} was written under parameters with fingerprint \
                 {:#018x}, but the given context has fingerprint {fingerprint:#018x}; load it \
                 with the parameters it was created with",
                tag.name(),
                h.fingerprint
            )));
        }
        Ok(())
    }
}

/// The header of a serialized object (to find out what a byte string holds).
pub fn peek_header(bytes: &[u8]) -> Result<Header> {
    Reader::new(bytes).read_any_header()
}

/// A type with a binary encoding under some parameters.
pub trait Serialize {
    /// The parameters the encoding depends on (and is checked against on read).
    type Context: ParameterFingerprint + ?Sized;

    /// The header tag of top-level objects of this type.
    const TAG: ObjectTag;

    /// Writes the body only (no header), e.g. as part of an enclosing object. The caller
    /// has checked [`Serialize::check_writable`]: a body written under the wrong context
    /// is corrupt.
    fn write_body(&self, w: &mut Writer, ctx: &Self::Context);

    /// Checks that `self` belongs to `ctx` and has a shape its encoding holds (made under
    /// these parameters, every residue reduced, the key form the context writes), so that
    /// nothing is written that `ctx` would read back as another, valid object.
    /// [`Serialize::write`] and [`Serialize::to_bytes`] call it first. The default accepts
    /// everything (types with no parameters to mismatch).
    fn check_writable(&self, ctx: &Self::Context) -> Result<()> {
        let _ = ctx;
        Ok(())
    }

    /// The fingerprint the header carries: `ctx`'s by default (self-contained objects,
    /// such as parameters, use their own).
    fn header_fingerprint(&self, ctx: &Self::Context) -> u64 {
        ctx.fingerprint()
    }

    /// Writes header and body, after [`Serialize::check_writable`].
    fn write(&self, w: &mut Writer, ctx: &Self::Context) -> Result<()> {
        self.check_writable(ctx)?;
        w.write_header(Self::TAG, self.header_fingerprint(ctx));
        self.write_body(w, ctx);
        Ok(())
    }

    /// The complete encoding (header and body), or the error of
    /// [`Serialize::check_writable`] (for example an object of another context).
    fn to_bytes(&self, ctx: &Self::Context) -> Result<Vec<u8>> {
        let mut w = Writer::new();
        self.write(&mut w, ctx)?;
        Ok(w.into_bytes())
    }
}

/// A type that can be read back from its encoding, validated against its parameters.
pub trait Deserialize: Serialize + Sized {
    /// Reads and validates a body (no header).
    fn read_body(r: &mut Reader<'_>, ctx: &Self::Context) -> Result<Self>;

    /// Reads and checks the header, then the body; bytes after it are left in `r`.
    fn read(r: &mut Reader<'_>, ctx: &Self::Context) -> Result<Self> {
        r.read_header(Self::TAG, ctx.fingerprint())?;
        Self::read_body(r, ctx)
    }

    /// Decodes `bytes`, which must hold exactly one object, under the default
    /// [`ReadPolicy`].
    fn from_bytes(bytes: &[u8], ctx: &Self::Context) -> Result<Self> {
        Self::from_bytes_with(bytes, ctx, &ReadPolicy::default())
    }

    /// Decodes `bytes`, which must hold exactly one object, under `policy` (the caller's
    /// minimum security level, opt-ins and allocation limit).
    fn from_bytes_with(bytes: &[u8], ctx: &Self::Context, policy: &ReadPolicy) -> Result<Self> {
        let mut r = Reader::with_policy(bytes, *policy);
        let out = Self::read(&mut r, ctx)?;
        r.finish()?;
        Ok(out)
    }
}
