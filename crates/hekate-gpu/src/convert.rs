//! [`DeviceBaseConverter`]: a [`BaseConverter`]'s tables on the device, and the ModUp /
//! ModDown steps built on it (`kernels/bconv.cl`).

use crate::error::{Error, Result};
use crate::kernels::KernelModule;
use crate::poly::DevicePoly;
use crate::runtime::{Arg, Buffer, Gpu};
use hekate::math::rns::BaseConverter;

/// Work-items per group of the conversion kernels.
const GROUP: usize = 256;

/// The exact conversion `Conv_{C -> B}` of a [`BaseConverter`] on the device: its tables
/// ([`hekate::math::rns::ConvTables`]) uploaded once; the outputs are the CPU's words.
pub struct DeviceBaseConverter {
    from: Buffer,
    to: Buffer,
    q_hat_mod_p: Buffer,
    neg_vq: Buffer,
    from_len: usize,
    to_len: usize,
}

impl DeviceBaseConverter {
    /// Uploads the tables of `conv`.
    pub fn new(gpu: &Gpu, conv: &BaseConverter) -> Result<Self> {
        let t = conv.tables();
        let l = t.from.len();
        if l == 0 || l > t.max_terms {
            return Err(Error::InvalidInput(format!(
                "a conversion from {l} primes (the device sums at most {} products in 128 bits)",
                t.max_terms
            )));
        }
        let mut from = Vec::with_capacity(4 * l);
        for i in 0..l {
            from.extend_from_slice(&[
                t.from[i].value(),
                t.q_hat_inv[i],
                t.q_hat_inv_shoup[i],
                t.inv_q[i].to_bits(),
            ]);
        }
        let mut to = Vec::with_capacity(4 * t.to.len());
        for p in t.to {
            let (lo, hi) = p.barrett();
            to.extend_from_slice(&[p.value(), lo, hi, 0]);
        }
        Ok(DeviceBaseConverter {
            from: gpu.upload(&from)?,
            to: gpu.upload(&to)?,
            q_hat_mod_p: gpu.upload(t.q_hat_mod_p)?,
            neg_vq: gpu.upload(t.neg_vq_mod_p)?,
            from_len: l,
            to_len: t.to.len(),
        })
    }

    /// Number of input primes.
    pub fn from_len(&self) -> usize {
        self.from_len
    }

    /// Number of target primes.
    pub fn to_len(&self) -> usize {
        self.to_len
    }

    /// The target tables every output kernel reads: `to`, `q_hat_mod_p`, `neg_vq`.
    fn targets(&self) -> [Arg<'_>; 3] {
        [
            Arg::Buf(&self.to),
            Arg::Buf(&self.q_hat_mod_p),
            Arg::Buf(&self.neg_vq),
        ]
    }

    /// First step: `y` rows and `v` of the input limbs `in_first .. in_first + from_len()`
    /// of `input` (coefficient form, reduced), into a new scratch buffer of
    /// `(from_len() + 1) N` words.
    pub fn prepare(&self, input: &DevicePoly, in_first: usize) -> Result<Buffer> {
        if in_first + self.from_len > input.num_limbs() {
            return Err(Error::InvalidInput(
                "conversion input limbs out of range".into(),
            ));
        }
        let n = input.n();
        let scratch = input.context().gpu().alloc((self.from_len + 1) * n)?;
        launch(
            input,
            "hk_bconv_yv",
            1,
            &[
                Arg::Buf(&scratch),
                Arg::Buf(input.buffer()),
                Arg::Buf(&self.from),
                Arg::U32(n as u32),
                Arg::U32(self.from_len as u32),
                Arg::U32(in_first as u32),
                Arg::U32(1),
            ],
        )?;
        Ok(scratch)
    }

    /// Second step: the targets `j0 .. j0 + count` from a [`prepare`](Self::prepare)d
    /// scratch, written to limbs `out_first .. out_first + count` of `out`.
    pub fn write(
        &self,
        scratch: &Buffer,
        out: &mut DevicePoly,
        j0: usize,
        count: usize,
        out_first: usize,
    ) -> Result<()> {
        if j0 + count > self.to_len || out_first + count > out.num_limbs() {
            return Err(Error::InvalidInput(
                "conversion targets out of range".into(),
            ));
        }
        if count == 0 {
            return Ok(());
        }
        let [to, q_hat, neg_vq] = self.targets();
        launch(
            out,
            "hk_bconv_out",
            count,
            &[
                Arg::Buf(out.buffer()),
                Arg::Buf(scratch),
                to,
                q_hat,
                neg_vq,
                Arg::U32(out.n() as u32),
                Arg::U32(self.from_len as u32),
                Arg::U32(j0 as u32),
                Arg::U32(out_first as u32),
                Arg::U32(1),
            ],
        )
    }

