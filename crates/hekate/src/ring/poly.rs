//! `Poly`: an RNS polynomial, limb-major and contiguous, in coefficient or NTT form.

use super::automorphism::automorphism_coeff;
use super::context::RingContext;
use crate::math::kernels;
use crate::math::memory::AlignedWords;
use crate::math::Modulus;
use zeroize::Zeroize;

mod moddown;

/// The representation a polynomial is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// Coefficients `a_0 .. a_{N-1}`.
    Coeff,
    /// Evaluations at the odd powers of `ψ`, in bit-reversed order (see `math::ntt`).
    Ntt,
}

/// A polynomial of `Z[X]/(X^N + 1)` over `q_limbs` chain primes and `p_limbs` special
/// primes: `data[i * N + k]` is coefficient (or evaluation) `k` modulo limb `i`'s prime,
/// always reduced into `[0, q)`.
#[derive(Debug, PartialEq, Eq)]
pub struct Poly {
    n: usize,
    q_limbs: usize,
    p_limbs: usize,
    form: Form,
    data: AlignedWords,
}

impl Clone for Poly {
    /// Copies into a buffer from the process-wide pool (no fresh pages to fault in).
    fn clone(&self) -> Self {
        let mut data = super::pool::global().take(self.data.len());
        data.copy_from_slice(&self.data);
        Poly {
            n: self.n,
            q_limbs: self.q_limbs,
            p_limbs: self.p_limbs,
            form: self.form,
            data,
        }
    }
}

impl Drop for Poly {
    /// Large buffers go back to the process-wide pool for reuse.
    fn drop(&mut self) {
        if self.data.capacity() >= super::pool::MIN_POOLED_WORDS {
            super::pool::global().recycle(std::mem::take(&mut self.data));
        }
    }
}

impl Zeroize for Poly {
    fn zeroize(&mut self) {
        self.data.zeroize_all();
    }
}

impl Poly {
    /// Zeroizes a polynomial that held secret-equivalent material (`a·s`, the ephemeral `u`
    /// of public-key encryption, noise, `X^{s_i}` monomials) and frees its buffer
    /// **without** returning it to the shared pool.
    pub fn discard_secret(mut self) {
        self.data.zeroize_all();
        drop(std::mem::take(&mut self.data));
    }
}

/// Runs `f(limb_index, limb)` over the limbs of `data`, in parallel when the `parallel`
/// feature is on and the work is large enough to amortize the fork.
#[inline]
pub(crate) fn for_each_limb<F>(data: &mut [u64], n: usize, f: F)
where
    F: Fn(usize, &mut [u64]) + Sync + Send,
{
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        if data.len() >= 1 << 14 && data.len() > n && rayon::current_num_threads() > 1 {
            data.par_chunks_mut(n)
                .enumerate()
                .for_each(|(i, limb)| f(i, limb));
            return;
        }
    }
    for (i, limb) in data.chunks_mut(n).enumerate() {
        f(i, limb);
    }
}

/// Runs `f(limb_index, a_limb, b_limb)` over the limbs of two equally shaped buffers, in
/// parallel like [`for_each_limb`].
#[inline]
pub(crate) fn for_each_limb_pair<F>(a: &mut [u64], b: &mut [u64], n: usize, f: F)
where
    F: Fn(usize, &mut [u64], &mut [u64]) + Sync + Send,
{
    debug_assert_eq!(a.len(), b.len());
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        if a.len() >= 1 << 14 && a.len() > n && rayon::current_num_threads() > 1 {
            a.par_chunks_mut(n)
                .zip(b.par_chunks_mut(n))
                .enumerate()
                .for_each(|(i, (x, y))| f(i, x, y));
            return;
        }
    }
    for (i, (x, y)) in a.chunks_mut(n).zip(b.chunks_mut(n)).enumerate() {
        f(i, x, y);
    }
}

