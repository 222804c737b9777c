//! A small mutation engine for `tests/fuzz.rs` (no dependency, stable Rust).
//!
//! Byte-level mutations: bit flips, bytes set to interesting values (0, 0xff, 0x7f, 0x80,
//! 1), ranges inserted, deleted or duplicated, truncation, splices of two inputs (of the
//! same reader or of any other). Format-aware mutations: integer fields (`u8`, `u16`,
//! `u32`, `u64` little-endian) set to interesting values (0, 1, ±1, doubled, halved, powers
//! of two, the maximum) at the offsets where the format has them (the header's tag and
//! fingerprint, the first bytes of the body, which hold every top-level count and
//! dimension, and the `n`, limb counts and form of every embedded `Poly` body, found by
//! their shape); the header's tag replaced by another type's. One to four mutations are
//! stacked per input.

/// SplitMix64: a small, fast, deterministic generator.
pub struct SplitMix(u64);

impl SplitMix {
    pub fn new(seed: u64) -> Self {
        SplitMix(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, n)` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// FNV-1a, to derive per-reader seeds from names.
pub fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

const HEADER_LEN: usize = 16;
const INTERESTING_BYTES: [u8; 6] = [0, 0xff, 0x7f, 0x80, 1, 0xfe];
/// Known object tags (header bytes 6-7).
const TAGS: [u16; 20] = [
    1, 2, 3, 4, 16, 17, 18, 19, 20, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42,
];

/// Offsets of the integer fields of embedded `Poly` bodies: a `u32` power of two in
/// `[16, 2^17]` (the degree), two `u16` limb counts up to 256 and a form byte 0 or 1.
pub fn poly_fields(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = HEADER_LEN;
    while i + 9 <= bytes.len() {
        let n = u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        let ql = u16::from_le_bytes([bytes[i + 4], bytes[i + 5]]);
        let pl = u16::from_le_bytes([bytes[i + 6], bytes[i + 7]]);
        if n.is_power_of_two()
            && (16..=1 << 17).contains(&n)
            && ql <= 256
            && pl <= 256
            && bytes[i + 8] <= 1
        {
            out.extend([(i, 4), (i + 4, 2), (i + 6, 2), (i + 8, 1)]);
            i += 9;
        } else {
            i += 1;
        }
    }
    out
}

/// The mutation engine.
pub struct Mutator {
    rng: SplitMix,
}

impl Mutator {
    pub fn new(rng: SplitMix) -> Self {
        Mutator { rng }
    }

    pub fn rng(&mut self) -> &mut SplitMix {
        &mut self.rng
    }

    /// `base` with one to four stacked mutations; `same` are inputs of the same reader,
    /// `others` of every reader (for splices).
    pub fn mutate(&mut self, base: &[u8], same: &[Vec<u8>], others: &[Vec<u8>]) -> Vec<u8> {
        let mut x = base.to_vec();
        let rounds = 1 + self.rng.below(4);
        for _ in 0..rounds {
            self.once(&mut x, same, others);
        }
        x
    }

    fn pos(&mut self, len: usize) -> usize {
        if len == 0 {
            0
        } else {
            self.rng.below(len as u64) as usize
        }
    }

    /// A range `[a, b)` of `x`, short more often than long.
    fn range(&mut self, len: usize) -> (usize, usize) {
        let a = self.pos(len);
        let max = (len - a.min(len)).max(1);
        let span = match self.rng.below(3) {
            0 => 1 + self.pos(8.min(max)),
            1 => 1 + self.pos(256.min(max)),
            _ => 1 + self.pos(max),
        };
        (a, (a + span).min(len))
    }

    /// An offset of an integer field: in the header, the first 64 bytes of the body, or an
    /// embedded `Poly` body.
    fn field(&mut self, x: &[u8]) -> (usize, usize) {
        let width = [1, 2, 4, 8][self.rng.below(4) as usize];
        match self.rng.below(4) {
            0 => {
                let polys = poly_fields(x);
                if polys.is_empty() {
                    (self.pos(x.len()), width)
                } else {
                    polys[self.pos(polys.len())]
                }
            }
            1 => (
                [6, 8][self.rng.below(2) as usize],
                [2, 8][self.rng.below(2) as usize],
            ),
            _ => (HEADER_LEN + self.pos(64), width),
        }
    }

    fn interesting(&mut self, old: u64, width: usize) -> u64 {
        let max = if width == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * width)) - 1
        };
        let v = match self.rng.below(10) {
            0 => 0,
            1 => 1,
            2 => max,
            3 => max / 2 + 1,
            4 => old.wrapping_add(1),
            5 => old.wrapping_sub(1),
            6 => old.wrapping_mul(2),
            7 => old / 2,
            8 => 1u64 << self.rng.below(8 * width as u64),
            _ => old ^ (1u64 << self.rng.below(8 * width as u64)),
        };
        v & max
    }

    fn once(&mut self, x: &mut Vec<u8>, same: &[Vec<u8>], others: &[Vec<u8>]) {
        let len = x.len();
        match self.rng.below(12) {
            // Bit flips.
            0 | 1 if len > 0 => {
                for _ in 0..1 + self.rng.below(8) {
                    let p = self.pos(len);
                    x[p] ^= 1 << self.rng.below(8);
                }
            }
            // A byte set to an interesting value.
            2 if len > 0 => {
                let p = self.pos(len);
                x[p] = INTERESTING_BYTES[self.rng.below(INTERESTING_BYTES.len() as u64) as usize];
            }
            // Insert random bytes.
            3 => {
                let p = self.pos(len + 1);
                let n = 1 + self.pos(64);
                let ins: Vec<u8> = (0..n).map(|_| self.rng.next() as u8).collect();
                x.splice(p..p, ins);
            }
            // Delete a range.
            4 if len > 0 => {
                let (a, b) = self.range(len);
                x.drain(a..b);
            }
            // Duplicate a range.
            5 if len > 0 => {
                let (a, b) = self.range(len);
                let dup = x[a..b].to_vec();
                let p = self.pos(len + 1);
                x.splice(p..p, dup);
            }
            // Truncate.
            6 if len > 0 => {
                let p = self.pos(len);
                x.truncate(p);
            }
            // Splice: a prefix of this input and a suffix of another.
            7 => {
                let pool = if self.rng.below(2) == 0 { same } else { others };
                if !pool.is_empty() {
                    let o = &pool[self.pos(pool.len())];
                    let a = self.pos(len + 1);
                    let b = self.pos(o.len() + 1);
                    x.truncate(a);
                    x.extend_from_slice(&o[b..]);
                }
            }
            // Another type's tag.
            8 if len >= 8 => {
                let t = TAGS[self.pos(TAGS.len())];
                x[6..8].copy_from_slice(&t.to_le_bytes());
            }
            // An integer field set to an interesting value.
            _ => {
                let (p, w) = self.field(x);
                if p + w <= x.len() {
                    let mut word = [0u8; 8];
                    word[..w].copy_from_slice(&x[p..p + w]);
                    let v = self.interesting(u64::from_le_bytes(word), w);
                    x[p..p + w].copy_from_slice(&v.to_le_bytes()[..w]);
                }
            }
        }
    }
}
