//! KLSS and linear key switching on the device (seed 000 §4, seed 001 §III-V): the steps
//! of hekate's [`KlssKeySwitcher`] (one engine serves both: linear key switching is its
//! `r̃ = 1` corner), on the device, giving the CPU engine's words (which are the hybrid
//! engine's: KLSS computes the same inner product exactly).
//!
//! 1. *Decompose*: the input to coefficient form, each ciphertext digit lifted exactly to
//!    the auxiliary primes `B'` (the engine's lift converters) and transformed over `B'`.
//! 2. *Inner products* over `B'`: for both halves `h` and each key digit `i` in use, a block
//!    of `r'_i` limbs `Σ_j b_j v_{h,j,i}` (`hk_klss_inner_product_kernel`, up to 8 digits
//!    per launch, 128-bit sums).
//! 3. *Recombine*: inverse NTT of each block over `B'`, then the exact conversion from its
//!    `r'_i` primes to the key digit's primes of `Q̃`, written into the limbs of a
//!    `Q_l ∪ P` polynomial (coefficient form).
//! 4. *ModDown* by `P` (coefficient form), then the forward NTT when the input was in NTT
//!    form.
//!
//! The key is uploaded term by term ([`KlssKey::term`]), in blocks of `r'_i` limbs times
//! `d` terms (`(t d + j) N`), so that one launch reads a key block front to back.

use crate::context::DeviceRingContext;
use crate::error::{Error, Result};
use crate::kernels::INNER_PRODUCT_MAX;
use crate::poly::DevicePoly;
use crate::runtime::{Arg, Buffer};
use hekate::ring::Form;
use hekate::rlwe::keyswitch::{KlssKey, KlssKeySwitcher};
use std::sync::Arc;

/// A KLSS / linear switching key on the device: for `h = 0, 1` and each key digit `i`, a
/// buffer of `r'_i d` limbs (limb `t`'s term `j` at `(t d + j) N`), in the order
/// `h d̃ + i`.
pub struct DeviceKlssKey {
    blocks: Vec<Buffer>,
    dnum: usize,
    d_tilde: usize,
}

impl DeviceKlssKey {
    /// Uploads `key` (expanded by `ks`).
    pub fn upload(dctx: &DeviceRingContext, ks: &KlssKeySwitcher, key: &KlssKey) -> Result<Self> {
        if key.engine_id != ks.id() || key.n != dctx.n() {
            return Err(Error::InvalidInput(
                "a KLSS key of another engine or ring".into(),
            ));
        }
        let n = key.n;
        let mut blocks = Vec::with_capacity(2 * key.d_tilde);
        for h in 0..2 {
            for (i, &r) in key.r_primes.iter().enumerate() {
                let mut data = vec![0u64; r * key.dnum * n];
                for j in 0..key.dnum {
                    let term = key.term(h, i, j);
                    for t in 0..r {
                        let at = (t * key.dnum + j) * n;
                        data[at..at + n].copy_from_slice(&term[t * n..(t + 1) * n]);
                    }
                }
                blocks.push(dctx.gpu().upload(&data)?);
            }
        }
        Ok(DeviceKlssKey {
            blocks,
            dnum: key.dnum,
            d_tilde: key.d_tilde,
        })
    }

    fn block(&self, h: usize, i: usize) -> &Buffer {
        &self.blocks[h * self.d_tilde + i]
    }
}

/// The engine's device side: the main ring's device context and the one over `B'`.
pub(crate) struct DeviceKlss {
    pub(crate) main: Arc<DeviceRingContext>,
    pub(crate) aux: Arc<DeviceRingContext>,
}

impl DeviceKlss {
    pub(crate) fn new(main: &Arc<DeviceRingContext>, ks: &KlssKeySwitcher) -> Result<Self> {
        Ok(DeviceKlss {
            main: main.clone(),
            aux: DeviceRingContext::new(main.gpu(), ks.aux())?,
        })
    }

    /// Step 1: the digits of `c` (over `Q_l`, either form) lifted to `B'`, NTT form.
    pub(crate) fn decompose(
        &self,
        ks: &KlssKeySwitcher,
        c: &DevicePoly,
    ) -> Result<Vec<DevicePoly>> {
        let ql = c.q_limbs();
        let alpha = ks.hybrid().alpha();
        let rp = ks.r_prime();
        let owned;
        let coeff = if c.form() == Form::Ntt {
            let mut x = DevicePoly::uninit(&self.main, ql, 0, Form::Ntt)?;
            x.copy_limbs_from(c, 0, 0, ql)?;
            x.intt()?;
            owned = x;
            &owned
        } else {
            c
        };
        (0..ql.div_ceil(alpha))
            .map(|j| {
                let (start, end) = (j * alpha, ((j + 1) * alpha).min(ql));
                let conv = self.main.converter(ks.lifter(j, end - start))?;
                let scratch = conv.prepare(coeff, start)?;
                let mut d = DevicePoly::uninit(&self.aux, rp, 0, Form::Coeff)?;
                conv.write(&scratch, &mut d, 0, rp, 0)?;
                d.ntt()?;
                Ok(d)
            })
            .collect()
    }

