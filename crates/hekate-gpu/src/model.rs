//! A memory-traffic model of the device operations as the kernels implement them today, to
//! predict their time on a GPU before one is at hand and to be checked by the first run on
//! one (`hekate bench gpu` prints the model beside the measurement).
//!
//! Every kernel here is memory-bound (a few word multiplications per word moved), so the
//! model counts the bytes each launch reads from and writes to device memory, and divides by
//! the memory bandwidth; each launch adds a fixed gap. Counted per limb of `N` words:
//!
//! * NTT (either direction): one read and one write per column pass (the `log2(N / tile)`
//!   stages whose blocks exceed a tile, up to `log2(tile) - 4` of them per pass: one pass at
//!   `N = 2^16`), one read and one write for the tile kernel, and the twiddles with their
//!   companions (2 words per coefficient, each read once);
//! * coefficient-wise kernels: their operands and output;
//! * base conversion (ModUp's and ModDown's, one launch each, no scratch): the `l` input
//!   limbs read and every output limb written once (each output word recomputes the first
//!   step from the input limbs, which are assumed to stay in the L2 cache: `l N` words, at
//!   most a few MiB at `N = 2^16`);
//! * the fused inner product: every digit and key word read once, both accumulators written.
//!
//! Not counted: the L2-resident re-reads, the tables (moduli, converters), and compute
//! (Shoup products are a few instructions per word). The numbers are predictions, not
//! measurements; `BENCHMARKS.md` ("GPU") records both once a GPU has run them.

/// Bytes moved and kernel launches of one operation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Traffic {
    /// Bytes read from and written to device memory.
    pub bytes: f64,
    /// Kernel launches.
    pub launches: u32,
}

impl Traffic {
    /// The predicted time in milliseconds at `bandwidth` bytes per second with a
    /// `gap_us` microsecond gap per launch.
    pub fn ms(&self, bandwidth: f64, gap_us: f64) -> f64 {
        self.bytes / bandwidth * 1e3 + self.launches as f64 * gap_us * 1e-3
    }

    fn add(&mut self, other: Traffic) {
        self.bytes += other.bytes;
        self.launches += other.launches;
    }

    /// The same work on two polynomials in the same launches (a ciphertext's two parts).
    fn pair(self) -> Traffic {
        Traffic {
            bytes: 2.0 * self.bytes,
            launches: self.launches,
        }
    }
}

/// H100 SXM5 HBM3 peak bandwidth, bytes per second (3.35 TB/s).
pub const H100_BANDWIDTH: f64 = 3.35e12;

/// A launch-to-launch gap on a busy stream, microseconds (kernels queued asynchronously).
pub const LAUNCH_GAP_US: f64 = 3.0;

/// The shape of a CKKS operation: degree `N`, the chain, the level, special primes,
/// digits, and the NTT tile.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Ring degree `N`.
    pub n: usize,
    /// Chain length `L + 1` (the hybrid engine splits it into `dnum` digits).
    pub chain: usize,
    /// Chain limbs at the operation's level (`l + 1`).
    pub ql: usize,
    /// Special primes `k`.
    pub k: usize,
    /// Digits `dnum` of the key (the level uses `ceil(ql / alpha)` of them).
    pub dnum: usize,
    /// Words of the NTT tile in local memory.
    pub tile: usize,
}

impl Shape {
    fn limb(&self) -> f64 {
        (self.n * 8) as f64
    }

    /// Primes per digit `α = ceil((L + 1) / dnum)`.
    fn alpha(&self) -> usize {
        self.chain.div_ceil(self.dnum)
    }

    fn beta(&self) -> usize {
        self.ql.div_ceil(self.alpha())
    }
}

/// One NTT over `limbs` limbs (either direction).
pub fn ntt(s: &Shape, limbs: usize) -> Traffic {
    let passes = crate::poly::column_passes(s.n, s.tile.min(s.n)).len();
    let per_limb = s.limb() * (2 * (passes + 1) + 2) as f64;
    Traffic {
        bytes: per_limb * limbs as f64,
        launches: passes as u32 + 1,
    }
}

/// A coefficient-wise kernel reading `reads` and writing `writes` polynomials of `limbs`.
fn elementwise(s: &Shape, limbs: usize, reads: usize, writes: usize) -> Traffic {
    Traffic {
        bytes: s.limb() * (limbs * (reads + writes)) as f64,
        launches: 1,
    }
}

