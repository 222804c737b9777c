//! [`DevicePoly`]: a polynomial in RNS form on the device, the mirror of [`Poly`], with the
//! same limb-major layout (word `k` of limb `l` at `l N + k`; the chain limbs, then the
//! special primes) and the same operation names.

use crate::context::DeviceRingContext;
use crate::error::{Error, Result};
use crate::kernels::KernelModule;
use crate::runtime::{Arg, Buffer};
use hekate::ring::{Form, Poly};
use std::sync::Arc;

mod ntt;
mod parts;

pub(crate) use ntt::column_passes;

/// Work-items per group of the coefficient-wise and per-stage kernels.
const GROUP: usize = 256;

/// A polynomial on the device: `q_limbs` chain limbs and `p_limbs` special-prime limbs of
/// `N` words each, in coefficient or NTT [`Form`].
pub struct DevicePoly {
    ctx: Arc<DeviceRingContext>,
    buf: Buffer,
    q_limbs: usize,
    p_limbs: usize,
    form: Form,
    /// A batch ([`DevicePoly::batch`]): `q_limbs` polynomials modulo the first prime.
    batch: bool,
}

impl DevicePoly {
    /// Uploads `poly` (which must belong to `ctx`'s ring: same degree, limb counts within
    /// its chain and special primes).
    pub fn upload(ctx: &Arc<DeviceRingContext>, poly: &Poly) -> Result<Self> {
        Self::check_shape(ctx, poly.n(), poly.q_limbs(), poly.p_limbs())?;
        Ok(DevicePoly {
            ctx: ctx.clone(),
            buf: ctx.gpu().upload(poly.data())?,
            q_limbs: poly.q_limbs(),
            p_limbs: poly.p_limbs(),
            form: poly.form(),
            batch: false,
        })
    }

    /// The zero polynomial.
    pub fn zero(
        ctx: &Arc<DeviceRingContext>,
        q_limbs: usize,
        p_limbs: usize,
        form: Form,
    ) -> Result<Self> {
        Self::check_shape(ctx, ctx.n(), q_limbs, p_limbs)?;
        let words = (q_limbs + p_limbs) * ctx.n();
        Ok(DevicePoly {
            ctx: ctx.clone(),
            buf: ctx.gpu().alloc_zeroed(words)?,
            q_limbs,
            p_limbs,
            form,
            batch: false,
        })
    }

    fn check_shape(
        ctx: &DeviceRingContext,
        n: usize,
        q_limbs: usize,
        p_limbs: usize,
    ) -> Result<()> {
        let ring = ctx.ring();
        if n != ring.n() || q_limbs == 0 || q_limbs > ring.q_len() || p_limbs > ring.p_len() {
            return Err(Error::InvalidInput(format!(
                "a polynomial of degree {n} with {q_limbs} + {p_limbs} limbs does not fit the ring (N = {}, {} + {} moduli)",
                ring.n(),
                ring.q_len(),
                ring.p_len()
            )));
        }
        Ok(())
    }

    /// `count` polynomials modulo the ring's first prime, side by side in one buffer
    /// (polynomial `i` at word `i N`): a batch, such as FHEW's accumulators. The kernels see
    /// it as `count` limbs that all use modulus 0 (`qmax = 0`, `kernels/modarith.h`), so the
    /// NTT ([`forward_limbs`](Self::forward_limbs), [`inverse_limbs`](Self::inverse_limbs))
    /// and the coefficient-wise kernels transform any range of them. Its words are
    /// unspecified; read it with [`DevicePoly::read_words`].
    pub(crate) fn batch(ctx: &Arc<DeviceRingContext>, count: usize, form: Form) -> Result<Self> {
        if count == 0 || count > u16::MAX as usize {
            return Err(Error::InvalidInput(format!(
                "a batch of {count} polynomials (1 to {} per launch)",
                u16::MAX
            )));
        }
        Ok(DevicePoly {
            ctx: ctx.clone(),
            buf: ctx.gpu().alloc(count * ctx.n())?,
            q_limbs: count,
            p_limbs: 0,
            form,
            batch: true,
        })
    }

    /// The words of every limb (or batch polynomial), limb-major.
    pub(crate) fn read_words(&self) -> Result<Vec<u64>> {
        let mut data = vec![0u64; self.num_limbs() * self.n()];
        self.ctx.gpu().read(&self.buf, &mut data)?;
        Ok(data)
    }