    /// Step 2: the inner products over `B'`, one block of `r'_i` limbs per half and key
    /// digit in use (`2 d̃_l` blocks, half by half).
    pub(crate) fn multiply(
        &self,
        ks: &KlssKeySwitcher,
        digits: &[DevicePoly],
        key: &DeviceKlssKey,
        q_limbs: usize,
    ) -> Result<Vec<DevicePoly>> {
        let dl = ks.key_digits_at(q_limbs);
        if digits.is_empty() || digits.len() > key.dnum {
            return Err(Error::InvalidInput(
                "digit count does not fit the key".into(),
            ));
        }
        let mut blocks = Vec::with_capacity(2 * dl);
        for h in 0..2 {
            for i in 0..dl {
                let r = ks.r_primes()[i];
                let acc = DevicePoly::uninit(&self.aux, r, 0, Form::Ntt)?;
                for (c, ds) in digits.chunks(INNER_PRODUCT_MAX).enumerate() {
                    let mut args = vec![Arg::Buf(acc.buffer())];
                    args.extend(
                        (0..INNER_PRODUCT_MAX)
                            .map(|j| Arg::Buf(ds.get(j).unwrap_or(&ds[0]).buffer())),
                    );
                    args.push(Arg::Buf(key.block(h, i)));
                    acc.run_elementwise(
                        "hk_klss_inner_product_kernel",
                        &args,
                        &[
                            Arg::U32(key.dnum as u32),
                            Arg::U32((c * INNER_PRODUCT_MAX) as u32),
                            Arg::U32(ds.len() as u32),
                            Arg::U32((c > 0) as u32),
                        ],
                    )?;
                }
                blocks.push(acc);
            }
        }
        Ok(blocks)
    }

    /// Steps 3 and 4: recombination into `Q_l ∪ P`, ModDown, and the forward NTT when
    /// `form` is NTT form.
    pub(crate) fn finish(
        &self,
        ks: &KlssKeySwitcher,
        blocks: Vec<DevicePoly>,
        q_limbs: usize,
        form: Form,
    ) -> Result<[DevicePoly; 2]> {
        let dl = ks.key_digits_at(q_limbs);
        let k = self.main.ring().p_len();
        let mut blocks = blocks.into_iter();
        let mut half = || -> Result<DevicePoly> {
            let mut out = DevicePoly::uninit(&self.main, q_limbs, k, Form::Coeff)?;
            for i in 0..dl {
                let mut block = blocks.next().expect("2 d̃_l blocks");
                block.intt()?;
                let conv = self.main.converter(ks.recombiner(i))?;
                let scratch = conv.prepare(&block, 0)?;
                let range = ks.key_digit_primes(i, q_limbs);
                // PQ order: the special primes (limbs q_limbs ..), then the chain (limbs 0 ..).
                let p_end = range.end.min(k);
                if range.start < p_end {
                    conv.write(
                        &scratch,
                        &mut out,
                        0,
                        p_end - range.start,
                        ks.pq_limb(range.start, q_limbs),
                    )?;
                }
                let q_start = range.start.max(k);
                if q_start < range.end {
                    conv.write(
                        &scratch,
                        &mut out,
                        q_start - range.start,
                        range.end - q_start,
                        ks.pq_limb(q_start, q_limbs),
                    )?;
                }
            }
            let mut u = self.main.mod_down_impl(out)?;
            if form == Form::Ntt {
                u.ntt()?;
            }
            Ok(u)
        };
        let u0 = half()?;
        let u1 = half()?;
        Ok([u0, u1])
    }

    /// The whole switch of `c` (in `c`'s form).
    pub(crate) fn switch(
        &self,
        ks: &KlssKeySwitcher,
        c: &DevicePoly,
        key: &DeviceKlssKey,
    ) -> Result<[DevicePoly; 2]> {
        let digits = self.decompose(ks, c)?;
        let blocks = self.multiply(ks, &digits, key, c.q_limbs())?;
        self.finish(ks, blocks, c.q_limbs(), c.form())
    }
}
