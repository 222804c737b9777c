//! [`Writer`] and [`Reader`]: little-endian primitives and LSB-first bit packing.

use crate::params::SecurityLevel;
use crate::{Error, Result};

/// The number of bytes `count` values of `width` bits occupy when bit-packed
/// (`ceil(count * width / 8)`), or `None` on overflow.
pub fn packed_len(count: usize, width: u32) -> Option<usize> {
    let bits = (count as u64).checked_mul(u64::from(width))?;
    usize::try_from(bits.div_ceil(8)).ok()
}

#[inline(always)]
fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Appends encoded values to a byte vector (integers little-endian).
///
/// Writing cannot fail: every check happens on the reading side.
#[derive(Clone, Debug, Default)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Writer { buf: Vec::new() }
    }

    /// An empty writer with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Self {
        Writer {
            buf: Vec::with_capacity(capacity),
        }
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing was written yet.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The bytes written so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The written bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// Reserves room for `additional` more bytes.
    pub fn reserve(&mut self, additional: usize) {
        self.buf.reserve(additional);
    }

    /// One byte.
    pub fn write_u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    /// A `u16`, little-endian.
    pub fn write_u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// A `u32`, little-endian.
    pub fn write_u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// A `u64`, little-endian.
    pub fn write_u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// Raw bytes, as they are.
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// `values`, each in `width` bits (`1 <= width <= 64`), packed LSB-first into
    /// [`packed_len`]`(values.len(), width)` bytes: value `k` occupies bits
    /// `k·width .. (k+1)·width` of the little-endian bit string, whose unused high bits in
    /// the last byte are zero.
    ///
    /// Bits of a value above `width` are dropped (a `debug_assert!` reports them).
    ///
    /// # Panics
    /// If `width` is not in `[1, 64]`.
    pub fn write_bits(&mut self, values: &[u64], width: u32) {
        assert!(
            (1..=64).contains(&width),
            "bit width {width} not in [1, 64]"
        );
        let total = packed_len(values.len(), width).expect("packed length overflows usize");
        self.buf.reserve(total);
        let m = mask(width);
        let mut acc: u128 = 0;
        let mut nbits = 0u32;
        for &v in values {
            debug_assert!(v & !m == 0, "value {v:#x} does not fit in {width} bits");
            acc |= u128::from(v & m) << nbits;
            nbits += width;
            if nbits >= 64 {
                self.buf.extend_from_slice(&(acc as u64).to_le_bytes());
                acc >>= 64;
                nbits -= 64;
            }
        }
        let tail = nbits.div_ceil(8) as usize;
        self.buf
            .extend_from_slice(&(acc as u64).to_le_bytes()[..tail]);
    }
}

/// What a reader accepts: the **caller's** policy, never the bytes'.
///
/// * `min_security`: the weakest security level a parameter set read from bytes may
///   claim or have (default [`SecurityLevel::Bits128`]). A CKKS parameter blob records
///   the level it was built for; one below `min_security` (in particular
///   [`SecurityLevel::NotChecked`]) is refused, and the level is checked again when the
///   context is built.
/// * `allow_heuristic_klss`: whether a CKKS parameter blob may select the heuristic KLSS
///   bound ([`KlssBound::Heuristic`](crate::rlwe::keyswitch::KlssBound), unsafe against
///   inputs chosen by an adversary who knows the key); default `false`.
/// * `max_alloc_bytes`: the most memory a read may allocate (default
///   [`ReadPolicy::DEFAULT_MAX_ALLOC`]). Everything a read allocates that grows with the
///   input or the parameters is charged to it *before* it is allocated
///   ([`Reader::charge`]): the decoded object itself (unpacked polynomials and
///   coefficient vectors, in `u64` words), its temporaries, what is expanded from seeds
///   (the `a` parts of seed-compressed keys and ciphertexts, the LWE key-switching masks),
///   the NTT form of secret keys, the tables of a parameter set's context and the KLSS
///   expansion of switching keys. What is not charged is bounded by a constant: error
///   messages, the header, and the small fixed-size parts of an object (a scale of at
///   most [`MAX_SCALE_BYTES`](super::MAX_SCALE_BYTES) bytes, a `B_g` schedule of at most
///   [`MAX_SCHEDULE_RUNS`](super::MAX_SCHEDULE_RUNS) runs). `tests/alloc_limits.rs`
///   measures that the peak of live memory during a read stays under the limit plus
///   that constant for every readable type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadPolicy {
    /// The weakest security level accepted from bytes.
    pub min_security: SecurityLevel,
    /// Accept the heuristic KLSS bound from bytes.
    pub allow_heuristic_klss: bool,
    /// The most bytes a read may allocate beyond its input.
    pub max_alloc_bytes: u64,
}