    /// Downloads it into a [`Poly`] (an error for a batch, which is no ring element).
    pub fn download(&self) -> Result<Poly> {
        if self.batch {
            return Err(Error::InvalidInput(
                "a batch of polynomials is not one ring element: read its words".into(),
            ));
        }
        Ok(Poly::from_raw(
            self.n(),
            self.q_limbs,
            self.p_limbs,
            self.form,
            self.read_words()?,
        ))
    }

    /// The ring degree `N`.
    pub fn n(&self) -> usize {
        self.ctx.n()
    }

    /// Chain limbs.
    pub fn q_limbs(&self) -> usize {
        self.q_limbs
    }

    /// Special-prime limbs.
    pub fn p_limbs(&self) -> usize {
        self.p_limbs
    }

    /// All limbs.
    pub fn num_limbs(&self) -> usize {
        self.q_limbs + self.p_limbs
    }

    /// Its form.
    pub fn form(&self) -> Form {
        self.form
    }

    /// Declares the form (the words are unchanged), as [`Poly::set_form`].
    pub fn set_form(&mut self, form: Form) {
        self.form = form;
    }

    /// The device context.
    pub fn context(&self) -> &Arc<DeviceRingContext> {
        &self.ctx
    }

    /// The device buffer.
    pub fn buffer(&self) -> &Buffer {
        &self.buf
    }

    /// The device buffer, to write into.
    pub(crate) fn buffer_mut(&mut self) -> &mut Buffer {
        &mut self.buf
    }

    /// The arguments every kernel ends with: moduli, `N`, chain limbs, chain length.
    fn tail_args(&self) -> [Arg<'_>; 4] {
        [
            Arg::Buf(&self.ctx.mods),
            Arg::U32(self.n() as u32),
            Arg::U32(if self.batch { 0 } else { self.q_limbs as u32 }),
            Arg::U32(if self.batch {
                0
            } else {
                self.ctx.ring().q_len() as u32
            }),
        ]
    }

    fn same_shape(&self, other: &DevicePoly) -> Result<()> {
        if !Arc::ptr_eq(&self.ctx, &other.ctx)
            || self.q_limbs != other.q_limbs
            || self.p_limbs != other.p_limbs
            || self.form != other.form
            || self.batch != other.batch
        {
            return Err(Error::InvalidInput("polynomial shapes differ".into()));
        }
        Ok(())
    }

    /// `second`, if given, has this polynomial's shape (a pair for one launch).
    pub(crate) fn check_pair(&self, second: Option<&DevicePoly>) -> Result<()> {
        match second {
            Some(b)
                if !Arc::ptr_eq(&self.ctx, &b.ctx)
                    || self.q_limbs != b.q_limbs
                    || self.p_limbs != b.p_limbs
                    || self.batch
                    || b.batch =>
            {
                Err(Error::InvalidInput("the pair's shapes differ".into()))
            }
            _ => Ok(()),
        }
    }

