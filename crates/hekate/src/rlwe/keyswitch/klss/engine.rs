//! The KLSS engine: [`KlssKeySwitcher`] (the choice of `B'`), the decomposition lifted to
//! `B'`, the inner products and the recombination into `Q̃`.

use super::config::{b_prefix, key_digit_primes, log_bounds, poly_limb, pq_order};
use super::key::key_block;
use super::{KeyStorage, KlssConfig, KlssKey};
use crate::math::kernels;
use crate::math::memory::AlignedWords;
use crate::math::rns::{BaseConverter, RnsBasis};
use crate::math::PrimeGenerator;
use crate::ring::{for_each_limb, Form, Poly, RingContext};
use crate::rlwe::keys::SecretKey;
use crate::rlwe::keyswitch::hybrid::HybridKeySwitcher;
use crate::rlwe::keyswitch::KeySwitcher;
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use std::sync::Arc;

/// The digits `b_j` lifted to `B'`, NTT form: digit `j` limb `t` at `(j r' + t) N`.
#[derive(Debug)]
pub struct KlssDecomposition {
    q_limbs: usize,
    digits: usize,
    data: AlignedWords,
}

/// Inner products being summed: in `B'` (NTT form) and, after a recombination, in `Q̃`.
#[derive(Debug)]
pub struct KlssAccumulator {
    q_limbs: usize,
    /// Products summed into `sums` since the last recombination.
    count: usize,
    /// `c̃_{h,i}` at `key_block(r'[..d̃_l], h, i) N` (`r'_i` limbs), for the `d̃_l` key
    /// digits in use.
    sums: AlignedWords,
    /// Recombined part: over `Q_l ∪ P`, coefficient form.
    recombined: Option<[Poly; 2]>,
}

/// The KLSS / linear key-switching engine for one ring, `dnum` and [`KlssConfig`].
#[derive(Debug)]
pub struct KlssKeySwitcher {
    pub(super) ctx: Arc<RingContext>,
    pub(super) hybrid: HybridKeySwitcher,
    pub(super) config: KlssConfig,
    /// The ring over `B'` (its NTT plans and moduli).
    pub(super) aux: Arc<RingContext>,
    pub(super) r_prime: usize,
    /// `r'_i` per key digit: the first `r'_i` primes of `B'` exceed digit `i`'s bound.
    pub(super) r_primes: Vec<usize>,
    pub(super) d_tilde: usize,
    /// `lift[j][s - 1]`: the first `s` primes of digit `j` to `B'`.
    lift: Vec<Vec<BaseConverter>>,
    /// `recombine[i]`: the first `r'_i` primes of `B'` to the primes of key digit `i`.
    pub(super) recombine: Vec<BaseConverter>,
    /// Whether digit lifts are copies (`r = 1`, every `q` below every `B'` prime).
    copy_lift: bool,
    /// `log2` of the bound `B'` must exceed, and of `B'`.
    log_bound: f64,
    pub(super) id: u64,
}