impl ReadPolicy {
    /// The default allocation limit: 4 GiB (enough for every CKKS context up to
    /// `N = 2^16` with 64 primes, and every FHEW preset's keys).
    pub const DEFAULT_MAX_ALLOC: u64 = 4 << 30;

    /// The same policy with another minimum security level.
    pub fn min_security(mut self, level: SecurityLevel) -> Self {
        self.min_security = level;
        self
    }

    /// The same policy accepting (or not) the heuristic KLSS bound.
    pub fn allow_heuristic_klss(mut self, allow: bool) -> Self {
        self.allow_heuristic_klss = allow;
        self
    }

    /// The same policy with another allocation limit.
    pub fn max_alloc_bytes(mut self, bytes: u64) -> Self {
        self.max_alloc_bytes = bytes;
        self
    }
}

impl Default for ReadPolicy {
    /// 128-bit security, no heuristic KLSS bound, [`ReadPolicy::DEFAULT_MAX_ALLOC`].
    fn default() -> Self {
        ReadPolicy {
            min_security: SecurityLevel::Bits128,
            allow_heuristic_klss: false,
            max_alloc_bytes: Self::DEFAULT_MAX_ALLOC,
        }
    }
}

/// Reads encoded values from a byte slice, under a [`ReadPolicy`].
///
/// Every method checks the bytes left first and returns [`Error::Deserialize`] with what
/// was expected instead of panicking; nothing is allocated here beyond what the input
/// holds, and what a read builds beyond that is charged to the policy's allocation budget
/// first ([`Reader::charge`]).
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    policy: ReadPolicy,
    /// Bytes charged so far.
    charged: u64,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`, with the default [`ReadPolicy`].
    pub fn new(bytes: &'a [u8]) -> Self {
        Self::with_policy(bytes, ReadPolicy::default())
    }

    /// A reader at the start of `bytes` under `policy`.
    pub fn with_policy(bytes: &'a [u8], policy: ReadPolicy) -> Self {
        Reader {
            bytes,
            pos: 0,
            policy,
            charged: 0,
        }
    }

    /// The policy this reader applies.
    pub fn policy(&self) -> &ReadPolicy {
        &self.policy
    }

    /// Charges `bytes` of memory that the read is about to build (beyond its input) to the
    /// policy's budget; refuses with [`Error::Deserialize`] naming `what` if the total
    /// would pass [`ReadPolicy::max_alloc_bytes`]. Call it *before* allocating.
    pub fn charge(&mut self, bytes: u64, what: &str) -> Result<()> {
        let total = self.charged.saturating_add(bytes);
        if total > self.policy.max_alloc_bytes {
            return Err(Error::Deserialize(format!(
                "{what} would need {bytes} bytes of memory ({total} in all for this read), \
                 over the reader's limit of {} bytes; raise ReadPolicy::max_alloc_bytes if \
                 the object is trusted and that much memory is intended",
                self.policy.max_alloc_bytes
            )));
        }
        self.charged = total;
        Ok(())
    }

    /// [`Reader::charge`] for `count` values of type `T` (a vector about to be allocated).
    pub fn charge_vec<T>(&mut self, count: usize, what: &str) -> Result<()> {
        let bytes = (count as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        self.charge(bytes, what)
    }

    /// Bytes charged so far ([`Reader::charge`]).
    pub fn charged(&self) -> u64 {
        self.charged
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// Whether every byte was consumed.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// `Ok` if at least `len` bytes are left, otherwise
    /// `"truncated: expected {len} bytes of {what}, {left} left"`.
    pub fn require(&self, len: usize, what: &str) -> Result<()> {
        if self.remaining() < len {
            return Err(Error::Deserialize(format!(
                "truncated: expected {len} bytes of {what}, {} left",
                self.remaining()
            )));
        }
        Ok(())
    }

    /// The next `len` bytes.
    pub fn read_bytes(&mut self, len: usize, what: &str) -> Result<&'a [u8]> {
        self.require(len, what)?;
        let out = &self.bytes[self.pos..self.pos + len];
        self.pos += len;
        Ok(out)
    }

    /// The next `N` bytes as an array.
    pub fn read_array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.read_bytes(N, what)?);
        Ok(out)
    }

    /// One byte.
    pub fn read_u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.read_array::<1>(what)?[0])
    }

    /// A little-endian `u16`.
    pub fn read_u16(&mut self, what: &str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.read_array(what)?))
    }

    /// A little-endian `u32`.
    pub fn read_u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.read_array(what)?))
    }

    /// A little-endian `u64`.
    pub fn read_u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.read_array(what)?))
    }

    /// Fills `out` with values of `width` bits packed as by [`Writer::write_bits`],
    /// consuming [`packed_len`]`(out.len(), width)` bytes. The padding bits of the last byte
    /// must be zero (so every value has exactly one encoding). Values are not range-checked
    /// beyond `width`: that is the caller's job.
    pub fn read_bits(&mut self, out: &mut [u64], width: u32, what: &str) -> Result<()> {
        if !(1..=64).contains(&width) {
            return Err(Error::Deserialize(format!(
                "bit width {width} of {what} is not in [1, 64]"
            )));
        }
        let len = packed_len(out.len(), width)
            .ok_or_else(|| Error::Deserialize(format!("length of {what} overflows")))?;
        let bytes = self.read_bytes(len, what)?;
        let m = mask(width);
        let mut acc: u128 = 0;
        let mut nbits = 0u32;
        let mut pos = 0usize;
        for o in out.iter_mut() {
            if nbits < width {
                // One load always suffices: a full word gives 64 >= width bits, and a
                // partial word is the tail, which holds every remaining bit.
                let take = (len - pos).min(8);
                let mut word = [0u8; 8];
                word[..take].copy_from_slice(&bytes[pos..pos + take]);
                pos += take;
                acc |= u128::from(u64::from_le_bytes(word)) << nbits;
                nbits += 8 * take as u32;
            }
            *o = (acc as u64) & m;
            acc >>= width;
            nbits -= width;
        }
        debug_assert_eq!(pos, len);
        if acc != 0 {
            return Err(Error::Deserialize(format!(
                "non-zero padding bits at the end of {what}"
            )));
        }
        Ok(())
    }

    /// `Ok` if every byte was consumed, otherwise an error naming the trailing bytes.
    pub fn finish(&self) -> Result<()> {
        if !self.is_empty() {
            return Err(Error::Deserialize(format!(
                "trailing bytes: {} bytes after the end of the object (at offset {})",
                self.remaining(),
                self.pos
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_round_trip_for_every_width() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for width in 1..=64u32 {
            for count in [0usize, 1, 2, 3, 7, 8, 9, 63, 64, 65, 1000] {
                let vals: Vec<u64> = (0..count)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x & mask(width)
                    })
                    .collect();
                let mut w = Writer::new();
                w.write_u8(0xAA);
                w.write_bits(&vals, width);
                assert_eq!(w.len(), 1 + packed_len(count, width).unwrap());
                let bytes = w.into_bytes();
                let mut r = Reader::new(&bytes);
                assert_eq!(r.read_u8("x").unwrap(), 0xAA);
                let mut out = vec![0u64; count];
                r.read_bits(&mut out, width, "values").unwrap();
                assert_eq!(out, vals, "width {width} count {count}");
                r.finish().unwrap();
            }
        }
    }

    #[test]
    fn nonzero_padding_and_truncation_are_errors() {
        let mut w = Writer::new();
        w.write_bits(&[1, 2, 3], 3); // 9 bits -> 2 bytes, 7 padding bits
        let mut bytes = w.into_bytes();
        assert_eq!(bytes.len(), 2);
        bytes[1] |= 0x80;
        let mut out = [0u64; 3];
        let e = Reader::new(&bytes).read_bits(&mut out, 3, "v").unwrap_err();
        assert!(e.to_string().contains("padding"), "{e}");
        let e = Reader::new(&bytes[..1])
            .read_bits(&mut out, 3, "v")
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("truncated: expected 2 bytes of v, 1 left"),
            "{e}"
        );
        assert!(Reader::new(&[]).read_u64("x").is_err());
        assert!(Reader::new(&[1]).finish().is_err());
    }
}