/// Runs `f(limb_index, limbs)` over the limbs of several equally shaped buffers at once
/// (`limbs[b]` is limb `limb_index` of `bufs[b]`), in parallel like [`for_each_limb`].
pub(crate) fn for_each_limb_many<F>(bufs: &mut [&mut [u64]], n: usize, f: F)
where
    F: Fn(usize, &mut [&mut [u64]]) + Sync + Send,
{
    let len = bufs.first().map_or(0, |b| b.len());
    debug_assert!(bufs.iter().all(|b| b.len() == len));
    let mut per_limb: Vec<Vec<&mut [u64]>> = (0..len / n.max(1)).map(|_| Vec::new()).collect();
    for buf in bufs.iter_mut() {
        for (slot, limb) in per_limb.iter_mut().zip(buf.chunks_mut(n)) {
            slot.push(limb);
        }
    }
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        if len >= 1 << 14 && len > n && rayon::current_num_threads() > 1 {
            per_limb
                .par_iter_mut()
                .enumerate()
                .for_each(|(i, limbs)| f(i, limbs));
            return;
        }
    }
    for (i, limbs) in per_limb.iter_mut().enumerate() {
        f(i, limbs);
    }
}

impl Poly {
    /// A polynomial with no coefficients and no buffer (neither allocated nor taken from the
    /// pool): a placeholder while the real one is borrowed out with `std::mem::replace`.
    pub(crate) fn placeholder() -> Self {
        Poly::from_words(0, 0, 0, Form::Coeff, AlignedWords::default())
    }

    /// The zero polynomial.
    pub fn zero(n: usize, q_limbs: usize, p_limbs: usize, form: Form) -> Self {
        Poly {
            n,
            q_limbs,
            p_limbs,
            form,
            data: super::pool::global().take_zeroed(n * (q_limbs + p_limbs)),
        }
    }

    /// Builds a polynomial from raw limb-major data (the caller guarantees reduced values).
    /// The words are copied into an aligned buffer from the pool (see
    /// [`Poly::data`]).
    pub fn from_raw(n: usize, q_limbs: usize, p_limbs: usize, form: Form, data: Vec<u64>) -> Self {
        assert_eq!(data.len(), n * (q_limbs + p_limbs));
        let mut words = super::pool::global().take(data.len());
        words.copy_from_slice(&data);
        Self::from_words(n, q_limbs, p_limbs, form, words)
    }

    /// [`Poly::from_raw`] on a buffer already aligned (no copy).
    pub(crate) fn from_words(
        n: usize,
        q_limbs: usize,
        p_limbs: usize,
        form: Form,
        data: AlignedWords,
    ) -> Self {
        assert_eq!(data.len(), n * (q_limbs + p_limbs));
        Poly {
            n,
            q_limbs,
            p_limbs,
            form,
            data,
        }
    }

