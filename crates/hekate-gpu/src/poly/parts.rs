//! A ciphertext's parts two at a time. The pair kernels (`elementwise.cl`'s
//! `HK_PAIR_PROLOGUE` and `HK_PICK`) run one operation on two polynomials of the same shape
//! in one launch, so that each operation below launches once per two parts instead of once
//! per part; the single-polynomial methods of [`DevicePoly`] are the same kernels on one
//! (each buffer passed twice). The H200 run found the dense bootstrap bound by the host's
//! cost per launch (BENCHMARKS.md, "GPU backend on an NVIDIA H200"), so launches, not bytes,
//! are what these save.

use super::DevicePoly;
use crate::error::{Error, Result};
use crate::kernels::KernelModule;
use crate::runtime::{Arg, Buffer};

/// Work-items per group of the copy kernel.
const GROUP: usize = 256;

impl DevicePoly {
    /// Runs pair kernel `kernel` over `count` polynomials with the limbs and moduli of
    /// `shape`, two per launch: `buffers(i)` are polynomial `i`'s operands in the kernel's
    /// order, each followed in the launch by its partner's (or by itself for an odd one
    /// out); then `per`, `extra` (tables shared by both) and the standard tail.
    pub(crate) fn run_parts<'b>(
        shape: &DevicePoly,
        kernel: &str,
        count: usize,
        buffers: impl Fn(usize) -> Vec<&'b Buffer>,
        extra: &[Arg<'_>],
    ) -> Result<()> {
        let rows = shape.num_limbs();
        for i in (0..count).step_by(2) {
            let first = buffers(i);
            let second = (i + 1 < count).then(|| buffers(i + 1));
            let mut args = Vec::with_capacity(2 * first.len() + 1 + extra.len());
            for (k, &x) in first.iter().enumerate() {
                args.push(Arg::Buf(x));
                args.push(Arg::Buf(second.as_ref().map_or(x, |s| s[k])));
            }
            let (per, launched) = match second {
                Some(_) => (rows as u32, 2 * rows),
                None => (u32::MAX, rows),
            };
            args.push(Arg::U32(per));
            args.extend_from_slice(extra);
            shape.run_elementwise_rows(kernel, &args, &[], launched)?;
        }
        Ok(())
    }

    /// Every polynomial of `parts` has the shape of the first (pairs share a launch).
    fn check_parts(parts: &[&DevicePoly]) -> Result<()> {
        match parts.split_first() {
            Some((first, rest)) => rest.iter().try_for_each(|p| first.same_shape(p)),
            None => Ok(()),
        }
    }

    /// The first accumulator when `acc` has one part per input (`inputs` of them) and its
    /// parts are alike (pairs share a launch); `None` for no parts.
    fn first_accumulator(acc: &[DevicePoly], inputs: usize) -> Result<Option<&DevicePoly>> {
        if acc.len() != inputs {
            return Err(Error::InvalidInput(format!(
                "{} accumulator parts for {inputs} inputs",
                acc.len()
            )));
        }
        Self::check_parts(&acc.iter().collect::<Vec<_>>())?;
        Ok(acc.first())
    }