    /// [`prepare`](Self::prepare) then [`write`](Self::write) of the targets `0 .. count`
    /// in one launch without a scratch (each output word computes the first step itself;
    /// the same words): `inputs[h]`'s limbs `in_first .. in_first + from_len()` (coefficient
    /// form, reduced) converted into `outs[h]`'s limbs `0 .. count`, one or two inputs of
    /// the same shape (ModDown's conversion of a key switch's two halves).
    pub fn convert<const K: usize>(
        &self,
        inputs: [&DevicePoly; K],
        in_first: usize,
        outs: [&mut DevicePoly; K],
        count: usize,
    ) -> Result<()> {
        let (input, out) = (inputs[0], &outs[0]);
        let same = inputs
            .iter()
            .all(|p| p.num_limbs() == input.num_limbs() && p.n() == input.n())
            && outs
                .iter()
                .all(|p| p.num_limbs() == out.num_limbs() && p.n() == input.n());
        if !same
            || in_first + self.from_len > input.num_limbs()
            || count > self.to_len
            || count > out.num_limbs()
        {
            return Err(Error::InvalidInput(format!(
                "conversion of limbs {in_first}.. of {} to {count} limbs of {} (a conversion \
                 from {} to {} primes), or shapes that differ",
                input.num_limbs(),
                out.num_limbs(),
                self.from_len,
                self.to_len
            )));
        }
        if count == 0 {
            return Ok(());
        }
        let per = if K == 2 { count as u32 } else { u32::MAX };
        let [to, q_hat, neg_vq] = self.targets();
        launch(
            input,
            "hk_bconv_direct",
            K * count,
            &[
                Arg::Buf(outs[0].buffer()),
                Arg::Buf(outs[K - 1].buffer()),
                Arg::Buf(inputs[0].buffer()),
                Arg::Buf(inputs[K - 1].buffer()),
                Arg::U32(per),
                Arg::Buf(&self.from),
                to,
                q_hat,
                neg_vq,
                Arg::U32(input.n() as u32),
                Arg::U32(self.from_len as u32),
                Arg::U32(in_first as u32),
            ],
        )
    }

    /// ModUp in one launch: every limb of `out` (`ql` chain limbs, then the special
    /// primes) for the digit `digit` of `c` (NTT form, `ql` limbs) and `c_coeff` (the same
    /// polynomial in coefficient form): the digit's own limbs copied from `c`, the others
    /// converted from `c_coeff`'s digit limbs, the targets being the special primes, then
    /// the chain below the digit, then above it (the hybrid key switch's converters). No
    /// scratch: each output word computes the conversion's first step itself, the same
    /// words as [`prepare`](Self::prepare) then [`write`](Self::write). The converted limbs
    /// are left in coefficient form: [`DevicePoly::forward_limbs_except`] with the digit
    /// skipped transforms them.
    pub fn mod_up(
        &self,
        c: &DevicePoly,
        c_coeff: &DevicePoly,
        digit: std::ops::Range<usize>,
        out: &mut DevicePoly,
    ) -> Result<()> {
        let (ql, kp) = (out.q_limbs(), out.p_limbs());
        if c.num_limbs() != ql
            || c_coeff.num_limbs() != ql
            || out.n() != c.n()
            || c_coeff.n() != c.n()
            || digit.is_empty()
            || digit.end > ql
            || digit.len() != self.from_len
            || kp + ql - digit.len() > self.to_len
        {
            return Err(Error::InvalidInput(format!(
                "ModUp of digit {digit:?} from {} limbs to {ql} + {kp} with a conversion from {} \
                 to {} primes",
                c.num_limbs(),
                self.from_len,
                self.to_len
            )));
        }
        let [to, q_hat, neg_vq] = self.targets();
        launch(
            out,
            "hk_bconv_mod_up_out",
            ql + kp,
            &[
                Arg::Buf(out.buffer()),
                Arg::Buf(c.buffer()),
                Arg::Buf(c_coeff.buffer()),
                Arg::Buf(&self.from),
                to,
                q_hat,
                neg_vq,
                Arg::U32(out.n() as u32),
                Arg::U32(self.from_len as u32),
                Arg::U32(ql as u32),
                Arg::U32(kp as u32),
                Arg::U32(digit.start as u32),
                Arg::U32(digit.end as u32),
            ],
        )
    }
}

/// Launches the conversion kernel `kernel` on `rows` rows (grid y) of `like`'s `N`
/// coefficients (grid x, [`GROUP`] per work-group).
fn launch(like: &DevicePoly, kernel: &str, rows: usize, args: &[Arg<'_>]) -> Result<()> {
    let gpu = like.context().gpu();
    let n = like.n();
    let block = n.min(GROUP);
    gpu.launch(
        &*gpu.module(KernelModule::Bconv)?,
        kernel,
        [n.div_ceil(block) as u32, rows as u32],
        block as u32,
        args,
    )
}

impl std::fmt::Debug for DeviceBaseConverter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceBaseConverter({} -> {} primes)",
            self.from_len, self.to_len
        )
    }
}
