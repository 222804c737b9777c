//! hekate's [`Backend`] seam on the device: [`DeviceRingContext`] with [`DevicePoly`]s, so
//! the key-switching engines' control flow
//! ([`HybridKeySwitcher::decompose_on`](hekate::rlwe::HybridKeySwitcher::decompose_on),
//! `multiply_on`, `mod_down_on`) runs unchanged on the GPU and gives the CPU's words.
//!
//! | entry point | device implementation |
//! | --- | --- |
//! | NTTs, `add/sub/mul/mul_add_assign`, `automorphism` | the [`DevicePoly`] methods |
//! | `mod_up` | `hk_bconv_yv`, then `hk_bconv_mod_up_out` (every other limb converted, the digit's own copied) and one forward NTT of all but the digit: two launches per digit and the NTT's |
//! | `inner_product` | `hk_inner_product_kernel`: every digit (up to 8 per launch) times both key halves in one pass, the sums in 128 bits and reduced once (the CPU's `kernels::inner_product`) |
//! | `mod_down` | inverse NTT of the `P` limbs, `Conv_{P -> Q}`, forward NTT, `hk_sub_mul_scalar_kernel` with `P^-1` |
//!
//! The seam's methods cannot return errors: a device failure (out of memory, a lost
//! device) panics with the driver's message. Use the [`DevicePoly`] methods directly for
//! fallible calls.

use crate::context::DeviceRingContext;
use crate::kernels::INNER_PRODUCT_MAX;
use crate::poly::DevicePoly;
use crate::runtime::Arg;
use hekate::math::rns::BaseConverter;
use hekate::ring::{Form, Poly};
use hekate::rlwe::backend::Backend;
use std::ops::Range;

/// Unwraps a device result in the infallible seam.
fn ok<T>(r: crate::Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("GPU backend: {e}"))
}

impl Backend for DeviceRingContext {
    type Poly = DevicePoly;

    fn n(&self) -> usize {
        DeviceRingContext::n(self)
    }

    fn alloc(&self, q_limbs: usize, p_limbs: usize, form: Form) -> DevicePoly {
        ok(DevicePoly::uninit(&self.arc(), q_limbs, p_limbs, form))
    }

    fn recycle(&self, p: DevicePoly) {
        drop(p);
    }

    fn upload(&self, p: &Poly) -> DevicePoly {
        ok(DevicePoly::upload(&self.arc(), p))
    }

    fn download(&self, p: &DevicePoly) -> Poly {
        ok(p.download())
    }

    fn copy(&self, src: &DevicePoly, dst: &mut DevicePoly) {
        assert_eq!(src.num_limbs(), dst.num_limbs(), "copy between shapes");
        ok(dst.copy_limbs_from(src, 0, 0, src.num_limbs()));
        dst.set_form(src.form());
    }

    fn forward_ntt(&self, p: &mut DevicePoly) {
        ok(p.ntt())
    }

    fn inverse_ntt(&self, p: &mut DevicePoly) {
        ok(p.intt())
    }

    fn add_assign(&self, a: &mut DevicePoly, b: &DevicePoly) {
        ok(a.add_assign(b))
    }

    fn sub_assign(&self, a: &mut DevicePoly, b: &DevicePoly) {
        ok(a.sub_assign(b))
    }

    fn mul_assign(&self, a: &mut DevicePoly, b: &DevicePoly) {
        ok(a.mul_assign(b))
    }

    fn mul_add_assign(&self, acc: &mut DevicePoly, a: &DevicePoly, b: &DevicePoly) {
        ok(acc.mul_add_assign(a, b))
    }

    fn automorphism(&self, a: &DevicePoly, k: usize, out: &mut DevicePoly) {
        ok(a.automorphism(k, out))
    }

    fn mod_up(
        &self,
        c: &DevicePoly,
        c_coeff: &DevicePoly,
        digit: Range<usize>,
        conv: &BaseConverter,
        out: &mut DevicePoly,
    ) {
        ok(self.mod_up_impl(c, c_coeff, digit, conv, out))
    }

