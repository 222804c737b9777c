//! The device NTT on a [`DevicePoly`] (`kernels/ntt.cl`): every limb or a range of limbs, a
//! window of limbs skipped (ModUp), or two polynomials of the same shape in the same
//! launches (rescaling and ModDown of a ciphertext's two parts).

use super::DevicePoly;
use crate::error::{Error, Result};
use crate::kernels::KernelModule;
use crate::runtime::Arg;
use hekate::ring::Form;
use std::ops::Range;

/// Work-items per group of the NTT tile kernels (each loops over its share of the tile).
const TILE_GROUP: usize = 512;

/// The limbs an NTT launch transforms: `range` less the window `skip` (inside `range`,
/// or empty).
struct LimbSet {
    range: Range<usize>,
    skip: Range<usize>,
}

impl LimbSet {
    fn count(&self) -> usize {
        self.range.len() - self.skip.len()
    }
}

impl DevicePoly {
    /// To NTT form (no-op if already there), as [`Poly::ntt`](hekate::ring::Poly::ntt): reduced outputs.
    pub fn ntt(&mut self) -> Result<()> {
        if self.form == Form::Ntt {
            return Ok(());
        }
        self.forward(true)?;
        self.form = Form::Ntt;
        Ok(())
    }

    /// To coefficient form (no-op if already there), as [`Poly::intt`](hekate::ring::Poly::intt).
    pub fn intt(&mut self) -> Result<()> {
        if self.form == Form::Coeff {
            return Ok(());
        }
        self.inverse(true)?;
        self.form = Form::Coeff;
        Ok(())
    }

    /// The forward transform of every limb in place, without changing the declared form:
    /// `[0, q)` to `[0, q)` when `reduce`, else `[0, 2q)` to `[0, 2q)` (as
    /// `NttPlan::forward` / `NttPlan::forward_lazy`; the lazy words equal the scalar
    /// backend's).
    pub fn forward(&mut self, reduce: bool) -> Result<()> {
        self.forward_limbs(0..self.num_limbs(), reduce)
    }

    /// The inverse transform of every limb in place (with `N^-1`), without changing the
    /// declared form: `[0, q)` to `[0, q)` when `reduce`, else `[0, 2q)` to `[0, 2q)` (as
    /// `NttPlan::inverse` / `NttPlan::inverse_lazy`).
    pub fn inverse(&mut self, reduce: bool) -> Result<()> {
        self.inverse_limbs(0..self.num_limbs(), reduce)
    }

    /// The limbs `limbs` less the window `skip`, checked against this polynomial.
    fn limb_set(&self, limbs: Range<usize>, skip: Range<usize>) -> Result<LimbSet> {
        let inside = skip.is_empty() || (limbs.start <= skip.start && skip.end <= limbs.end);
        if limbs.start > limbs.end || limbs.end > self.num_limbs() || !inside {
            return Err(Error::InvalidInput(format!(
                "limbs {limbs:?} less {skip:?} of a polynomial with {}",
                self.num_limbs()
            )));
        }
        Ok(LimbSet { range: limbs, skip })
    }