    /// `out[i] = a[i] + b[i]` (or `-` when `sub`), two parts per launch, as
    /// [`DevicePoly::add_into`] / [`DevicePoly::sub_into`] on each.
    pub fn add_parts(
        out: &mut [DevicePoly],
        a: &[&DevicePoly],
        b: &[&DevicePoly],
        sub: bool,
    ) -> Result<()> {
        if a.len() != b.len() || a.len() != out.len() {
            return Err(Error::InvalidInput("parts of different counts".into()));
        }
        Self::check_parts(a)?;
        for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
            x.same_shape(y)?;
            o.reshape_like(x)?;
        }
        let Some(first) = a.first() else {
            return Ok(());
        };
        let kernel = if sub {
            "hk_sub_kernel"
        } else {
            "hk_add_kernel"
        };
        let out: &[DevicePoly] = out;
        Self::run_parts(
            first,
            kernel,
            a.len(),
            |i| vec![&out[i].buf, &a[i].buf, &b[i].buf],
            &[],
        )
    }

    /// `acc[i] += b[i]` (or `-=` when `sub`), two parts per launch.
    pub fn add_assign_parts(acc: &mut [DevicePoly], b: &[&DevicePoly], sub: bool) -> Result<()> {
        let acc: &[DevicePoly] = acc;
        let Some(first) = Self::first_accumulator(acc, b.len())? else {
            return Ok(());
        };
        for (x, y) in acc.iter().zip(b) {
            x.same_shape(y)?;
        }
        let kernel = if sub {
            "hk_sub_kernel"
        } else {
            "hk_add_kernel"
        };
        Self::run_parts(
            first,
            kernel,
            acc.len(),
            |i| vec![&acc[i].buf, &acc[i].buf, &b[i].buf],
            &[],
        )
    }

    /// `acc[i] += a[i] · p` coefficient-wise (NTT form; `p` shared, as a plaintext times a
    /// ciphertext's parts), two parts per launch.
    pub fn mul_add_parts(acc: &mut [DevicePoly], a: &[&DevicePoly], p: &DevicePoly) -> Result<()> {
        let acc: &[DevicePoly] = acc;
        let Some(first) = Self::first_accumulator(acc, a.len())? else {
            return Ok(());
        };
        for (x, y) in acc.iter().zip(a) {
            x.same_shape(y)?;
            x.same_shape(p)?;
            x.require_ntt("mul_add_assign")?;
        }
        Self::run_parts(
            first,
            "hk_mul_add_kernel",
            acc.len(),
            |i| vec![&acc[i].buf, &a[i].buf],
            &[Arg::Buf(&p.buf)],
        )
    }

    /// The tensor of two degree-1 ciphertexts `(a0, a1)`, `(b0, b1)` (NTT form, one shape):
    /// `out = (a0 b0, a0 b1 + a1 b0, a1 b1)` in one launch, the words of
    /// [`mul_into`](DevicePoly::mul_into) and [`mul_add_assign`](DevicePoly::mul_add_assign).
    pub fn tensor_parts(
        a: [&DevicePoly; 2],
        b: [&DevicePoly; 2],
        out: &mut [DevicePoly; 3],
    ) -> Result<()> {
        Self::check_parts(&[a[0], a[1], b[0], b[1]])?;
        a[0].require_ntt("the tensor")?;
        for o in out.iter_mut() {
            o.reshape_like(a[0])?;
        }
        a[0].elementwise(
            "hk_tensor_kernel",
            &[
                Arg::Buf(&out[0].buf),
                Arg::Buf(&out[1].buf),
                Arg::Buf(&out[2].buf),
                Arg::Buf(&a[0].buf),
                Arg::Buf(&a[1].buf),
                Arg::Buf(&b[0].buf),
                Arg::Buf(&b[1].buf),
            ],
        )
    }

    /// `parts[i] *= w_l` per limb with a table of [`DevicePoly::scalar_table`], two parts
    /// per launch.
    pub fn mul_scalar_table_parts(parts: &mut [DevicePoly], table: &Buffer) -> Result<()> {
        let parts: &[DevicePoly] = parts;
        let Some(first) = Self::first_accumulator(parts, parts.len())? else {
            return Ok(());
        };
        first.check_table(table)?;
        Self::run_parts(
            first,
            "hk_mul_scalar_kernel",
            parts.len(),
            |i| vec![&parts[i].buf, &parts[i].buf],
            &[Arg::Buf(table)],
        )
    }

    /// `acc[i] += a[i] · w_l` per limb with a table of [`DevicePoly::scalar_table`], as
    /// [`DevicePoly::mul_scalar_add_table_assign`] on each, two parts per launch.
    pub fn mul_scalar_add_table_parts(
        acc: &mut [DevicePoly],
        a: &[&DevicePoly],
        table: &Buffer,
    ) -> Result<()> {
        let acc: &[DevicePoly] = acc;
        let Some(first) = Self::first_accumulator(acc, a.len())? else {
            return Ok(());
        };
        first.check_table(table)?;
        for (x, y) in acc.iter().zip(a) {
            if y.n() != x.n()
                || y.form != x.form
                || y.p_limbs != 0
                || x.p_limbs != 0
                || y.q_limbs < x.q_limbs
            {
                return Err(Error::InvalidInput(format!(
                    "acc += a·w needs chain limbs only, the same form and at least the \
                     accumulator's {} limbs (a has {} + {} special, {:?} against {:?})",
                    x.q_limbs, y.q_limbs, y.p_limbs, y.form, x.form
                )));
            }
        }
        Self::run_parts(
            first,
            "hk_mul_scalar_add_kernel",
            acc.len(),
            |i| vec![&acc[i].buf, &a[i].buf],
            &[Arg::Buf(table)],
        )
    }

    /// `out[i] = a[i](X^k)` in NTT form (`k` odd, taken mod `2N`), two parts per launch.
    pub(crate) fn permute_parts(a: &[&DevicePoly], k: usize, out: &mut [DevicePoly]) -> Result<()> {
        if a.len() != out.len() {
            return Err(Error::InvalidInput("parts of different counts".into()));
        }
        if k.is_multiple_of(2) {
            return Err(Error::InvalidInput(format!(
                "automorphism exponent {k} is even"
            )));
        }
        Self::check_parts(a)?;
        for (x, o) in a.iter().zip(out.iter()) {
            x.same_shape(o)?;
            x.require_ntt("a permutation")?;
        }
        let Some(first) = a.first() else {
            return Ok(());
        };
        let perm = first.ctx.permutation(k % (2 * first.n()))?;
        let out: &[DevicePoly] = out;
        Self::run_parts(
            first,
            "hk_permute_kernel",
            a.len(),
            |i| vec![&out[i].buf, &a[i].buf],
            &[Arg::Buf(&perm)],
        )
    }

    /// The lowest `q_limbs` chain limbs of each of `parts` (no special limbs; their form
    /// kept), copied two parts per launch.
    pub fn copy_parts(parts: &[&DevicePoly], q_limbs: usize) -> Result<Vec<DevicePoly>> {
        Self::check_parts(parts)?;
        let Some(first) = parts.first() else {
            return Ok(Vec::new());
        };
        if q_limbs == 0 || q_limbs > first.q_limbs {
            return Err(Error::InvalidInput(format!(
                "{q_limbs} of {} chain limbs",
                first.q_limbs
            )));
        }
        let out = parts
            .iter()
            .map(|p| DevicePoly::uninit(&p.ctx, q_limbs, 0, p.form))
            .collect::<Result<Vec<_>>>()?;
        for (i, pair) in out.chunks(2).enumerate() {
            let (a, a1) = (parts[2 * i], parts.get(2 * i + 1).unwrap_or(&parts[2 * i]));
            let second = pair.len() == 2;
            Self::launch_copy(
                first,
                [&pair[0].buf, &pair[pair.len() - 1].buf],
                [&a.buf, &a1.buf],
                second.then_some(q_limbs),
                [0, 0],
                q_limbs,
            )?;
        }
        Ok(out)
    }

    /// `hk_copy_limbs_kernel`: `count` limbs of `N = shape.n()` words from `from[p]` at limb
    /// `first[1]` to `to[p]` at limb `first[0]`, for the pair when `per` is given (else
    /// `to[0]`, `from[0]` only).
    pub(super) fn launch_copy(
        shape: &DevicePoly,
        to: [&Buffer; 2],
        from: [&Buffer; 2],
        per: Option<usize>,
        first: [usize; 2],
        count: usize,
    ) -> Result<()> {
        if count == 0 {
            return Ok(());
        }
        let n = shape.n();
        let gpu = shape.ctx.gpu();
        let module = gpu.module(KernelModule::Elementwise)?;
        let block = n.min(GROUP);
        let rows = count * if per.is_some() { 2 } else { 1 };
        gpu.launch(
            &module,
            "hk_copy_limbs_kernel",
            [n.div_ceil(block) as u32, rows as u32],
            block as u32,
            &[
                Arg::Buf(to[0]),
                Arg::Buf(to[1]),
                Arg::Buf(from[0]),
                Arg::Buf(from[1]),
                Arg::U32(per.map_or(u32::MAX, |p| p as u32)),
                Arg::U32(n as u32),
                Arg::U32(first[0] as u32),
                Arg::U32(first[1] as u32),
            ],
        )
    }
}