impl KlssKeySwitcher {
    /// The engine for `ctx` with `dnum` ciphertext digits and `config`; picks the `B'`
    /// primes (distinct from `Q̃`) and checks `r'` against the bound.
    pub fn new(ctx: Arc<RingContext>, dnum: usize, config: KlssConfig) -> Result<Self> {
        let hybrid = HybridKeySwitcher::new(ctx.clone(), dnum);
        let (l1, k, n) = (ctx.q_len(), ctx.p_len(), ctx.n());
        let lt = l1 + k;
        if config.r_tilde == 0 || config.r_tilde > lt {
            return Err(Error::InvalidParameters(format!(
                "KLSS r̃ = {} must be in [1, ℓ̃ = {lt}]",
                config.r_tilde
            )));
        }
        if !(30..=61).contains(&config.b_prime_bits) {
            return Err(Error::InvalidParameters(format!(
                "KLSS B' prime size {} bits is outside [30, 61]",
                config.b_prime_bits
            )));
        }
        if config.accumulation == 0 {
            return Err(Error::InvalidParameters(
                "KLSS accumulation must be at least 1 product".into(),
            ));
        }
        let pq = pq_order(&ctx);
        let d_tilde = lt.div_ceil(config.r_tilde);
        let digit_bounds = log_bounds(&ctx, dnum, &config);
        let log_bound = digit_bounds.iter().copied().fold(f64::MIN, f64::max);
        let mut gen = PrimeGenerator::new(n)?;
        gen.exclude(&pq.iter().map(|m| m.value()).collect::<Vec<_>>());
        let mut b_primes = Vec::new();
        let mut log_b = 0.0;
        let enough = |log_b: f64, count: usize| match config.r_prime {
            Some(r) => count >= r,
            None => log_b > log_bound,
        };
        while !enough(log_b, b_primes.len()) {
            if b_primes.len() >= 64 {
                return Err(Error::InvalidParameters(
                    "KLSS: B' would need more than 64 primes".into(),
                ));
            }
            let p = gen.next_prime(config.b_prime_bits)?;
            log_b += (p as f64).log2();
            b_primes.push(p);
        }
        if log_b <= log_bound {
            return Err(Error::InvalidParameters(format!(
                "KLSS r' = {} primes of {} bits give log2 B' = {log_b:.1}, not above the \
                 {:?} bound 2^{log_bound:.1}: raise r', or let it be derived",
                b_primes.len(),
                config.b_prime_bits,
                config.bound
            )));
        }
        let r_prime = b_primes.len();
        // Each key digit takes the fewest leading B' primes above its own bound (all r'
        // when r' is given).
        let r_primes: Vec<usize> = match config.r_prime {
            Some(_) => vec![r_prime; d_tilde],
            None => digit_bounds
                .iter()
                .map(|&bound| {
                    let mut log = 0.0;
                    1 + b_primes
                        .iter()
                        .position(|&p| {
                            log += (p as f64).log2();
                            log > bound
                        })
                        .expect("B' exceeds every digit's bound")
                })
                .collect(),
        };
        let aux = RingContext::new(n, &b_primes, &[])?;
        let b_basis = aux.q().clone();
        let alpha = hybrid.alpha();
        let q = ctx.q().moduli();
        let lift = (0..dnum)
            .map(|j| {
                let std::ops::Range { start, end } = hybrid.digits().range(j, l1);
                (1..=end.saturating_sub(start))
                    .map(|s| {
                        BaseConverter::new(
                            &RnsBasis::from_moduli(q[start..start + s].to_vec()),
                            &b_basis,
                        )
                    })
                    .collect()
            })
            .collect();
        let recombine = (0..d_tilde)
            .map(|i| {
                let range = key_digit_primes(i, config.r_tilde, lt);
                let to = RnsBasis::from_moduli(pq[range].to_vec());
                BaseConverter::new(&b_prefix(&aux, r_primes[i]), &to)
            })
            .collect();
        let b_min = b_primes.iter().copied().min().expect("r' >= 1");
        let copy_lift = alpha == 1 && q.iter().all(|m| m.value() < b_min);
        let words: Vec<u64> = [
            ctx.fingerprint(),
            dnum as u64,
            config.r_tilde as u64,
            r_prime as u64,
        ]
        .into_iter()
        .chain(b_primes.iter().copied())
        .chain(r_primes.iter().map(|&r| r as u64))
        .collect();
        let id = crate::ring::fnv1a64(
            &words
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect::<Vec<_>>(),
        );
        Ok(KlssKeySwitcher {
            ctx,
            hybrid,
            config,
            aux,
            r_prime,
            r_primes,
            d_tilde,
            lift,
            recombine,
            copy_lift,
            log_bound,
            id,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &KlssConfig {
        &self.config
    }

    /// `d` (= `dnum`): ciphertext digits.
    pub fn dnum(&self) -> usize {
        self.hybrid.dnum()
    }

    /// `N`, the ring degree.
    pub fn ring_degree(&self) -> usize {
        self.ctx.n()
    }

    /// `r` (= `α`): primes per ciphertext digit.
    pub fn r(&self) -> usize {
        self.hybrid.alpha()
    }

    /// `r̃`: primes per key digit.
    pub fn r_tilde(&self) -> usize {
        self.config.r_tilde
    }

    /// `d̃`: key digits.
    pub fn d_tilde(&self) -> usize {
        self.d_tilde
    }

    /// `r'`: primes of `B'`.
    pub fn r_prime(&self) -> usize {
        self.r_prime
    }

    /// `r'_i` for each key digit `i`: the key digit's polynomials are kept over the first
    /// `r'_i` primes of `B'`, the fewest whose product exceeds that digit's own bound
    /// (a digit holding a special prime can need more than the others). The key takes
    /// `2 d Σ r'_i N` words, and a switch as many products.
    pub fn r_primes(&self) -> &[usize] {
        &self.r_primes
    }

    /// The `B'` primes.
    pub fn b_primes(&self) -> Vec<u64> {
        self.aux.q().moduli().iter().map(|m| m.value()).collect()
    }

    /// `log2` of the bound `B'` exceeds, and `log2 B'`.
    pub fn bound_bits(&self) -> (f64, f64) {
        (self.log_bound, self.aux.q().log_product())
    }

    /// An identifier of the engine's shape (ring, `d`, `r̃`, `B'`): keys carry it.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The hybrid engine that generates the ordinary keys.
    pub fn hybrid(&self) -> &HybridKeySwitcher {
        &self.hybrid
    }

    /// The ring over `B'` (its primes are its chain): where the digits are lifted and the
    /// inner products summed.
    pub fn aux(&self) -> &Arc<RingContext> {
        &self.aux
    }

    /// The key digits in use at `q_limbs` chain limbs, `d̃_l = ceil((k + q_limbs) / r̃)`.
    pub fn key_digits_at(&self, q_limbs: usize) -> usize {
        self.active(q_limbs).0
    }

    /// The primes of key digit `i` in use at `q_limbs` chain limbs, as indices into the
    /// PQ order `p_0 .. p_{k-1}, q_0 .. q_L` (a prefix of `Q̃` is in use).
    pub fn key_digit_primes(&self, i: usize, q_limbs: usize) -> std::ops::Range<usize> {
        key_digit_primes(i, self.config.r_tilde, self.active(q_limbs).1)
    }

    /// The limb of a `Q_l ∪ P` polynomial (chain limbs first) holding prime `t` of the PQ
    /// order (special primes first).
    pub fn pq_limb(&self, t: usize, q_limbs: usize) -> usize {
        poly_limb(t, q_limbs, self.ctx.p_len())
    }

    /// The recombination of key digit `i`: `Conv` from the first `r'_i` primes of `B'` to
    /// the digit's primes.
    pub fn recombiner(&self, i: usize) -> &BaseConverter {
        &self.recombine[i]
    }

    /// The lift of ciphertext digit `j`'s first `s` primes to `B'` (exact, centered).
    pub fn lifter(&self, j: usize, s: usize) -> &BaseConverter {
        &self.lift[j][s - 1]
    }

    /// Key digits in use at `q_limbs` chain limbs, and the primes of `Q̃` in use.
    fn active(&self, q_limbs: usize) -> (usize, usize) {
        let used = self.ctx.p_len() + q_limbs;
        (used.div_ceil(self.config.r_tilde), used)
    }

    /// For each limb of an accumulator over the first `dl` key digits: `(h, i, t)`, the
    /// output part, the key digit and the `B'` prime.
    fn sum_limbs(&self, dl: usize) -> Vec<(usize, usize, usize)> {
        (0..2)
            .flat_map(|h| {
                self.r_primes[..dl]
                    .iter()
                    .enumerate()
                    .flat_map(move |(i, &r)| (0..r).map(move |t| (h, i, t)))
            })
            .collect()
    }

    /// Recombines the `B'` sums into `Q̃` (coefficient form) and clears them.
    fn recombine_into(&self, acc: &mut KlssAccumulator) {
        let ctx = &*self.ctx;
        let (n, rp, rt) = (ctx.n(), self.r_prime, self.config.r_tilde);
        let (ql, k) = (acc.q_limbs, ctx.p_len());
        let (dl, used) = self.active(ql);
        let fresh = acc.recombined.is_none();
        let mut out = acc
            .recombined
            .take()
            .unwrap_or_else(|| [0, 1].map(|_| ctx.scratch_poly(ql, k, Form::Coeff)));
        // Inverse NTT of every sum, in place.
        let aux = &*self.aux;
        let (rps, limb_of) = (&self.r_primes[..dl], self.sum_limbs(dl));
        for_each_limb(&mut acc.sums, n, |idx, limb| {
            aux.ntt_plan(limb_of[idx].2, rp).inverse(limb)
        });
        let pool = ctx.pool();
        for (h, poly) in out.iter_mut().enumerate() {
            // Target limbs of key digit i, in PQ order: [i r̃, min((i+1) r̃, used)).
            let data = poly.data_mut();
            let mut conv = pool.take(rt * n);
            let mut scratch = pool.take((rp + 1) * n);
            for (i, &r) in rps.iter().enumerate() {
                let range = key_digit_primes(i, rt, used);
                let m = range.len();
                let at = key_block(rps, h, i) * n;
                let src = &acc.sums[at..at + r * n];
                self.recombine[i].convert(src, &mut conv[..m * n], n, &mut scratch[..(r + 1) * n]);
                for (s, t) in range.enumerate() {
                    let limb = poly_limb(t, ql, k);
                    let dst = &mut data[limb * n..(limb + 1) * n];
                    let c = &conv[s * n..(s + 1) * n];
                    if fresh {
                        dst.copy_from_slice(c);
                    } else {
                        kernels::add_assign(dst, c, ctx.modulus(limb, ql));
                    }
                }
            }
            pool.recycle(conv);
            pool.recycle(scratch);
        }
        acc.recombined = Some(out);
        acc.count = 0;
    }
}

impl KeySwitcher for KlssKeySwitcher {
    type Key = KlssKey;
    type Decomposition = KlssDecomposition;
    type Accumulator = KlssAccumulator;

    fn generate_key<R: RngCore + CryptoRng>(
        &self,
        s_from: &Poly,
        sk: &SecretKey,
        rng: &mut R,
    ) -> KlssKey {
        self.generate_key_with_storage(s_from, sk, KeyStorage::ExpandedOnly, rng)
    }

    fn decompose(&self, c: &Poly) -> KlssDecomposition {
        let ctx = &*self.ctx;
        let (ql, n, rp) = (c.q_limbs(), ctx.n(), self.r_prime);
        debug_assert!(c.p_limbs() == 0);
        let digits = self.hybrid.digits_at(ql);
        let pool = ctx.pool();
        // A coefficient-form input is used as it is (no inverse transforms).
        let owned = (c.form() == Form::Ntt).then(|| super::super::inverse_ntt_copy(ctx, c));
        let coeff: &[u64] = owned.as_deref().unwrap_or(c.data());
        let mut data = pool.take(digits * rp * n);
        let aux = &*self.aux;
        let coeff_ref = coeff;
        let lift = |j: usize, out: &mut [u64]| {
            let std::ops::Range { start, end } = self.hybrid.digits().range(j, ql);
            if self.copy_lift {
                // r = 1: b_j = [c]_{q_j} centered; below every B' prime, so its residue
                // mod b is x (x < q/2) or x - q + b.
                let q = ctx.modulus(start, ql).value();
                let half = q >> 1;
                let x = &coeff_ref[start * n..end * n];
                for (t, limb) in out.chunks_mut(n).enumerate() {
                    let b = aux.modulus(t, rp).value();
                    for (o, &v) in limb.iter_mut().zip(x) {
                        // (v > half) as a mask, from shifts and subtractions only: this
                        // vectorizes on the baseline x86-64 target (no 64-bit compares
                        // there), where the plain `if` stayed scalar (15% of a switch).
                        let above = 0u64.wrapping_sub(half.wrapping_sub(v) >> 63);
                        *o = v + ((b - q) & above);
                    }
                }
            } else {
                let conv = &self.lift[j][end - start - 1];
                let mut scratch = pool.take((end - start + 1) * n);
                conv.convert(&coeff_ref[start * n..end * n], out, n, &mut scratch);
                pool.recycle(scratch);
            }
            for (t, limb) in out.chunks_mut(n).enumerate() {
                aux.ntt_plan(t, rp).forward(limb);
            }
        };
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            data.par_chunks_mut(rp * n)
                .enumerate()
                .for_each(|(j, out)| lift(j, out));
        }
        #[cfg(not(feature = "parallel"))]
        data.chunks_mut(rp * n)
            .enumerate()
            .for_each(|(j, out)| lift(j, out));
        if let Some(coeff) = owned {
            pool.recycle(coeff);
        }
        KlssDecomposition {
            q_limbs: ql,
            digits,
            data,
        }
    }

    fn zero_accumulator(&self, q_limbs: usize) -> KlssAccumulator {
        let (dl, _) = self.active(q_limbs);
        let limbs: usize = self.r_primes[..dl].iter().sum();
        let mut sums = self.ctx.pool().take(2 * limbs * self.ctx.n());
        sums.fill(0);
        KlssAccumulator {
            q_limbs,
            count: 0,
            sums,
            recombined: None,
        }
    }

    fn multiply_add(&self, d: &KlssDecomposition, key: &KlssKey, acc: &mut KlssAccumulator) {
        debug_assert!(self.owns(key) && d.q_limbs == acc.q_limbs);
        if acc.count == self.config.accumulation {
            self.recombine_into(acc); // count = 0: the products below overwrite the sums
        }
        let (n, rp) = (self.ctx.n(), self.r_prime);
        let (dl, _) = self.active(acc.q_limbs);
        let aux = &*self.aux;
        let digits = d.digits;
        let first = acc.count == 0;
        let tile = key.tile;
        let total: usize = self.r_primes.iter().sum();
        // Accumulator limb -> (key output limb, B' prime).
        let limb_of: Vec<(usize, usize)> = self
            .sum_limbs(dl)
            .into_iter()
            .map(|(h, i, t)| (key_block(&self.r_primes, h, i) + t, t))
            .collect();
        // Tile by tile, every output of a group of accumulator limbs: the key is read
        // front to back once, the digits' tiles from the cache (see `KlssKey::data`).
        let group = |first_limb: usize, sums: &mut [u64]| {
            let mut a: Vec<&[u64]> = Vec::with_capacity(digits);
            let mut b: Vec<&[u64]> = Vec::with_capacity(digits);
            for tb in 0..n / tile {
                let lo = tb * tile;
                for (g, out) in sums.chunks_mut(n).enumerate() {
                    let (o, t) = limb_of[first_limb + g];
                    a.clear();
                    a.extend((0..digits).map(|j| &d.data[(j * rp + t) * n + lo..][..tile]));
                    b.clear();
                    b.extend(key.tile_terms(tb, o).chunks(tile).take(digits));
                    let out = &mut out[lo..lo + tile];
                    if first {
                        kernels::inner_product(out, &a, &b, aux.modulus(t, rp));
                    } else {
                        kernels::inner_product_add_assign(out, &a, &b, aux.modulus(t, rp));
                    }
                }
            }
        };
        debug_assert_eq!(key.data.len(), 2 * total * key.dnum * n);
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            let per = limb_of.len().div_ceil(rayon::current_num_threads()).max(1);
            acc.sums
                .par_chunks_mut(per * n)
                .enumerate()
                .for_each(|(c, sums)| group(c * per, sums));
        }
        #[cfg(not(feature = "parallel"))]
        group(0, &mut acc.sums);
        acc.count += 1;
    }

    fn mod_down_to(&self, mut acc: KlssAccumulator, form: Form) -> [Poly; 2] {
        let ctx = &*self.ctx;
        if acc.count > 0 || acc.recombined.is_none() {
            self.recombine_into(&mut acc);
        }
        ctx.pool().recycle(std::mem::take(&mut acc.sums));
        let recombined = acc.recombined.take().expect("recombined above");
        super::super::map_pair(recombined, |a| {
            let mut u = a.mod_down_by_p(ctx);
            if form == Form::Ntt {
                u.ntt(ctx);
            }
            u
        })
    }

    fn mod_down_rescale(
        &self,
        acc: KlssAccumulator,
        k: i64,
        add: [Poly; 2],
        _: &RingContext,
    ) -> [Poly; 2] {
        // The coefficient-form exit, then the rescale transforms each limb once.
        let ctx = &*self.ctx;
        let u = self.mod_down_to(acc, Form::Coeff);
        let s = ctx.integer_residues(k, add[0].q_limbs());
        crate::rlwe::keyswitch::map_pairs(add, u, |d, u| {
            let out = d.add_coeff_product_rescale(&u, &s, ctx);
            ctx.recycle(u);
            out
        })
    }

    fn mod_down_second(&self, acc: &mut KlssAccumulator) -> Poly {
        let ctx = &*self.ctx;
        if acc.count > 0 || acc.recombined.is_none() {
            // Sums into the recombined part; count = 0: the next product overwrites them.
            self.recombine_into(acc);
        }
        let recombined = acc.recombined.as_mut().expect("recombined above");
        let zero = ctx.scratch_zero(acc.q_limbs, ctx.p_len(), Form::Coeff);
        let mut u = std::mem::replace(&mut recombined[1], zero).mod_down_by_p(ctx);
        u.ntt(ctx);
        u
    }

    fn recycle(&self, d: KlssDecomposition) {
        self.ctx.pool().recycle(d.data);
    }

    fn permute(&self, acc: &KlssAccumulator, k: usize) -> KlssAccumulator {
        let ctx = &*self.ctx;
        let n = ctx.n();
        let perm = self.aux.ntt_permutation(k);
        let mut sums = ctx.pool().take(acc.sums.len());
        for (src, dst) in acc.sums.chunks(n).zip(sums.chunks_mut(n)) {
            perm.apply(src, dst);
        }
        let recombined = acc.recombined.as_ref().map(|r| {
            [0, 1].map(|h| {
                let mut out = ctx.scratch_poly(acc.q_limbs, ctx.p_len(), Form::Coeff);
                r[h].automorphism(k, ctx, &mut out);
                out
            })
        });
        KlssAccumulator {
            q_limbs: acc.q_limbs,
            count: acc.count,
            sums,
            recombined,
        }
    }
}
