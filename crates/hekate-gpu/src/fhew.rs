//! FHEW gate bootstrapping on the device, batched over many gates (seed 002).
//!
//! A blind rotation is `n |U|` (GINX) or `n d_r` (AP) sequential external products, each on
//! one small polynomial pair (`N = 1024`): far too little work for a GPU per gate, so the
//! device runs the rotations of `B` gates side by side. In launches per step, every step is
//! five launches over the whole batch:
//!
//! 1. `hk_fhew_decompose`: the signed gadget digits of the `2B` accumulator polynomials
//!    (the step's gadget: OpenFHE's sets change the base part-way through the keys);
//! 2. the forward NTT of the `2 d B` digits ([`DevicePoly::forward_limbs`] on a batch);
//! 3. `hk_fhew_product`: the external products with each element's key, the `2d` terms
//!    summed in 128 bits (GINX: one key for the whole batch, streamed once per step; AP: the
//!    key of each element's digit of `α_i`);
//! 4. the inverse NTT of the `2B` products;
//! 5. `hk_fhew_update`: `acc += (X^k - 1) t` (GINX, `k` per element) or `acc = t` (AP).
//!
//! Where `N <= 1024` (every 128-bit preset but the `N = 2048` ones) the whole rotation runs
//! **fused** instead, in one launch per batch (`hk_fhew_rotate`): a work-group per gate
//! keeps its accumulator in registers and one digit and the two products in local memory
//! (`3N` words, 24 KiB), running the same steps with barriers between them, so that only the
//! keys stream from device memory (shared by the batch through the L2 for GINX).
//!
//! The host computes every step's key offsets and exponents from the LWE ciphertexts up
//! front (one upload per batch) and sets the accumulators up as `(0, f X^(y β))`; the
//! extraction, LWE key switching and modulus switching of each gate stay on the CPU
//! ([`FhewEvaluator::finish_gate`]), a few microseconds beside the rotation. The kernels
//! follow the CPU's NTT products step for step, so the accumulators, and the gates, equal
//! [`RotationArithmetic::Ntt`]'s word for word (`tests/parity_fhew.rs`).
//!
//! The automorphism-based LMKCDEY methods (seed 002 Alg. 3-5) differ per gate in key and
//! in the number of automorphism keys per step, so each gate's schedule
//! ([`hekate::fhew::AutoScheduler::schedule`]) is flattened into a list of operations, an
//! RGSW product or one automorphism key each, row `s` of the tables holding operation `s`
//! of every gate (shorter lists padded with "nothing"). Fused (`hk_fhew_rotate_auto`), each
//! work-group walks its own gate's list; per row (any `N`), six launches over the batch: the
//! automorphism's permutation, the digits with each element's gadget, their forward NTT, the
//! products, the inverse NTT and the update. The accumulators stay in coefficient form
//! between operations: an automorphism permutes the coefficients (`ψ_t`, with signs) where
//! the CPU permutes the NTT points, and its key switch adds `ψ_t(b)` after the inverse NTT
//! instead of before. Both are exact in `Z_Q`, so the words are the CPU's.
//!
//! Supported: AP, GINX and the three LMKCDEY methods with RGSW keys, every gadget schedule
//! and automorphism key set. ALTMULT keys are refused with an error naming what runs.

use crate::context::DeviceRingContext;
use crate::error::{Error, Result};
use crate::kernels::{KernelModule, FHEW_N_MAX};
use crate::poly::DevicePoly;
use crate::runtime::{Arg, Buffer, Gpu};
use hekate::fhew::{
    AutoScheduler, BlindRotationKey, BootstrapKey, BrkElement, FhewContext, FhewEvaluator, Gate,
    LweCiphertext, Method, RotationArithmetic,
};
use hekate::ring::automorphism::{automorphism_coeff, galois_inverse};
use hekate::ring::{Form, Poly};
use hekate::rlwe::gsw::RlweCiphertext;
use std::sync::Arc;

/// Work-items per group of the FHEW kernels.
const GROUP: usize = 256;

/// "No product for this element at this step" in the key-offset table (`HK_NO_KEY`).
const NO_KEY: u64 = u64::MAX;

/// Gates per batch unless told otherwise ([`DeviceFhewEvaluator::with_batch`]).
pub const DEFAULT_BATCH: usize = 256;