    /// Launches an NTT kernel on `groups x count` work-groups of `block` items over the
    /// limbs of `limbs` (`count` of them: `limbs.range` less `limbs.skip`), of this
    /// polynomial and, when given, the same limbs of `second` (twice the rows): the
    /// arguments are the polynomials and the rows per polynomial, the twiddles, the
    /// standard tail, the first limb and the skipped window, then `extra` (`ntt.cl`'s
    /// signatures).
    fn launch_ntt(
        &self,
        second: Option<&DevicePoly>,
        kernel: &str,
        groups: usize,
        block: usize,
        limbs: &LimbSet,
        extra: &[Arg<'_>],
    ) -> Result<()> {
        let gpu = self.ctx.gpu();
        let module = gpu.module(KernelModule::Ntt)?;
        let (skip_at, skip_len) = if limbs.skip.is_empty() {
            (u32::MAX, 0)
        } else {
            (limbs.skip.start as u32, limbs.skip.len() as u32)
        };
        let (a1, per, rows) = match second {
            Some(b) => (&b.buf, limbs.count() as u32, 2 * limbs.count()),
            None => (&self.buf, u32::MAX, limbs.count()),
        };
        let mut args = vec![
            Arg::Buf(&self.buf),
            Arg::Buf(a1),
            Arg::U32(per),
            Arg::Buf(&self.ctx.twiddles),
        ];
        args.extend_from_slice(&self.tail_args());
        args.extend([
            Arg::U32(limbs.range.start as u32),
            Arg::U32(skip_at),
            Arg::U32(skip_len),
        ]);
        args.extend_from_slice(extra);
        gpu.launch(
            &module,
            kernel,
            [groups as u32, rows as u32],
            block as u32,
            &args,
        )
    }

    /// Work-items per group of the tile kernels.
    fn tile_block(&self) -> usize {
        (self.ctx.tile() / 2)
            .min(TILE_GROUP)
            .min(self.ctx.gpu().info().max_group as usize)
    }

    /// [`forward`](Self::forward) of the limbs in `limbs` only.
    pub fn forward_limbs(&mut self, limbs: Range<usize>, reduce: bool) -> Result<()> {
        self.forward_limbs_except(limbs, 0..0, reduce)
    }

    /// [`forward`](Self::forward) of the limbs in `limbs` but those in `skip` (a window
    /// inside `limbs`, or empty), in one launch per pass: ModUp transforms every limb but
    /// its digit's own.
    pub fn forward_limbs_except(
        &mut self,
        limbs: Range<usize>,
        skip: Range<usize>,
        reduce: bool,
    ) -> Result<()> {
        self.forward_of(None, limbs, skip, reduce)
    }

    /// [`forward_limbs`](Self::forward_limbs) of the same limbs of `a` and `b` (the same
    /// shape) in one launch per pass.
    pub fn forward_limbs_pair(
        a: &mut DevicePoly,
        b: &mut DevicePoly,
        limbs: Range<usize>,
        reduce: bool,
    ) -> Result<()> {
        a.forward_of(Some(b), limbs, 0..0, reduce)
    }

    /// The forward passes over `limbs` less `skip` of this polynomial and `second`.
    pub(crate) fn forward_of(
        &self,
        second: Option<&DevicePoly>,
        limbs: Range<usize>,
        skip: Range<usize>,
        reduce: bool,
    ) -> Result<()> {
        self.check_pair(second)?;
        let limbs = &self.limb_set(limbs, skip)?;
        if limbs.count() == 0 {
            return Ok(());
        }
        let (n, tile) = (self.n(), self.ctx.tile());
        // Stages whose blocks exceed a tile, t = N/2 down to tile, in column passes.
        let mut log_t_hi = n.trailing_zeros() - 1;
        for r in column_passes(n, tile) {
            let cols = tile >> r;
            self.launch_ntt(
                second,
                "hk_ntt_fwd_cols",
                n >> r >> cols.trailing_zeros(),
                self.tile_block(),
                limbs,
                &[Arg::U32(log_t_hi), Arg::U32(r), Arg::U32(cols as u32)],
            )?;
            log_t_hi -= r;
        }
        let extra = [Arg::U32(tile as u32), Arg::U32(reduce as u32)];
        self.launch_ntt(
            second,
            "hk_ntt_fwd_tail",
            n / tile,
            self.tile_block(),
            limbs,
            &extra,
        )
    }

    /// [`inverse`](Self::inverse) of the limbs in `limbs` only.
    pub fn inverse_limbs(&mut self, limbs: Range<usize>, reduce: bool) -> Result<()> {
        self.inverse_of(None, limbs, reduce)
    }

    /// [`inverse_limbs`](Self::inverse_limbs) of the same limbs of `a` and `b` (the same
    /// shape) in one launch per pass.
    pub fn inverse_limbs_pair(
        a: &mut DevicePoly,
        b: &mut DevicePoly,
        limbs: Range<usize>,
        reduce: bool,
    ) -> Result<()> {
        a.inverse_of(Some(b), limbs, reduce)
    }

    /// The inverse passes over `limbs` of this polynomial and `second`.
    pub(crate) fn inverse_of(
        &self,
        second: Option<&DevicePoly>,
        limbs: Range<usize>,
        reduce: bool,
    ) -> Result<()> {
        self.check_pair(second)?;
        let limbs = &self.limb_set(limbs, 0..0)?;
        if limbs.count() == 0 {
            return Ok(());
        }
        let (n, tile) = (self.n(), self.ctx.tile());
        let extra = [Arg::U32(tile as u32), Arg::U32(reduce as u32)];
        self.launch_ntt(
            second,
            "hk_ntt_inv_head",
            n / tile,
            self.tile_block(),
            limbs,
            &extra,
        )?;
        // Stages t = tile .. N/2 in column passes, the last one (N^-1) included.
        let mut log_t_lo = tile.trailing_zeros();
        for r in column_passes(n, tile) {
            let cols = tile >> r;
            self.launch_ntt(
                second,
                "hk_ntt_inv_cols",
                n >> r >> cols.trailing_zeros(),
                self.tile_block(),
                limbs,
                &[
                    Arg::U32(log_t_lo),
                    Arg::U32(r),
                    Arg::U32(cols as u32),
                    Arg::U32(reduce as u32),
                ],
            )?;
            log_t_lo += r;
        }
        Ok(())
    }
}

/// The stages each column launch of an NTT runs (`hk_ntt_fwd_cols` / `hk_ntt_inv_cols`):
/// the `log2(N / tile)` stages whose butterfly blocks exceed a tile, in passes of at most
/// `log2(tile) - 4` stages (rows of at least 16 consecutive words, for coalescing), which is
/// one pass up to N = 2^18 with 2048-word tiles.
pub(crate) fn column_passes(n: usize, tile: usize) -> Vec<u32> {
    let mut left = (n / tile).trailing_zeros();
    let most = tile.trailing_zeros().saturating_sub(4).max(1);
    let mut passes = Vec::new();
    while left > 0 {
        let r = left.min(most);
        passes.push(r);
        left -= r;
    }
    passes
}