    /// Ring degree.
    pub fn n(&self) -> usize {
        self.n
    }
    /// Number of chain limbs (`level + 1`).
    pub fn q_limbs(&self) -> usize {
        self.q_limbs
    }
    /// Number of special-prime limbs (0, or all of `P`).
    pub fn p_limbs(&self) -> usize {
        self.p_limbs
    }
    /// Total number of limbs.
    pub fn num_limbs(&self) -> usize {
        self.q_limbs + self.p_limbs
    }
    /// The representation.
    pub fn form(&self) -> Form {
        self.form
    }
    /// Declares the representation (for code that transforms limbs by hand).
    pub fn set_form(&mut self, form: Form) {
        self.form = form;
    }
    /// The residues, limb-major, as a `Vec` (a copy; the polynomial's own buffer goes back
    /// to the pool).
    pub fn into_data(self) -> Vec<u64> {
        self.data.to_vec()
    }
    /// The residues' buffer, by value (no copy).
    pub(crate) fn into_words(mut self) -> AlignedWords {
        std::mem::take(&mut self.data)
    }
    /// All residues, limb-major. The slice starts on a 64-byte boundary (for the SIMD
    /// kernels' full-line loads), as does every limb when `N` is a multiple of 8.
    pub fn data(&self) -> &[u64] {
        &self.data
    }
    /// All residues, limb-major, mutable.
    pub fn data_mut(&mut self) -> &mut [u64] {
        &mut self.data
    }
    /// Limb `i`.
    pub fn limb(&self, i: usize) -> &[u64] {
        &self.data[i * self.n..(i + 1) * self.n]
    }
    /// Limb `t` of `Q_l ∪ P` (`ql` chain limbs, then the special ones) read from this
    /// polynomial, which may carry more chain limbs than `ql` (a key generated for a
    /// higher level): its chain limb `t` for `t < ql`, else its special limb `t - ql`.
    pub fn limb_over(&self, t: usize, ql: usize) -> &[u64] {
        debug_assert!(ql <= self.q_limbs);
        self.limb(if t < ql { t } else { self.q_limbs + (t - ql) })
    }
    /// Limb `i`, mutable.
    pub fn limb_mut(&mut self, i: usize) -> &mut [u64] {
        &mut self.data[i * self.n..(i + 1) * self.n]
    }
    /// Iterator over the limbs.
    pub fn limbs(&self) -> std::slice::Chunks<'_, u64> {
        self.data.chunks(self.n)
    }
    /// Iterator over the limbs, mutable.
    pub fn limbs_mut(&mut self) -> std::slice::ChunksMut<'_, u64> {
        self.data.chunks_mut(self.n)
    }

    fn assert_compatible(&self, other: &Poly) {
        assert!(
            self.n == other.n
                && self.q_limbs == other.q_limbs
                && self.p_limbs == other.p_limbs
                && self.form == other.form,
            "polynomial shapes differ"
        );
    }

    /// To NTT form (no-op if already there).
    pub fn ntt(&mut self, ctx: &RingContext) {
        if self.form == Form::Ntt {
            return;
        }
        let ql = self.q_limbs;
        for_each_limb(&mut self.data, self.n, |i, limb| {
            ctx.ntt_plan(i, ql).forward(limb)
        });
        self.form = Form::Ntt;
    }

    /// To coefficient form (no-op if already there).
    pub fn intt(&mut self, ctx: &RingContext) {
        if self.form == Form::Coeff {
            return;
        }
        let ql = self.q_limbs;
        for_each_limb(&mut self.data, self.n, |i, limb| {
            ctx.ntt_plan(i, ql).inverse(limb)
        });
        self.form = Form::Coeff;
    }

    fn zip_limbs<F>(&mut self, other: &Poly, ctx: &RingContext, f: F)
    where
        F: Fn(&mut [u64], &[u64], &Modulus) + Sync + Send,
    {
        self.assert_compatible(other);
        let ql = self.q_limbs;
        let n = self.n;
        for_each_limb(&mut self.data, n, |i, limb| {
            f(limb, other.limb(i), ctx.modulus(i, ql))
        });
    }

    /// `self += other`.
    pub fn add_assign(&mut self, other: &Poly, ctx: &RingContext) {
        self.zip_limbs(other, ctx, kernels::add_assign);
    }

    /// `self -= other`.
    pub fn sub_assign(&mut self, other: &Poly, ctx: &RingContext) {
        self.zip_limbs(other, ctx, kernels::sub_assign);
    }

    /// `self = other - self`.
    pub fn rsub_assign(&mut self, other: &Poly, ctx: &RingContext) {
        self.zip_limbs(other, ctx, kernels::rsub_assign);
    }

    /// `self = -self`.
    pub fn neg_assign(&mut self, ctx: &RingContext) {
        let ql = self.q_limbs;
        for_each_limb(&mut self.data, self.n, |i, limb| {
            kernels::neg_assign(limb, ctx.modulus(i, ql))
        });
    }

    /// `self *= other` coefficient-wise (both in NTT form: the ring product).
    pub fn mul_assign(&mut self, other: &Poly, ctx: &RingContext) {
        debug_assert_eq!(self.form, Form::Ntt);
        self.zip_limbs(other, ctx, kernels::mul_assign);
    }

    /// `self += a * b` coefficient-wise (NTT form).
    pub fn mul_add_assign(&mut self, a: &Poly, b: &Poly, ctx: &RingContext) {
        debug_assert_eq!(self.form, Form::Ntt);
        self.assert_compatible(a);
        self.assert_compatible(b);
        let ql = self.q_limbs;
        let n = self.n;
        for_each_limb(&mut self.data, n, |i, limb| {
            kernels::mul_add_assign(limb, a.limb(i), b.limb(i), ctx.modulus(i, ql))
        });
    }

    /// `out = a + b` (one pass), overwriting `out`.
    pub fn add_into(a: &Poly, b: &Poly, out: &mut Poly, ctx: &RingContext) {
        a.assert_compatible(b);
        a.assert_compatible(out);
        let ql = a.q_limbs;
        for_each_limb(&mut out.data, a.n, |i, limb| {
            kernels::add(a.limb(i), b.limb(i), limb, ctx.modulus(i, ql))
        });
    }

    /// `out = a - b` (one pass), overwriting `out`.
    pub fn sub_into(a: &Poly, b: &Poly, out: &mut Poly, ctx: &RingContext) {
        a.assert_compatible(b);
        a.assert_compatible(out);
        let ql = a.q_limbs;
        for_each_limb(&mut out.data, a.n, |i, limb| {
            kernels::sub(a.limb(i), b.limb(i), limb, ctx.modulus(i, ql))
        });
    }

    /// `out = a * b` coefficient-wise (NTT form), overwriting `out`.
    pub fn mul_into(a: &Poly, b: &Poly, out: &mut Poly, ctx: &RingContext) {
        a.assert_compatible(b);
        a.assert_compatible(out);
        let ql = a.q_limbs;
        for_each_limb(&mut out.data, a.n, |i, limb| {
            kernels::mul(a.limb(i), b.limb(i), limb, ctx.modulus(i, ql))
        });
    }

    /// The degree-2 product of two degree-1 ciphertexts' parts `a = (a_0, a_1)` and
    /// `b = (b_0, b_1)`, in NTT form: `out = (a_0 b_0, a_0 b_1 + a_1 b_0, a_1 b_1)`, with
    /// the words of [`Poly::mul_into`] (three times) and [`Poly::mul_add_assign`]. The
    /// operands are read at `out`'s level (they may carry more chain limbs, the ones above
    /// ignored, as after a level drop; no special limbs), so none is copied down first.
    ///
    /// When `b` is `a` (the same polynomials), the middle term is one product doubled.
    ///
    /// Limb by limb, each kernel over the whole limb: tiles of 4,096 coefficients (the
    /// seven tiles in L2) measured 5-11% slower here on one thread (Zen 4, `N = 2^16`, 16
    /// limbs: 4.67-4.85 against 4.35-4.47 ms); switching among seven streams every 32 KiB
    /// costs more than the cache saves.
    pub fn tensor_into(a: [&Poly; 2], b: [&Poly; 2], out: [&mut Poly; 3], ctx: &RingContext) {
        let [d0, d1, d2] = out;
        let (n, ql) = (d0.n, d0.q_limbs);
        assert!(d0.p_limbs == 0 && d0.form == Form::Ntt);
        for d in [&*d1, &*d2] {
            d0.assert_compatible(d);
        }
        for p in a.iter().chain(&b) {
            d0.assert_readable_at_level(p, "tensor_into");
        }
        // A square (`b` is `a`): `a_0 a_1 + a_1 a_0 = 2 a_0 a_1`, a doubling instead of a
        // product and an addition (the same reduced words).
        let square = std::ptr::eq(a[0], b[0]) && std::ptr::eq(a[1], b[1]);
        let mut bufs = [d0.data_mut(), d1.data_mut(), d2.data_mut()];
        for_each_limb_many(&mut bufs, n, |i, outs| {
            let q = ctx.modulus(i, ql);
            let [o0, o1, o2] = outs else {
                unreachable!("three outputs")
            };
            let (a0, a1, b0, b1) = (a[0].limb(i), a[1].limb(i), b[0].limb(i), b[1].limb(i));
            kernels::mul(a0, b0, o0, q);
            kernels::mul(a0, b1, o1, q);
            if square {
                kernels::double_assign(o1, q);
            } else {
                kernels::mul_add_assign(o1, a1, b0, q);
            }
            kernels::mul(a1, b1, o2, q);
        });
    }

    /// Multiplies limb `i` by the reduced constant `scalars[i]` (an integer given by its
    /// residues; valid in both forms).
    pub fn mul_scalar_assign(&mut self, scalars: &[u64], ctx: &RingContext) {
        assert_eq!(scalars.len(), self.num_limbs());
        let ql = self.q_limbs;
        for_each_limb(&mut self.data, self.n, |i, limb| {
            kernels::mul_scalar_assign(limb, scalars[i], ctx.modulus(i, ql))
        });
    }

    /// Panics unless `other` can be read at `self`'s level in place: the same degree and
    /// form, no special limbs on either, and at least `self`'s chain limbs (the ones above
    /// ignored, as after a level drop).
    fn assert_readable_at_level(&self, other: &Poly, op: &str) {
        assert!(
            self.n == other.n
                && self.form == other.form
                && self.p_limbs == 0
                && other.p_limbs == 0
                && other.q_limbs >= self.q_limbs,
            "{op}: shapes ({} + {} limbs, {:?}) and ({} + {}, {:?})",
            self.q_limbs,
            self.p_limbs,
            self.form,
            other.q_limbs,
            other.p_limbs,
            other.form
        );
    }

    /// `self += w · other` for the constant integer `w` given by its residues (one per limb
    /// of `self`), in one pass. `other` is read at `self`'s level: it may carry more chain
    /// limbs (the ones above are ignored, as after a level drop); neither has special
    /// limbs, and both are in the same form.
    pub fn mul_scalar_add_assign(&mut self, other: &Poly, scalars: &[u64], ctx: &RingContext) {
        assert_eq!(scalars.len(), self.num_limbs());
        self.assert_readable_at_level(other, "mul_scalar_add_assign");
        let ql = self.q_limbs;
        for_each_limb(&mut self.data, self.n, |i, limb| {
            kernels::mul_scalar_add_assign(limb, other.limb(i), scalars[i], ctx.modulus(i, ql))
        });
    }

    /// `self = s · self + add` for the constant integer `s` given by its residues (one per
    /// limb of `self`; `None`: `s = 1`): the words of [`Poly::mul_scalar_assign`] then
    /// [`Poly::add_assign`], limb by limb. `add` is read at `self`'s level (it may carry
    /// more chain limbs, as before a level drop, so it needs no copy); neither has special
    /// limbs, both in the same form.
    pub fn mul_scalar_then_add_assign(
        &mut self,
        scalars: Option<&[u64]>,
        add: &Poly,
        ctx: &RingContext,
    ) {
        self.assert_readable_at_level(add, "mul_scalar_then_add_assign");
        if let Some(s) = scalars {
            assert_eq!(s.len(), self.q_limbs, "one residue per limb");
        }
        let ql = self.q_limbs;
        for_each_limb(&mut self.data, self.n, |i, limb| {
            let q = ctx.modulus(i, ql);
            if let Some(s) = scalars {
                kernels::mul_scalar_assign(limb, s[i], q);
            }
            kernels::add_assign(limb, add.limb(i), q);
        });
    }

    /// Adds the constant integer (given by its residues) to every NTT slot, or to the
    /// constant coefficient in coefficient form.
    pub fn add_scalar_assign(&mut self, scalars: &[u64], ctx: &RingContext) {
        assert_eq!(scalars.len(), self.num_limbs());
        let ql = self.q_limbs;
        let form = self.form;
        for_each_limb(&mut self.data, self.n, |i, limb| {
            let m = ctx.modulus(i, ql);
            match form {
                Form::Ntt => limb.iter_mut().for_each(|a| *a = m.add(*a, scalars[i])),
                Form::Coeff => limb[0] = m.add(limb[0], scalars[i]),
            }
        });
    }

    /// Multiplies by the monomial `X^k` (`k` taken mod 2N), in coefficient form.
    pub fn mul_monomial_assign(&mut self, k: usize, ctx: &RingContext) {
        assert_eq!(
            self.form,
            Form::Coeff,
            "monomial shift needs coefficient form"
        );
        let n = self.n;
        let k = k % (2 * n);
        let ql = self.q_limbs;
        for_each_limb(&mut self.data, n, |i, limb| {
            let q = ctx.modulus(i, ql).value();
            let neg = |x: u64| if x == 0 { 0 } else { q - x };
            let (shift, flip) = if k >= n { (k - n, true) } else { (k, false) };
            limb.rotate_right(shift);
            for (j, a) in limb.iter_mut().enumerate() {
                // Coefficients that wrapped around X^N = -1 change sign.
                let wrapped = j < shift;
                if wrapped != flip {
                    *a = neg(*a);
                }
            }
        });
    }

    /// Multiplies by `X^(N/2)` in either form. In NTT form this is a multiplication of
    /// each slot by `ψ^(e N/2)` for its odd exponent `e = 2 brv(j) + 1`, i.e. by the
    /// fourth root of unity `i_q = ψ^(N/2)` in the first half of the slots (`e = 1 mod 4`)
    /// and by `-i_q` in the second half. For CKKS this multiplies every slot by `i`.
    pub fn mul_monomial_half_assign(&mut self, ctx: &RingContext) {
        let n = self.n;
        if self.form == Form::Coeff {
            self.mul_monomial_assign(n / 2, ctx);
            return;
        }
        let ql = self.q_limbs;
        for_each_limb(&mut self.data, n, |i, limb| {
            let plan = ctx.ntt_plan(i, ql);
            let m = plan.modulus();
            let iq = m.pow(plan.psi(), (n / 2) as u64);
            let (lo, hi) = limb.split_at_mut(n / 2);
            let (w, ws) = (iq, m.shoup(iq));
            let (w2, ws2) = (m.neg(iq), m.shoup(m.neg(iq)));
            lo.iter_mut().for_each(|a| *a = m.mul_shoup(*a, w, ws));
            hi.iter_mut().for_each(|a| *a = m.mul_shoup(*a, w2, ws2));
        });
    }

    /// `out = (self + other)(X^k)` in NTT form: the sum and the permutation in one pass.
    pub fn add_then_automorphism(&self, other: &Poly, k: usize, ctx: &RingContext, out: &mut Poly) {
        self.assert_compatible(other);
        self.assert_compatible(out);
        assert_eq!(self.form, Form::Ntt, "fused automorphism needs NTT form");
        let ql = self.q_limbs;
        let perm = ctx.ntt_permutation(k);
        for_each_limb(&mut out.data, self.n, |i, limb| {
            let m = ctx.modulus(i, ql);
            perm.apply_add(self.limb(i), other.limb(i), limb, m.value());
        });
    }

    /// `out = self(X^k)`, in the current form (`k` odd, taken mod 2N).
    pub fn automorphism(&self, k: usize, ctx: &RingContext, out: &mut Poly) {
        self.assert_compatible(out);
        let ql = self.q_limbs;
        match self.form {
            Form::Coeff => {
                let n = self.n;
                for_each_limb(&mut out.data, n, |i, limb| {
                    automorphism_coeff(self.limb(i), limb, k, ctx.modulus(i, ql).value())
                });
            }
            Form::Ntt => {
                let perm = ctx.ntt_permutation(k);
                for_each_limb(&mut out.data, self.n, |i, limb| {
                    perm.apply(self.limb(i), limb)
                });
            }
        }
    }

    /// Keeps only the first `q_limbs` chain limbs (and drops the special primes, if any).
    pub fn truncate(&mut self, q_limbs: usize) {
        assert!(q_limbs <= self.q_limbs);
        self.data.truncate(q_limbs * self.n);
        self.q_limbs = q_limbs;
        self.p_limbs = 0;
    }

    /// A copy over the first `q_limbs` chain limbs only.
    pub fn truncated(&self, q_limbs: usize) -> Poly {
        assert!(q_limbs <= self.q_limbs);
        let mut data = super::pool::global().take(q_limbs * self.n);
        data.copy_from_slice(&self.data[..q_limbs * self.n]);
        Poly {
            n: self.n,
            q_limbs,
            p_limbs: 0,
            form: self.form,
            data,
        }
    }

    /// [`Poly::truncated`] then [`Poly::mul_scalar_assign`] (`scalars`, one residue per kept
    /// limb), limb by limb: each limb is copied and multiplied while it is in cache, instead
    /// of two passes over the whole copy (12 of 24 limbs at `N = 2^16`, 60-bit primes, Zen
    /// 4: 0.23-0.25 ms against 0.51-0.61 ms). The same words.
    pub fn truncated_times(&self, q_limbs: usize, scalars: &[u64], ctx: &RingContext) -> Poly {
        assert!(q_limbs <= self.q_limbs && self.p_limbs == 0);
        assert_eq!(scalars.len(), q_limbs, "one residue per limb");
        let mut out = ctx.scratch_poly(q_limbs, 0, self.form);
        for_each_limb(&mut out.data, self.n, |i, limb| {
            limb.copy_from_slice(self.limb(i));
            kernels::mul_scalar_assign(limb, scalars[i], ctx.modulus(i, q_limbs));
        });
        out
    }

    /// A copy over the first `q_limbs` chain limbs and the first `p_limbs` special limbs
    /// (this polynomial must have all of them).
    pub fn restricted(&self, q_limbs: usize, p_limbs: usize) -> Poly {
        assert!(q_limbs <= self.q_limbs && p_limbs <= self.p_limbs);
        let n = self.n;
        let mut data = super::pool::global().take((q_limbs + p_limbs) * n);
        data[..q_limbs * n].copy_from_slice(&self.data[..q_limbs * n]);
        data[q_limbs * n..]
            .copy_from_slice(&self.data[self.q_limbs * n..(self.q_limbs + p_limbs) * n]);
        Poly {
            n,
            q_limbs,
            p_limbs,
            form: self.form,
            data,
        }
    }

    /// Extends a polynomial over `Q_l` with the special primes `P` (exact ModUp of its
    /// centered representative; either form). The inverse of dropping the `P` limbs.
    pub fn extend_to_p(&self, ctx: &RingContext) -> Poly {
        assert_eq!(self.p_limbs, 0, "already extended");
        let (ql, k, n) = (self.q_limbs, ctx.p_len(), self.n);
        let conv = crate::math::rns::BaseConverter::new(&ctx.q().slice(0..ql), ctx.p());
        let mut coeff = self.clone();
        coeff.intt(ctx);
        let mut out = Poly::zero(n, ql, k, Form::Coeff);
        let mut scratch = ctx.pool().take((ql + 1) * n);
        conv.convert(&coeff.data, &mut out.data[ql * n..], n, &mut scratch);
        ctx.pool().recycle(scratch);
        out.data[..ql * n].copy_from_slice(&coeff.data);
        if self.form == Form::Ntt {
            out.ntt(ctx);
        }
        out
    }
}