/// The blind-rotation keys of one [`BlindRotationKey`] (RGSW keys; for LMKCDEY also its
/// automorphism keys) on the device, with what a rotation needs to know about them.
pub struct DeviceBlindRotationKey {
    ctx: Arc<DeviceRingContext>,
    method: Method,
    /// LWE modulus `q` and dimension `n`.
    q: u64,
    n: usize,
    /// AP's `B_r`, `d_r`; GINX's `U`.
    b_r: u64,
    d_r: usize,
    ginx_u: Vec<i64>,
    /// Every key, `4 d_k N` words each (layout in `kernels/fhew.cl`), then the
    /// automorphism keys, `2 d N` words each (`a[0..d]`, `b[0..d]`).
    keys: Buffer,
    /// Word offset of key `k` in `keys`.
    offsets: Vec<u64>,
    /// `(log2 B_g, d_g)` of key `k`.
    gadgets: Vec<(u32, usize)>,
    /// LMKCDEY: the steps' schedule, and for automorphism key `i` its word offset,
    /// `(log2 B_g, d_g)` and `t^-1 mod 2N`.
    sched: Option<AutoScheduler>,
    auto: Vec<(u64, (u32, usize), u32)>,
    /// Whether rotations run fused, one launch per batch ([`DeviceBlindRotationKey::fused`]).
    fused: bool,
}

impl DeviceBlindRotationKey {
    /// Uploads `brk`, a key of the ring `ctx` mirrors (the [`FhewContext`]'s).
    pub fn upload(ctx: &Arc<DeviceRingContext>, brk: &BlindRotationKey) -> Result<Self> {
        let method = brk.config.method;
        if brk.config.alt_mult {
            return Err(Error::InvalidInput(format!(
                "the device runs the blind rotations of RGSW keys (AP, GINX, LMKCDEY); this \
                 key is {} (ALTMULT): evaluate it on the CPU, or generate keys without \
                 ALTMULT for the device",
                brk.config.label()
            )));
        }
        let ring = ctx.ring();
        if ring.q_len() != 1 || ring.p_len() != 0 {
            return Err(Error::InvalidInput(
                "FHEW's ring has one prime Q: use the FhewContext's ring".into(),
            ));
        }
        let (n, big_q) = (ring.n(), ring.modulus(0, 1).value());
        let mut words = Vec::new();
        let (mut offsets, mut gadgets) = (Vec::new(), Vec::new());
        for key in &brk.keys {
            let BrkElement::Rgsw(k) = key else {
                unreachable!("keys without ALTMULT are RGSW")
            };
            let g = k.gadget();
            if g.q() != big_q {
                return Err(Error::InvalidInput(format!(
                    "a blind-rotation key modulo {} in a ring modulo {big_q}",
                    g.q()
                )));
            }
            offsets.push(words.len() as u64);
            gadgets.push((g.log_base(), g.digits()));
            for part in [&k.zm.a, &k.m.a, &k.zm.b, &k.m.b] {
                for p in part {
                    if p.n() != n || p.form() != Form::Ntt {
                        return Err(Error::InvalidInput(
                            "blind-rotation keys are NTT-form polynomials of the ring".into(),
                        ));
                    }
                    words.extend_from_slice(p.data());
                }
            }
        }
        let mut auto = Vec::with_capacity(brk.auto.len());
        for k in &brk.auto {
            let g = k.key.gadget;
            auto.push((
                words.len() as u64,
                (g.log_base(), g.digits()),
                galois_inverse(k.t, n) as u32,
            ));
            for p in k.key.a.iter().chain(&k.key.b) {
                if p.n() != n || p.form() != Form::Ntt {
                    return Err(Error::InvalidInput(
                        "automorphism keys are NTT-form polynomials of the ring".into(),
                    ));
                }
                words.extend_from_slice(p.data());
            }
        }
        let sched = method
            .is_automorphism_based()
            .then(|| brk.automorphism_scheduler().clone());
        Ok(DeviceBlindRotationKey {
            ctx: ctx.clone(),
            method,
            q: brk.q,
            n: brk.n,
            b_r: brk.b_r,
            d_r: brk.d_r,
            ginx_u: brk.ginx_u.clone(),
            keys: ctx.gpu().upload(&words)?,
            offsets,
            gadgets,
            sched,
            auto,
            fused: Self::can_fuse(ctx),
        })
    }

    /// Whether the fused rotation fits: `N <= FHEW_N_MAX` (its local memory) and `N/2`
    /// work-items per group.
    fn can_fuse(ctx: &DeviceRingContext) -> bool {
        let n = ctx.n();
        (4..=FHEW_N_MAX).contains(&n) && n / 2 <= ctx.gpu().info().max_group as usize
    }