    fn inner_product(
        &self,
        digits: &[DevicePoly],
        key: &[[DevicePoly; 2]],
        acc: &mut [DevicePoly; 2],
        accumulate: bool,
    ) {
        ok(self.inner_product_impl(digits, key, acc, accumulate))
    }

    fn mod_down(&self, p: DevicePoly) -> DevicePoly {
        ok(self.mod_down_impl(p))
    }

    fn mod_down_pair(&self, acc: [DevicePoly; 2]) -> [DevicePoly; 2] {
        ok(self.mod_down_pair_impl(acc))
    }
}

impl DeviceRingContext {
    /// [`Backend::mod_up`], fallible.
    fn mod_up_impl(
        &self,
        c: &DevicePoly,
        c_coeff: &DevicePoly,
        digit: Range<usize>,
        conv: &BaseConverter,
        out: &mut DevicePoly,
    ) -> crate::Result<()> {
        let (ql, k) = (c.q_limbs(), self.ring().p_len());
        let (start, end) = (digit.start, digit.end);
        debug_assert!(c.form() == Form::Ntt && c.p_limbs() == 0 && end <= ql);
        debug_assert!(c_coeff.form() == Form::Coeff && c_coeff.q_limbs() == ql);
        debug_assert!(out.q_limbs() == ql && out.p_limbs() == k);
        let dconv = self.converter(conv)?;
        dconv.mod_up(c, c_coeff, start..end, out)?;
        out.forward_limbs_except(0..ql + k, start..end, true)?;
        out.set_form(Form::Ntt);
        Ok(())
    }

    /// [`Backend::inner_product`], fallible: the fused kernel over up to
    /// [`INNER_PRODUCT_MAX`] digits per launch (both key halves in one pass, 128-bit sums,
    /// one reduction per word); more digits take further launches that accumulate.
    fn inner_product_impl(
        &self,
        digits: &[DevicePoly],
        key: &[[DevicePoly; 2]],
        acc: &mut [DevicePoly; 2],
        accumulate: bool,
    ) -> crate::Result<()> {
        let ql = acc[0].q_limbs();
        let key_q = key.first().map_or(0, |k| k[0].q_limbs());
        assert!(
            digits.is_empty() || key_q >= ql,
            "a switching key over {key_q} chain limbs for an input over {ql}: check the key's level first"
        );
        if digits.len() > key.len() {
            return Err(crate::Error::InvalidInput(
                "fewer key digits than digits".into(),
            ));
        }
        for (d, k) in digits.iter().zip(key) {
            if d.num_limbs() != acc[0].num_limbs()
                || d.q_limbs() != ql
                || k[0].p_limbs() != acc[0].p_limbs()
                || k[1].p_limbs() != acc[0].p_limbs()
                || k[0].q_limbs() != key_q
                || k[1].q_limbs() != key_q
            {
                return Err(crate::Error::InvalidInput(
                    "inner product shapes differ".into(),
                ));
            }
        }
        let [a0, a1] = acc;
        if a0.num_limbs() != a1.num_limbs() || a0.q_limbs() != ql {
            return Err(crate::Error::InvalidInput(
                "accumulator shapes differ".into(),
            ));
        }
        if digits.is_empty() {
            if !accumulate {
                a0.set_zero()?;
                a1.set_zero()?;
            }
        } else {
            for (c, (ds, ks)) in digits
                .chunks(INNER_PRODUCT_MAX)
                .zip(key.chunks(INNER_PRODUCT_MAX))
                .enumerate()
            {
                // Unused slots repeat the first digit (never read: `j < beta`).
                let mut args = vec![Arg::Buf(a0.buffer()), Arg::Buf(a1.buffer())];
                args.extend(
                    (0..INNER_PRODUCT_MAX).map(|j| Arg::Buf(ds.get(j).unwrap_or(&ds[0]).buffer())),
                );
                for j in 0..INNER_PRODUCT_MAX {
                    let k = ks.get(j).unwrap_or(&ks[0]);
                    args.extend([Arg::Buf(k[0].buffer()), Arg::Buf(k[1].buffer())]);
                }
                let accumulate = accumulate || c > 0;
                a0.run_elementwise(
                    "hk_inner_product_kernel",
                    &args,
                    &[
                        Arg::U32(key_q as u32),
                        Arg::U32(ds.len() as u32),
                        Arg::U32(accumulate as u32),
                    ],
                )?;
            }
        }
        a0.set_form(Form::Ntt);
        a1.set_form(Form::Ntt);
        Ok(())
    }

