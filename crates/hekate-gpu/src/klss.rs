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

/// A KLSS key-switching accumulator on the device, the mirror of the CPU engine's: the
/// inner products over `B'` summed since the last recombination (`count` of them; block
/// `h d̃_l + i` of `r'_i` limbs, NTT form), and the part already recombined into
/// `Q_l ∪ P` (coefficient form).
pub(crate) struct DeviceKlssAccumulator {
    q_limbs: usize,
    count: usize,
    sums: Vec<DevicePoly>,
    recombined: Option<[DevicePoly; 2]>,
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
                let mut d = DevicePoly::uninit(&self.aux, rp, 0, Form::Coeff)?;
                conv.convert([coeff], start, [&mut d], rp)?;
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
        let mut acc = self.zero_accumulator(ks, q_limbs)?;
        self.multiply_into(ks, digits, key, &mut acc.sums, false)?;
        Ok(acc.sums)
    }

    /// The inner products of `digits` with `key` into `sums` (`2 d̃_l` blocks), added to
    /// them when `accumulate`.
    fn multiply_into(
        &self,
        ks: &KlssKeySwitcher,
        digits: &[DevicePoly],
        key: &DeviceKlssKey,
        sums: &mut [DevicePoly],
        accumulate: bool,
    ) -> Result<()> {
        let dl = sums.len() / 2;
        if digits.is_empty() || digits.len() > key.dnum || dl > key.d_tilde {
            return Err(Error::InvalidInput(
                "digit count does not fit the key".into(),
            ));
        }
        for h in 0..2 {
            for i in 0..dl {
                let acc = &mut sums[h * dl + i];
                debug_assert_eq!(acc.q_limbs(), ks.r_primes()[i]);
                acc.set_form(Form::Ntt);
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
                            Arg::U32((accumulate || c > 0) as u32),
                        ],
                    )?;
                }
            }
        }
        Ok(())
    }

    /// An empty accumulator for inputs of `q_limbs` chain limbs (as the CPU engine's
    /// `zero_accumulator`; its sums are written by the first product).
    pub(crate) fn zero_accumulator(
        &self,
        ks: &KlssKeySwitcher,
        q_limbs: usize,
    ) -> Result<DeviceKlssAccumulator> {
        let dl = ks.key_digits_at(q_limbs);
        let sums = (0..2)
            .flat_map(|_| ks.r_primes()[..dl].iter())
            .map(|&r| DevicePoly::uninit(&self.aux, r, 0, Form::Ntt))
            .collect::<Result<Vec<_>>>()?;
        Ok(DeviceKlssAccumulator {
            q_limbs,
            count: 0,
            sums,
            recombined: None,
        })
    }

    /// `acc += <digits, key>`, recombining first when `acc` holds as many products as the
    /// engine's [`KlssConfig::accumulation`](hekate::rlwe::keyswitch::KlssConfig) allows
    /// (the CPU engine's `multiply_add`).
    pub(crate) fn multiply_add(
        &self,
        ks: &KlssKeySwitcher,
        digits: &[DevicePoly],
        key: &DeviceKlssKey,
        acc: &mut DeviceKlssAccumulator,
    ) -> Result<()> {
        if acc.count == ks.config().accumulation {
            self.recombine_into(ks, acc)?;
        }
        self.multiply_into(ks, digits, key, &mut acc.sums, acc.count > 0)?;
        acc.count += 1;
        Ok(())
    }

    /// Step 3 on an accumulator: the sums over `B'` (inverse NTT in place) converted to
    /// their key digits' primes and written, or added when a recombined part exists, into
    /// the `Q_l ∪ P` halves (coefficient form); the sums are free for the next product.
    fn recombine_into(&self, ks: &KlssKeySwitcher, acc: &mut DeviceKlssAccumulator) -> Result<()> {
        let (ql, k) = (acc.q_limbs, self.main.ring().p_len());
        let dl = acc.sums.len() / 2;
        let fresh = acc.recombined.is_none();
        let mut out = match acc.recombined.take() {
            Some(r) => r,
            None => [
                DevicePoly::uninit(&self.main, ql, k, Form::Coeff)?,
                DevicePoly::uninit(&self.main, ql, k, Form::Coeff)?,
            ],
        };
        for (h, half) in out.iter_mut().enumerate() {
            let mut temp = None;
            let target = if fresh {
                &mut *half
            } else {
                temp.insert(DevicePoly::uninit(&self.main, ql, k, Form::Coeff)?)
            };
            for i in 0..dl {
                let block = &mut acc.sums[h * dl + i];
                block.intt()?;
                let conv = self.main.converter(ks.recombiner(i))?;
                let scratch = conv.prepare(block, 0)?;
                block.set_form(Form::Ntt); // free: the next product overwrites it
                let range = ks.key_digit_primes(i, ql);
                // PQ order: the special primes (limbs ql ..), then the chain (limbs 0 ..).
                let p_end = range.end.min(k);
                if range.start < p_end {
                    conv.write(
                        &scratch,
                        target,
                        0,
                        p_end - range.start,
                        ks.pq_limb(range.start, ql),
                    )?;
                }
                let q_start = range.start.max(k);
                if q_start < range.end {
                    conv.write(
                        &scratch,
                        target,
                        q_start - range.start,
                        range.end - q_start,
                        ks.pq_limb(q_start, ql),
                    )?;
                }
            }
            if let Some(t) = temp {
                half.add_assign(&t)?;
            }
        }
        acc.recombined = Some(out);
        acc.count = 0;
        Ok(())
    }

    /// Step 4: ModDown of both halves (then the forward NTT when `form` is NTT form), the
    /// two in the same launches.
    pub(crate) fn mod_down(
        &self,
        ks: &KlssKeySwitcher,
        mut acc: DeviceKlssAccumulator,
        form: Form,
    ) -> Result<[DevicePoly; 2]> {
        if acc.count > 0 || acc.recombined.is_none() {
            self.recombine_into(ks, &mut acc)?;
        }
        let recombined = acc.recombined.take().expect("recombined above");
        // Both halves in the same launches.
        let [mut u0, mut u1] = self.main.mod_down_pair_impl(recombined)?;
        if form == Form::Ntt && u0.form() == Form::Coeff {
            let limbs = u0.num_limbs();
            DevicePoly::forward_limbs_pair(&mut u0, &mut u1, 0..limbs, true)?;
            u0.set_form(Form::Ntt);
            u1.set_form(Form::Ntt);
        }
        Ok([u0, u1])
    }

    /// ModDown of the second half only (NTT form), the first staying in `Q_l ∪ P`: the
    /// CPU engine's `mod_down_second`, for Horner rotation sums.
    pub(crate) fn mod_down_second(
        &self,
        ks: &KlssKeySwitcher,
        acc: &mut DeviceKlssAccumulator,
    ) -> Result<DevicePoly> {
        if acc.count > 0 || acc.recombined.is_none() {
            self.recombine_into(ks, acc)?;
        }
        let (ql, k) = (acc.q_limbs, self.main.ring().p_len());
        let recombined = acc.recombined.as_mut().expect("recombined above");
        let zero = DevicePoly::zero(&self.main, ql, k, Form::Coeff)?;
        let mut u = self
            .main
            .mod_down_impl(std::mem::replace(&mut recombined[1], zero))?;
        u.ntt()?;
        Ok(u)
    }

    /// The accumulator under `X -> X^k` (sums over `B'` in NTT form, the recombined part in
    /// coefficient form), as the CPU engine's `permute`.
    pub(crate) fn permute(
        &self,
        acc: &DeviceKlssAccumulator,
        k: usize,
    ) -> Result<DeviceKlssAccumulator> {
        let sums = acc
            .sums
            .iter()
            .map(|s| {
                let mut o = DevicePoly::uninit(&self.aux, s.q_limbs(), 0, Form::Ntt)?;
                s.automorphism(k, &mut o)?;
                Ok(o)
            })
            .collect::<Result<Vec<_>>>()?;
        let recombined = match &acc.recombined {
            None => None,
            Some(r) => {
                let (ql, pl) = (r[0].q_limbs(), r[0].p_limbs());
                let mut o0 = DevicePoly::uninit(&self.main, ql, pl, Form::Coeff)?;
                let mut o1 = DevicePoly::uninit(&self.main, ql, pl, Form::Coeff)?;
                r[0].automorphism(k, &mut o0)?;
                r[1].automorphism(k, &mut o1)?;
                Some([o0, o1])
            }
        };
        Ok(DeviceKlssAccumulator {
            q_limbs: acc.q_limbs,
            count: acc.count,
            sums,
            recombined,
        })
    }

    /// Steps 3 and 4 on fresh inner products (`2 d̃_l` blocks): recombination into
    /// `Q_l ∪ P`, ModDown, and the forward NTT when `form` is NTT form.
    pub(crate) fn finish(
        &self,
        ks: &KlssKeySwitcher,
        blocks: Vec<DevicePoly>,
        q_limbs: usize,
        form: Form,
    ) -> Result<[DevicePoly; 2]> {
        let acc = DeviceKlssAccumulator {
            q_limbs,
            count: 1,
            sums: blocks,
            recombined: None,
        };
        self.mod_down(ks, acc, form)
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