    /// Runs each batch's rotations in one launch (`hk_fhew_rotate`: a work-group per gate,
    /// its accumulator and products in registers and local memory, only the keys read from
    /// device memory; the default where it fits, `N <= 1024`) or in five launches per step
    /// over the whole batch (`fused = false`; any `N`; six per operation for LMKCDEY). Both
    /// give the same words. An error if `fused` is asked for where it does not fit.
    pub fn with_fused(mut self, fused: bool) -> Result<Self> {
        self.set_fused(fused)?;
        Ok(self)
    }

    /// [`DeviceBlindRotationKey::with_fused`] in place.
    pub fn set_fused(&mut self, fused: bool) -> Result<()> {
        if fused && !Self::can_fuse(&self.ctx) {
            return Err(Error::InvalidInput(format!(
                "the fused FHEW rotation needs N <= {FHEW_N_MAX} and N/2 work-items per group \
                 (N = {}, at most {} here)",
                self.ctx.n(),
                self.ctx.gpu().info().max_group
            )));
        }
        self.fused = fused;
        Ok(())
    }

    /// Whether rotations run fused ([`DeviceBlindRotationKey::with_fused`]).
    pub fn fused(&self) -> bool {
        self.fused
    }

    /// Bytes of the keys on the device.
    pub fn memory_bytes(&self) -> usize {
        self.keys.len() * 8
    }

    /// The largest `d_g` of the keys (automorphism keys included).
    fn max_digits(&self) -> usize {
        let auto = self.auto.iter().map(|a| a.1 .1);
        self.gadgets
            .iter()
            .map(|g| g.1)
            .chain(auto)
            .max()
            .unwrap_or(1)
    }

    /// The steps of one rotation: the key of step `s` for each element (word offset, or
    /// [`NO_KEY`]), GINX's exponents, and the gadget of each step. Row `s` of the tables
    /// holds the batch's `cts.len()` entries.
    fn schedule(
        &self,
        cts: &[LweCiphertext],
        two_n: usize,
    ) -> (Vec<u64>, Vec<u64>, Vec<(u32, usize)>) {
        let y = two_n as u64 / self.q;
        let mut index = Vec::new();
        let mut expo = Vec::new();
        let mut gadgets = Vec::new();
        match self.method {
            Method::Ginx => {
                let u = &self.ginx_u;
                for i in 0..self.n {
                    for (j, &uj) in u.iter().enumerate() {
                        let key = i * u.len() + j;
                        gadgets.push(self.gadgets[key]);
                        for ct in cts {
                            let k = (y as i64 * ct.a[i] as i64 * uj).rem_euclid(two_n as i64);
                            index.push(if k == 0 { NO_KEY } else { self.offsets[key] });
                            expo.push(k as u64);
                        }
                    }
                }
            }
            _ => {
                // AP: step (i, j) multiplies by key ((i d_r + j)(B_r - 1) + v - 1) for the
                // base-B_r digit v of α_i, nothing for v = 0.
                let (br, dr) = (self.b_r, self.d_r);
                let mut rest: Vec<u64> = vec![0; cts.len()];
                for i in 0..self.n {
                    for (r, ct) in rest.iter_mut().zip(cts) {
                        *r = ct.a[i];
                    }
                    for j in 0..dr {
                        let first = (i * dr + j) * (br as usize - 1);
                        gadgets.push(self.gadgets[first]);
                        for r in rest.iter_mut() {
                            let v = (*r % br) as usize;
                            *r /= br;
                            index.push(if v == 0 {
                                NO_KEY
                            } else {
                                self.offsets[first + v - 1]
                            });
                        }
                    }
                }
                expo.push(0);
            }
        }
        (index, expo, gadgets)
    }