/// Base conversion from `from` limbs to `to` limbs in one launch without a scratch (the
/// input re-read per output limb from the L2 cache).
fn bconv_direct(s: &Shape, from: usize, to: usize) -> Traffic {
    Traffic {
        bytes: s.limb() * (from + to) as f64,
        launches: 1,
    }
}

/// Key switching of one polynomial (hybrid: decompose, inner product, ModDown of both
/// halves), without the final additions.
pub fn key_switch(s: &Shape) -> Traffic {
    let (ql, k, alpha, beta) = (s.ql, s.k, s.alpha(), s.beta());
    debug_assert!(beta >= 1);
    let mut t = Traffic::default();
    // Decompose: copy c, inverse NTT; per digit ModUp (the conversion in one launch without
    // a scratch, which also copies the digit's own limbs, and one forward NTT of the other
    // limbs).
    t.add(elementwise(s, ql, 1, 1));
    t.add(ntt(s, ql));
    for j in 0..beta {
        let (start, end) = (j * alpha, ((j + 1) * alpha).min(ql));
        let others = ql - (end - start) + k;
        t.add(bconv_direct(s, end - start, others));
        t.bytes += s.limb() * (2 * (end - start)) as f64;
        t.add(ntt(s, others));
    }
    // The fused inner product: beta digits and 2 beta key polynomials read, 2 written.
    t.add(Traffic {
        bytes: s.limb() * ((ql + k) * (3 * beta + 2)) as f64,
        launches: beta.div_ceil(8) as u32,
    });
    // ModDown of both halves in the same launches: inverse NTT of P, conversion, forward
    // NTT, subtract-multiply.
    let mod_down = {
        let mut m = ntt(s, k);
        m.add(bconv_direct(s, k, ql));
        m.add(ntt(s, ql));
        m.add(elementwise(s, ql, 2, 1));
        m
    };
    t.add(mod_down.pair());
    t
}

/// Multiplication with relinearization at the shape's level (the final sums of both parts
/// in one launch).
pub fn mul_relin(s: &Shape) -> Traffic {
    let mut t = Traffic::default();
    // Tensor in one pass: four inputs read, three outputs written.
    t.add(elementwise(s, s.ql, 4, 3));
    t.add(key_switch(s));
    t.add(elementwise(s, s.ql, 2, 1).pair());
    t
}

/// A rotation: key switch of `c_1`, the sum with `c_0`, the permutation of both parts.
pub fn rotate(s: &Shape) -> Traffic {
    let mut t = key_switch(s);
    t.add(elementwise(s, s.ql, 2, 1));
    t.add(elementwise(s, s.ql, 1, 1).pair());
    t
}

/// Rescaling both parts (a copy of each, as [`crate::ckks::DeviceEvaluator::rescale`]; the
/// in-place `rescale_assign` saves the copies): per part, the last limb's inverse NTT in
/// place, the lift to the other limbs, their NTT and the subtraction, both parts in the
/// same launches.
pub fn rescale(s: &Shape) -> Traffic {
    let l = s.ql - 1;
    let per_part = {
        let mut p = ntt(s, 1);
        p.add(elementwise(s, l, 1, 1));
        p.add(ntt(s, l));
        p.add(elementwise(s, l, 2, 1));
        p
    };
    let mut t = elementwise(s, s.ql, 1, 1).pair(); // the copy of the parts
    t.add(per_part.pair());
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mul_relin_at_the_notes_shape_moves_about_one_and_a_half_gib() {
        // N = 2^16, 32 chain limbs, 11 special primes, dnum 3, 2048-word tiles.
        let s = Shape {
            n: 1 << 16,
            chain: 32,
            ql: 32,
            k: 11,
            dnum: 3,
            tile: 2048,
        };
        let t = mul_relin(&s);
        let gib = t.bytes / (1u64 << 30) as f64;
        assert!((1.2..2.0).contains(&gib), "{gib} GiB");
        // Some 200 limb-NTTs: 32 inverse, 3 x 32 forward (ModUp), 2 x (11 + 32) (ModDown),
        // two passes over memory each (a column pass and a tile pass) plus the twiddles.
        let limb_ntts = 32 + 3 * 32 + 2 * (11 + 32);
        let ntt_bytes = ntt(&s, limb_ntts).bytes;
        let share = ntt_bytes / t.bytes;
        assert!((0.3..0.6).contains(&share), "NTT share {share}");
        let ms = t.ms(H100_BANDWIDTH, LAUNCH_GAP_US);
        assert!(ms > 0.3 && ms < 2.0, "{ms} ms");
    }
}