    /// [`Backend::mod_down`], fallible.
    pub(crate) fn mod_down_impl(&self, p: DevicePoly) -> crate::Result<DevicePoly> {
        Ok(self.mod_down_of(p, None)?.0)
    }

    /// [`Backend::mod_down_pair`], fallible: both halves in each launch.
    pub(crate) fn mod_down_pair_impl(
        &self,
        acc: [DevicePoly; 2],
    ) -> crate::Result<[DevicePoly; 2]> {
        let [a0, a1] = acc;
        if a1.q_limbs() != a0.q_limbs() || a1.p_limbs() != a0.p_limbs() || a1.form() != a0.form() {
            return Err(crate::Error::InvalidInput(
                "ModDown of two halves of different shapes".into(),
            ));
        }
        let (u0, u1) = self.mod_down_of(a0, Some(a1))?;
        Ok([u0, u1.expect("the second half")])
    }

    /// ModDown of `p` and, when given, `second` (the same shape) in the same launches:
    /// inverse NTT of the `P` limbs, `Conv_{P -> Q}` (one launch, no scratch), forward NTT,
    /// then `(p - t) · P^-1`.
    fn mod_down_of(
        &self,
        mut p: DevicePoly,
        mut second: Option<DevicePoly>,
    ) -> crate::Result<(DevicePoly, Option<DevicePoly>)> {
        let (ql, k) = (p.q_limbs(), p.p_limbs());
        if k == 0 || k != self.ring().p_len() {
            return Err(crate::Error::InvalidInput(format!(
                "ModDown by {k} of {} special primes",
                self.ring().p_len()
            )));
        }
        let (conv, p_inv) = self
            .mod_down_tables()?
            .expect("the ring has special primes (k > 0)");
        let form = p.form();
        let new_t = || DevicePoly::uninit(&self.arc(), ql, 0, Form::Coeff);
        let mut t = new_t()?;
        let mut t1 = second.as_ref().map(|_| new_t()).transpose()?;
        if form == Form::Ntt {
            p.inverse_of(second.as_ref(), ql..ql + k, true)?;
        }
        match (second.as_ref(), t1.as_mut()) {
            (Some(b), Some(t1)) => conv.convert([&p, b], ql, [&mut t, t1], ql)?,
            _ => conv.convert([&p], ql, [&mut t], ql)?,
        }
        if form == Form::Ntt {
            t.forward_of(t1.as_ref(), 0..ql, 0..0, true)?;
        }
        p.truncate_to(ql);
        t.set_form(form);
        if let Some(b) = second.as_mut() {
            b.truncate_to(ql);
        }
        let b_buf = second.as_ref().map_or(p.buffer(), |b| b.buffer());
        let t1_buf = t1.as_ref().map_or(t.buffer(), |t| t.buffer());
        let count = if second.is_some() { 2 } else { 1 };
        let sub = [[p.buffer(), t.buffer()], [b_buf, t1_buf]];
        DevicePoly::run_parts(
            &p,
            "hk_sub_mul_scalar_kernel",
            count,
            |i| sub[i].to_vec(),
            &[Arg::Buf(p_inv)],
        )?;
        Ok((p, second))
    }
}