    /// `RLWE(f · Y^(β + <α, s>))` in coefficient form for every ciphertext of `cts` (all
    /// rotated together), for the test polynomial `f` (coefficient form, of the ring):
    /// word for word [`BlindRotationKey::blind_rotate`].
    pub fn blind_rotate_batch(
        &self,
        f: &Poly,
        cts: &[LweCiphertext],
    ) -> Result<Vec<RlweCiphertext>> {
        let ring = self.ctx.ring().clone();
        let big_n = ring.n();
        if f.n() != big_n || f.num_limbs() != 1 || f.form() != Form::Coeff {
            return Err(Error::InvalidInput(
                "the test polynomial must be a coefficient-form polynomial of the FHEW ring".into(),
            ));
        }
        for ct in cts {
            if ct.q != self.q || ct.dim() != self.n {
                return Err(Error::Hekate(hekate::Error::ParameterMismatch(format!(
                    "blind rotation keys are for (n, q) = ({}, {}), a ciphertext has ({}, {})",
                    self.n,
                    self.q,
                    ct.dim(),
                    ct.q
                ))));
            }
        }
        if cts.is_empty() {
            return Ok(Vec::new());
        }
        let b = cts.len();
        let d_max = self.max_digits();
        if 2 * b * d_max > u16::MAX as usize {
            return Err(Error::InvalidInput(format!(
                "a batch of {b} gates with {d_max} digits: at most {} per call",
                u16::MAX as usize / (2 * d_max)
            )));
        }
        if let Some(sched) = &self.sched {
            return self.rotate_auto_batch(sched, f, cts);
        }
        let gpu = self.ctx.gpu().clone();
        let two_n = 2 * big_n;
        let y = two_n as u64 / self.q;
        // acc_e = (0, f X^(y β_e)).
        let mut start = vec![0u64; 2 * b * big_n];
        for (e, ct) in cts.iter().enumerate() {
            let mut fb = f.clone();
            fb.mul_monomial_assign((y * ct.b) as usize % two_n, &ring);
            start[(2 * e + 1) * big_n..(2 * e + 2) * big_n].copy_from_slice(fb.data());
        }
        let mut acc = DevicePoly::batch(&self.ctx, 2 * b, Form::Coeff)?;
        gpu.write(acc.buffer_mut(), &start)?;
        let (index, expo, gadgets) = self.schedule(cts, two_n);
        let index = gpu.upload(&index)?;
        let expo = gpu.upload(&expo)?;
        let module = gpu.module(KernelModule::Fhew)?;
        let ginx = self.method == Method::Ginx;
        if self.fused {
            let sched: Vec<u64> = gadgets
                .iter()
                .flat_map(|&(lb, d)| [lb as u64, d as u64])
                .collect();
            let sched = gpu.upload(&sched)?;
            gpu.launch(
                &module,
                "hk_fhew_rotate",
                [b as u32, 1],
                (big_n / 2) as u32,
                &[
                    Arg::Buf(acc.buffer()),
                    Arg::Buf(&self.keys),
                    Arg::Buf(&index),
                    Arg::Buf(&expo),
                    Arg::Buf(&sched),
                    Arg::U32(gadgets.len() as u32),
                    Arg::U32(b as u32),
                    Arg::U32(ginx as u32),
                    Arg::Buf(&self.ctx.twiddles),
                    Arg::Buf(&self.ctx.mods),
                    Arg::U32(big_n as u32),
                ],
            )?;
            return Self::download_accumulators(&acc, big_n);
        }
        let mut digits = DevicePoly::batch(&self.ctx, 2 * b * d_max, Form::Coeff)?;
        let mut t = DevicePoly::batch(&self.ctx, 2 * b, Form::Ntt)?;
        let block = big_n.min(GROUP);
        let grid = [big_n.div_ceil(block) as u32, (2 * b) as u32];
        let run =
            |kernel: &str, args: &[Arg<'_>]| gpu.launch(&module, kernel, grid, block as u32, args);
        let (mods, n32) = (&self.ctx.mods, big_n as u32);
        for (s, &(log_base, d)) in gadgets.iter().enumerate() {
            let off = (s * b) as u32;
            run(
                "hk_fhew_decompose",
                &[
                    Arg::Buf(digits.buffer()),
                    Arg::Buf(acc.buffer()),
                    Arg::Buf(mods),
                    Arg::U32(n32),
                    Arg::U32(log_base),
                    Arg::U32(d as u32),
                ],
            )?;
            digits.forward_limbs(0..2 * b * d, true)?;
            run(
                "hk_fhew_product",
                &[
                    Arg::Buf(t.buffer()),
                    Arg::Buf(digits.buffer()),
                    Arg::Buf(&self.keys),
                    Arg::Buf(&index),
                    Arg::U32(off),
                    Arg::Buf(mods),
                    Arg::U32(n32),
                    Arg::U32(d as u32),
                ],
            )?;
            t.inverse_limbs(0..2 * b, true)?;
            run(
                "hk_fhew_update",
                &[
                    Arg::Buf(acc.buffer()),
                    Arg::Buf(t.buffer()),
                    Arg::Buf(&index),
                    Arg::Buf(&expo),
                    Arg::U32(off),
                    Arg::Buf(mods),
                    Arg::U32(n32),
                    Arg::U32(ginx as u32),
                ],
            )?;
        }
        Self::download_accumulators(&acc, big_n)
    }

    /// [`DeviceBlindRotationKey::blind_rotate_batch`] for LMKCDEY keys (checked
    /// ciphertexts, at least one): each element's [`hekate::fhew::AutoSchedule`] flattened
    /// into one operation per row (an RGSW product, or one automorphism key; see
    /// `hk_fhew_rotate_auto`), shorter lists padded with [`NO_KEY`], run fused or per row.
    fn rotate_auto_batch(
        &self,
        sched: &AutoScheduler,
        f: &Poly,
        cts: &[LweCiphertext],
    ) -> Result<Vec<RlweCiphertext>> {
        let ring = self.ctx.ring().clone();
        let big_n = ring.n();
        let (b, two_n) = (cts.len(), 2 * big_n);
        let y = two_n as u64 / self.q;
        let info =
            |(lb, d): (u32, usize), tinv: u32| lb as u64 | (d as u64) << 8 | (tinv as u64) << 32;
        let mut ops: Vec<Vec<(u64, u64)>> = Vec::with_capacity(b);
        // acc_e = (0, (f X^(y β_e))(X^first_e)).
        let mut start = vec![0u64; 2 * b * big_n];
        for (e, ct) in cts.iter().enumerate() {
            let s = sched.schedule(ct)?;
            let mut fb = f.clone();
            fb.mul_monomial_assign((y * ct.b) as usize % two_n, &ring);
            let out = &mut start[(2 * e + 1) * big_n..(2 * e + 2) * big_n];
            automorphism_coeff(fb.data(), out, s.first, ring.modulus(0, 1).value());
            let mut list = Vec::with_capacity(s.steps.len() + s.autos.len());
            for (key, autos) in &s.steps {
                list.push((self.offsets[*key], info(self.gadgets[*key], 0)));
                for &i in &s.autos[autos.clone()] {
                    let (off, g, tinv) = self.auto[i];
                    list.push((off, info(g, tinv)));
                }
            }
            ops.push(list);
        }
        let rows = ops.iter().map(Vec::len).max().unwrap_or(0);
        let mut index = vec![NO_KEY; rows * b];
        let mut inf = vec![0u64; rows * b];
        for (e, list) in ops.iter().enumerate() {
            for (s, &(off, i)) in list.iter().enumerate() {
                index[s * b + e] = off;
                inf[s * b + e] = i;
            }
        }
        let gpu = self.ctx.gpu().clone();
        let mut acc = DevicePoly::batch(&self.ctx, 2 * b, Form::Coeff)?;
        gpu.write(acc.buffer_mut(), &start)?;
        let index = gpu.upload(&index)?;
        let inf = gpu.upload(&inf)?;
        let module = gpu.module(KernelModule::Fhew)?;
        if !self.fused {
            let d_max = self.max_digits();
            let tmp = DevicePoly::batch(&self.ctx, 2 * b, Form::Coeff)?;
            let mut digits = DevicePoly::batch(&self.ctx, 2 * b * d_max, Form::Coeff)?;
            let mut t = DevicePoly::batch(&self.ctx, 2 * b, Form::Ntt)?;
            let block = big_n.min(GROUP);
            let grid = [big_n.div_ceil(block) as u32, (2 * b) as u32];
            let (mods, n32, dm) = (&self.ctx.mods, big_n as u32, d_max as u32);
            for s in 0..rows {
                // Each kernel: its buffers, then (index, info, row offset, moduli, N, dmax).
                let row = |kernel: &str, bufs: &[&Buffer]| {
                    let mut args: Vec<Arg<'_>> = bufs.iter().map(|x| Arg::Buf(x)).collect();
                    args.extend([
                        Arg::Buf(&index),
                        Arg::Buf(&inf),
                        Arg::U32((s * b) as u32),
                        Arg::Buf(mods),
                        Arg::U32(n32),
                        Arg::U32(dm),
                    ]);
                    gpu.launch(&module, kernel, grid, block as u32, &args)
                };
                row("hk_fhew_auto_permute", &[tmp.buffer(), acc.buffer()])?;
                row(
                    "hk_fhew_decompose_ops",
                    &[digits.buffer(), tmp.buffer(), acc.buffer()],
                )?;
                digits.forward_limbs(0..2 * b * d_max, true)?;
                row(
                    "hk_fhew_product_ops",
                    &[t.buffer(), digits.buffer(), &self.keys],
                )?;
                t.inverse_limbs(0..2 * b, true)?;
                row(
                    "hk_fhew_update_ops",
                    &[acc.buffer(), t.buffer(), tmp.buffer()],
                )?;
            }
            return Self::download_accumulators(&acc, big_n);
        }
        gpu.launch(
            &module,
            "hk_fhew_rotate_auto",
            [b as u32, 1],
            (big_n / 2) as u32,
            &[
                Arg::Buf(acc.buffer()),
                Arg::Buf(&self.keys),
                Arg::Buf(&index),
                Arg::Buf(&inf),
                Arg::U32(rows as u32),
                Arg::U32(b as u32),
                Arg::Buf(&self.ctx.twiddles),
                Arg::Buf(&self.ctx.mods),
                Arg::U32(big_n as u32),
            ],
        )?;
        Self::download_accumulators(&acc, big_n)
    }

    /// The batch's accumulators as ciphertexts (coefficient form).
    fn download_accumulators(acc: &DevicePoly, big_n: usize) -> Result<Vec<RlweCiphertext>> {
        let words = acc.read_words()?;
        Ok(words
            .chunks_exact(2 * big_n)
            .map(|w| {
                let part = |h: usize| {
                    Poly::from_raw(
                        big_n,
                        1,
                        0,
                        Form::Coeff,
                        w[h * big_n..(h + 1) * big_n].to_vec(),
                    )
                };
                RlweCiphertext {
                    a: part(0),
                    b: part(1),
                }
            })
            .collect())
    }
}

/// FHEW gates on the device: the blind rotations of many gates at once
/// ([`DeviceBlindRotationKey::blind_rotate_batch`]), the rest of each gate on the CPU. Its
/// outputs equal [`FhewEvaluator`]'s with [`RotationArithmetic::Ntt`] word for word.
pub struct DeviceFhewEvaluator {
    cpu: FhewEvaluator,
    key: DeviceBlindRotationKey,
    batch: usize,
}

impl DeviceFhewEvaluator {
    /// An evaluator for `key` (RGSW keys: AP, GINX, LMKCDEY) on `gpu`; the key is uploaded
    /// once. Refuses what [`FhewEvaluator::with_arithmetic`] refuses (a predicted failure
    /// probability above the bound with the exact products).
    pub fn new(gpu: &Arc<Gpu>, ctx: Arc<FhewContext>, key: Arc<BootstrapKey>) -> Result<Self> {
        let dctx = DeviceRingContext::new(gpu, ctx.ring())?;
        let dkey = DeviceBlindRotationKey::upload(&dctx, &key.brk)?;
        let cpu = FhewEvaluator::with_arithmetic(ctx, key, RotationArithmetic::Ntt)?;
        Ok(DeviceFhewEvaluator {
            cpu,
            key: dkey,
            batch: DEFAULT_BATCH,
        })
    }