    /// Runs a coefficient-wise kernel over every limb: `head` are its leading arguments.
    fn elementwise(&self, kernel: &str, head: &[Arg<'_>]) -> Result<()> {
        self.run_elementwise(kernel, head, &[])
    }

    /// Runs a coefficient-wise kernel of the elementwise module over every limb: `head`,
    /// then the standard tail arguments (moduli, `N`, chain limbs, chain length), then
    /// `extra`.
    pub(crate) fn run_elementwise(
        &self,
        kernel: &str,
        head: &[Arg<'_>],
        extra: &[Arg<'_>],
    ) -> Result<()> {
        self.run_elementwise_rows(kernel, head, extra, self.num_limbs())
    }

    /// [`run_elementwise`](Self::run_elementwise) on `rows` rows of grid y (a pair kernel
    /// runs twice this polynomial's limbs).
    fn run_elementwise_rows(
        &self,
        kernel: &str,
        head: &[Arg<'_>],
        extra: &[Arg<'_>],
        rows: usize,
    ) -> Result<()> {
        let gpu = self.ctx.gpu();
        let module = gpu.module(KernelModule::Elementwise)?;
        let n = self.n();
        let block = n.min(GROUP);
        let mut args = head.to_vec();
        args.extend_from_slice(&self.tail_args());
        args.extend_from_slice(extra);
        gpu.launch(
            &module,
            kernel,
            [n.div_ceil(block) as u32, rows as u32],
            block as u32,
            &args,
        )
    }

    /// `out = a + b` (one pass), as [`Poly::add_into`].
    pub fn add_into(a: &DevicePoly, b: &DevicePoly, out: &mut DevicePoly) -> Result<()> {
        Self::add_parts(std::slice::from_mut(out), &[a], &[b], false)
    }

    /// `out = a - b` (one pass), as [`Poly::sub_into`].
    pub fn sub_into(a: &DevicePoly, b: &DevicePoly, out: &mut DevicePoly) -> Result<()> {
        Self::add_parts(std::slice::from_mut(out), &[a], &[b], true)
    }

    /// `out = a * b` coefficient-wise (NTT form), as [`Poly::mul_into`].
    pub fn mul_into(a: &DevicePoly, b: &DevicePoly, out: &mut DevicePoly) -> Result<()> {
        a.same_shape(b)?;
        a.require_ntt("mul_into")?;
        out.reshape_like(a)?;
        a.elementwise(
            "hk_mul_kernel",
            &[Arg::Buf(&out.buf), Arg::Buf(&a.buf), Arg::Buf(&b.buf)],
        )
    }

    /// Makes `self` an output of `a`'s shape: same context, at least as many words; takes
    /// `a`'s limb counts and form.
    fn reshape_like(&mut self, a: &DevicePoly) -> Result<()> {
        if !Arc::ptr_eq(&self.ctx, &a.ctx) || self.buf.len() < a.num_limbs() * a.n() {
            return Err(Error::InvalidInput(
                "output polynomial too small or of another context".into(),
            ));
        }
        self.q_limbs = a.q_limbs;
        self.p_limbs = a.p_limbs;
        self.form = a.form;
        Ok(())
    }

    /// `self += other`.
    pub fn add_assign(&mut self, other: &DevicePoly) -> Result<()> {
        Self::add_assign_parts(std::slice::from_mut(self), &[other], false)
    }

    /// `self -= other`.
    pub fn sub_assign(&mut self, other: &DevicePoly) -> Result<()> {
        Self::add_assign_parts(std::slice::from_mut(self), &[other], true)
    }

    /// `self = -self`.
    pub fn neg_assign(&mut self) -> Result<()> {
        self.elementwise("hk_neg_kernel", &[Arg::Buf(&self.buf), Arg::Buf(&self.buf)])
    }

    /// `self *= other` coefficient-wise (both in NTT form: the ring product).
    pub fn mul_assign(&mut self, other: &DevicePoly) -> Result<()> {
        self.same_shape(other)?;
        self.require_ntt("mul_assign")?;
        self.elementwise(
            "hk_mul_kernel",
            &[
                Arg::Buf(&self.buf),
                Arg::Buf(&self.buf),
                Arg::Buf(&other.buf),
            ],
        )
    }

    /// `self += a * b` coefficient-wise (NTT form).
    pub fn mul_add_assign(&mut self, a: &DevicePoly, b: &DevicePoly) -> Result<()> {
        Self::mul_add_parts(std::slice::from_mut(self), &[a], b)
    }

    /// Multiplies limb `i` by the reduced constant `scalars[i]` (an integer given by its
    /// residues; valid in both forms).
    pub fn mul_scalar_assign(&mut self, scalars: &[u64]) -> Result<()> {
        let table = self.scalar_table(scalars)?;
        self.mul_scalar_table_assign(&table)
    }

    /// The device table of the per-limb constants `scalars` (reduced, one per limb of this
    /// polynomial) with their Shoup companions, for [`DevicePoly::mul_scalar_table_assign`]
    /// and [`DevicePoly::mul_scalar_add_table_assign`] on any polynomial of this shape: one
    /// upload for several polynomials.
    pub fn scalar_table(&self, scalars: &[u64]) -> Result<Arc<Buffer>> {
        self.check_scalars(scalars)?;
        let ring = self.ctx.ring();
        let mut table = Vec::with_capacity(2 * scalars.len());
        for (i, &w) in scalars.iter().enumerate() {
            table.extend_from_slice(&[w, ring.modulus(i, self.q_limbs).shoup(w)]);
        }
        self.ctx.constants(table)
    }

    /// [`DevicePoly::mul_scalar_assign`] with a table of [`DevicePoly::scalar_table`] (made
    /// for this polynomial's limbs or more).
    pub fn mul_scalar_table_assign(&mut self, table: &Buffer) -> Result<()> {
        Self::mul_scalar_table_parts(std::slice::from_mut(self), table)
    }

    /// `self += a · w_l` per limb, as [`Poly::mul_scalar_add_assign`], with a table of
    /// [`DevicePoly::scalar_table`]: one pass, no copy of `a`, which may have more chain
    /// limbs than `self` (its lower ones are read; neither has special limbs).
    pub fn mul_scalar_add_table_assign(&mut self, a: &DevicePoly, table: &Buffer) -> Result<()> {
        Self::mul_scalar_add_table_parts(std::slice::from_mut(self), &[a], table)
    }

    /// An error unless `table` holds a (w, w') pair per limb of this polynomial.
    fn check_table(&self, table: &Buffer) -> Result<()> {
        if table.len() < 2 * self.num_limbs() {
            return Err(Error::InvalidInput(format!(
                "a constant table of {} words for {} limbs",
                table.len(),
                self.num_limbs()
            )));
        }
        Ok(())
    }

    /// `out = self(X^k)`, in the current form (`k` odd, taken mod 2N), as
    /// [`Poly::automorphism`].
    pub fn automorphism(&self, k: usize, out: &mut DevicePoly) -> Result<()> {
        self.same_shape(out)?;
        let n = self.n();
        if k.is_multiple_of(2) {
            return Err(Error::InvalidInput(format!(
                "automorphism exponent {k} is even"
            )));
        }
        let k = k % (2 * n);
        match self.form {
            Form::Coeff => self.elementwise(
                "hk_automorphism_coeff_kernel",
                &[Arg::Buf(&out.buf), Arg::Buf(&self.buf), Arg::U32(k as u32)],
            ),
            Form::Ntt => Self::permute_parts(&[self], k, std::slice::from_mut(out)),
        }
    }

    fn require_ntt(&self, what: &str) -> Result<()> {
        if self.form != Form::Ntt {
            return Err(Error::InvalidInput(format!("{what} needs NTT form")));
        }
        Ok(())
    }

    /// Divides by the last chain prime `q_l` with rounding, dropping that limb (CKKS
    /// rescaling), as [`Poly::divide_round_by_last_q`]: the same words, in either form.
    pub fn divide_round_by_last_q(&mut self) -> Result<()> {
        Self::divide_round_of(self, None)
    }

    /// [`divide_round_by_last_q`](Self::divide_round_by_last_q) of `a` and `b` (a
    /// ciphertext's two parts, the same shape) in one launch per step.
    pub fn divide_round_by_last_q_pair(a: &mut DevicePoly, b: &mut DevicePoly) -> Result<()> {
        Self::divide_round_of(a, Some(b))
    }

    fn divide_round_of(a: &mut DevicePoly, mut b: Option<&mut DevicePoly>) -> Result<()> {
        a.check_pair(b.as_deref())?;
        if b.as_ref().is_some_and(|b| b.form != a.form) {
            return Err(Error::InvalidInput("the pair's forms differ".into()));
        }
        if a.q_limbs < 2 || a.p_limbs != 0 {
            return Err(Error::InvalidInput(
                "rescaling needs two chain limbs and no special limbs".into(),
            ));
        }
        let l = a.q_limbs - 1;
        let form = a.form;
        // The last limb, dropped below, goes to coefficients in place.
        if form == Form::Ntt {
            a.inverse_of(b.as_deref(), l..l + 1, true)?;
        }
        // Over the l lower limbs of t; the kernel reads the last residue at limb l.
        let t = DevicePoly::uninit(&a.ctx, l, 0, Form::Coeff)?;
        let t1 = match &b {
            Some(_) => Some(DevicePoly::uninit(&a.ctx, l, 0, Form::Coeff)?),
            None => None,
        };
        let b_buf = b.as_deref().map_or(&a.buf, |b| &b.buf);
        let t1_buf = t1.as_ref().map_or(&t.buf, |t| &t.buf);
        let count = if t1.is_some() { 2 } else { 1 };
        let lift = [[&t.buf, &a.buf], [t1_buf, b_buf]];
        Self::run_parts(
            &t,
            "hk_rescale_lift_kernel",
            count,
            |i| lift[i].to_vec(),
            &[],
        )?;
        if form == Form::Ntt {
            t.forward_of(t1.as_ref(), 0..l, 0..0, true)?;
        }
        let consts = a.ctx.rescale_table(l)?;
        a.truncate_to(l);
        if let Some(b) = b.as_deref_mut() {
            b.truncate_to(l);
        }
        let b_buf = b.as_deref().map_or(&a.buf, |b| &b.buf);
        let sub = [[&a.buf, &t.buf], [b_buf, t1_buf]];
        Self::run_parts(
            a,
            "hk_sub_mul_scalar_kernel",
            count,
            |i| sub[i].to_vec(),
            &[Arg::Buf(&consts)],
        )
    }

    /// Copies `count` limbs of `src` from limb `from` to this polynomial's limbs from
    /// `to` (a device-to-device copy; no form change).
    pub(crate) fn copy_limbs_from(
        &mut self,
        src: &DevicePoly,
        from: usize,
        to: usize,
        count: usize,
    ) -> Result<()> {
        if from + count > src.num_limbs() || to + count > self.num_limbs() || self.n() != src.n() {
            return Err(Error::InvalidInput("limb copy out of range".into()));
        }
        Self::launch_copy(
            self,
            [&self.buf, &self.buf],
            [&src.buf, &src.buf],
            None,
            [to, from],
            count,
        )
    }

    /// One constant per limb, each reduced modulo its limb's prime.
    fn check_scalars(&self, scalars: &[u64]) -> Result<()> {
        if scalars.len() != self.num_limbs() {
            return Err(Error::InvalidInput(format!(
                "{} scalars for {} limbs",
                scalars.len(),
                self.num_limbs()
            )));
        }
        let ring = self.ctx.ring();
        for (i, &w) in scalars.iter().enumerate() {
            let q = ring.modulus(i, self.q_limbs).value();
            if w >= q {
                return Err(Error::InvalidInput(format!(
                    "scalar {w} is not reduced modulo {q}"
                )));
            }
        }
        Ok(())
    }

    /// Adds the reduced constant `scalars[i]` to every word of limb `i` (NTT form), as
    /// [`Poly::add_scalar_assign`].
    pub fn add_scalar_assign(&mut self, scalars: &[u64]) -> Result<()> {
        self.require_ntt("adding a constant")?;
        self.check_scalars(scalars)?;
        let table = self.ctx.constants(scalars.to_vec())?;
        self.elementwise(
            "hk_add_scalar_kernel",
            &[Arg::Buf(&self.buf), Arg::Buf(&self.buf), Arg::Buf(&table)],
        )
    }

    /// Multiplies by the monomial `X^(N/2)` (NTT form), as
    /// [`Poly::mul_monomial_half_assign`]: CKKS's multiplication by `i`.
    pub fn mul_monomial_half_assign(&mut self) -> Result<()> {
        self.require_ntt("the product by X^(N/2)")?;
        let ring = self.ctx.ring().clone();
        let n = self.n() as u64;
        let mut table = Vec::with_capacity(4 * self.num_limbs());
        for i in 0..self.num_limbs() {
            let plan = ring.ntt_plan(i, self.q_limbs);
            let m = plan.modulus();
            let w = m.pow(plan.psi(), n / 2);
            let w2 = m.neg(w);
            table.extend_from_slice(&[w, m.shoup(w), w2, m.shoup(w2)]);
        }
        let table = self.ctx.constants(table)?;
        self.elementwise(
            "hk_mul_halves_kernel",
            &[Arg::Buf(&self.buf), Arg::Buf(&self.buf), Arg::Buf(&table)],
        )
    }

    /// Sets every coefficient to zero (a device-side fill).
    pub fn set_zero(&mut self) -> Result<()> {
        self.ctx.gpu().fill(&mut self.buf, 0)
    }

    /// A polynomial of this shape whose words are unspecified (scratch to be overwritten).
    pub(crate) fn uninit(
        ctx: &Arc<DeviceRingContext>,
        q_limbs: usize,
        p_limbs: usize,
        form: Form,
    ) -> Result<Self> {
        Self::check_shape(ctx, ctx.n(), q_limbs, p_limbs)?;
        Ok(DevicePoly {
            ctx: ctx.clone(),
            buf: ctx.gpu().alloc((q_limbs + p_limbs) * ctx.n())?,
            q_limbs,
            p_limbs,
            form,
            batch: false,
        })
    }

    /// Drops the special limbs and the chain limbs from `q_limbs` on (the words stay in the
    /// buffer, unused), as [`Poly::truncate`] plus dropping `P`.
    pub(crate) fn truncate_to(&mut self, q_limbs: usize) {
        debug_assert!(q_limbs <= self.q_limbs);
        self.q_limbs = q_limbs;
        self.p_limbs = 0;
    }
}

/// A device copy (one copy launch). Panics if the device cannot allocate the copy, as a
/// `Vec`'s clone aborts when the host cannot.
impl Clone for DevicePoly {
    fn clone(&self) -> Self {
        let copy = || -> Result<DevicePoly> {
            let mut o = if self.batch {
                DevicePoly::batch(&self.ctx, self.q_limbs, self.form)?
            } else {
                DevicePoly::uninit(&self.ctx, self.q_limbs, self.p_limbs, self.form)?
            };
            o.copy_limbs_from(self, 0, 0, self.num_limbs())?;
            Ok(o)
        };
        copy().unwrap_or_else(|e| panic!("copying a device polynomial: {e}"))
    }
}

impl std::fmt::Debug for DevicePoly {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DevicePoly(N = {}, {} + {} limbs, {:?})",
            self.n(),
            self.q_limbs,
            self.p_limbs,
            self.form
        )
    }
}