    /// At most `batch` gates per device batch (at least 1).
    pub fn with_batch(mut self, batch: usize) -> Self {
        self.batch = batch.max(1);
        self
    }

    /// The device keys.
    pub fn key(&self) -> &DeviceBlindRotationKey {
        &self.key
    }

    /// Fused rotations (one launch per batch) or launches per step
    /// ([`DeviceBlindRotationKey::with_fused`]).
    pub fn set_fused(&mut self, fused: bool) -> Result<()> {
        self.key.set_fused(fused)
    }

    /// The CPU evaluator that prepares and finishes the gates (NTT products: the same
    /// results as the device).
    pub fn cpu(&mut self) -> &mut FhewEvaluator {
        &mut self.cpu
    }

    /// Bootstrapped binary gates, `gates[i] = (gate, a, b)`, their blind rotations run
    /// together in batches: the same outputs, in order, as [`FhewEvaluator::gate`] on each.
    pub fn gates(
        &mut self,
        gates: &[(Gate, &LweCiphertext, &LweCiphertext)],
    ) -> Result<Vec<LweCiphertext>> {
        let mut out = Vec::with_capacity(gates.len());
        for chunk in gates.chunks(self.batch) {
            let inputs = chunk
                .iter()
                .map(|&(g, a, b)| self.cpu.gate_input(g, a, b))
                .collect::<hekate::Result<Vec<_>>>()?;
            let accs = self
                .key
                .blind_rotate_batch(self.cpu.gate_test_vector(), &inputs)?;
            for acc in &accs {
                out.push(self.cpu.finish_gate(acc)?);
            }
        }
        Ok(out)
    }
}
