//! The backend seam: the arithmetic a device must provide for RLWE schemes.
//!
//! Everything above this trait — parameters, levels and scales, key lookup, the choice of
//! digits, which limbs a key switch touches, hoisting — is control flow and metadata that
//! lives on the host and is the same for every device. Everything below it is arithmetic
//! on RNS polynomials in the device's memory. A [`Backend`] names that arithmetic:
//!
//! | entry point | what it is | CPU implementation |
//! | --- | --- | --- |
//! | [`forward_ntt`](Backend::forward_ntt), [`inverse_ntt`](Backend::inverse_ntt) | the negacyclic NTT of every limb | [`crate::math::NttPlan`] per limb |
//! | [`add_assign`](Backend::add_assign), [`sub_assign`](Backend::sub_assign), [`mul_assign`](Backend::mul_assign), [`mul_add_assign`](Backend::mul_add_assign) | element-wise kernels | [`crate::math::kernels`] |
//! | [`automorphism`](Backend::automorphism) | `X -> X^k` (a permutation in NTT form) | `NttPermutation` (in `ring`) |
//! | [`mod_up`](Backend::mod_up) | ModUp of one gadget digit: exact base conversion from the digit's primes to the rest of `Q_l ∪ P`, then NTT | [`crate::math::rns::BaseConverter`] |
//! | [`inner_product`](Backend::inner_product) | the key-switching inner product `Σ_j d_j ⊙ k_j` of both key halves | [`crate::math::kernels::inner_product`], tile by tile |
//! | [`mod_down`](Backend::mod_down) | ModDown by `P`: `(x - Conv_P→Q(x_P)) · P^-1` | [`crate::math::rns::BasisExtender`] |
//!
//! plus [`upload`](Backend::upload) / [`download`](Backend::download) between host
//! [`Poly`]s and the backend's own polynomials, and [`alloc`](Backend::alloc) /
//! [`recycle`](Backend::recycle) of scratch polynomials.
//!
//! The CPU backend is [`RingContext`] itself (`type Poly = Poly`, upload and download are
//! copies): the CPU engines call the same functions they called before the seam existed,
//! through static dispatch, so the seam costs nothing there (measured: `BENCHMARKS.md`,
//! "Backend seam"). A GPU backend implements the trait on its own context type with
//! device polynomials, and reuses the engines' control flow unchanged: the hybrid engine's
//! three steps are written once, generically, as
//! [`HybridKeySwitcher::decompose_on`](crate::rlwe::HybridKeySwitcher::decompose_on),
//! [`multiply_on`](crate::rlwe::HybridKeySwitcher::multiply_on) and
//! [`mod_down_on`](crate::rlwe::HybridKeySwitcher::mod_down_on), and the CPU
//! [`KeySwitcher`](crate::rlwe::KeySwitcher) implementation is those three with
//! `B = RingContext`.
//!
//! # Contract
//!
//! Every entry point must produce the **same words** as the CPU backend for the same
//! inputs (canonical residues in `[0, q)`), so that a device can be tested word for word
//! against the CPU and ciphertexts can move between them. Shapes (ring degree, limb
//! counts, form) are the caller's responsibility and are checked with `debug_assert!`
//! here: the schemes validate user input before they reach a backend.
//!
//! A polynomial over `Q_l ∪ P` has `q_limbs = l` chain limbs followed by `p_limbs` special
//! limbs (`0` or all of `P`); its limb `t` has the modulus `q_t` for `t < l` and
//! `p_(t-l)` after.

use super::keyswitch::DIGIT_TILE;
use crate::math::kernels;
use crate::math::rns::BaseConverter;
use crate::ring::{for_each_limb, for_each_limb_pair, Form, Poly, RingContext};
use std::ops::Range;

/// The arithmetic a device provides for the RLWE core (see the module documentation).
pub trait Backend: Send + Sync {
    /// An RNS polynomial in this backend's memory.
    type Poly: Send + Sync;

    /// The ring degree `N`.
    fn n(&self) -> usize;

    /// A polynomial of this shape with unspecified contents (scratch).
    fn alloc(&self, q_limbs: usize, p_limbs: usize, form: Form) -> Self::Poly;

    /// Gives a scratch polynomial back for reuse (dropping it is also fine).
    fn recycle(&self, p: Self::Poly);

    /// A copy of the host polynomial `p` in this backend's memory.
    fn upload(&self, p: &Poly) -> Self::Poly;

    /// A host copy of `p`.
    fn download(&self, p: &Self::Poly) -> Poly;

    /// `dst = src` (same shape; `dst` takes `src`'s form).
    fn copy(&self, src: &Self::Poly, dst: &mut Self::Poly);

    /// `p` to NTT form (every limb; a no-op if it is there already).
    fn forward_ntt(&self, p: &mut Self::Poly);

    /// `p` to coefficient form (every limb; a no-op if it is there already).
    fn inverse_ntt(&self, p: &mut Self::Poly);

    /// `a += b`, limb by limb.
    fn add_assign(&self, a: &mut Self::Poly, b: &Self::Poly);

    /// `a -= b`, limb by limb.
    fn sub_assign(&self, a: &mut Self::Poly, b: &Self::Poly);

    /// `a *= b` coefficient-wise (NTT form: the ring product).
    fn mul_assign(&self, a: &mut Self::Poly, b: &Self::Poly);

    /// `acc += a * b` coefficient-wise (NTT form).
    fn mul_add_assign(&self, acc: &mut Self::Poly, a: &Self::Poly, b: &Self::Poly);

    /// `out = a(X^k)` in `a`'s form (`k` odd, taken mod `2N`); `out` has `a`'s shape.
    fn automorphism(&self, a: &Self::Poly, k: usize, out: &mut Self::Poly);

    /// ModUp of one gadget digit, the first step of hybrid key switching: given `c` over
    /// `Q_l` in NTT form and the same `c` in coefficient form, writes into `out` (over
    /// `Q_l ∪ P`, NTT form) the digit `[c]_{Q_j}` of the primes `digit` extended exactly to
    /// every other limb: its own limbs are copied from `c`, the others are `conv` (from the
    /// digit's primes to `P`, then the chain limbs below and above the digit, as
    /// [`HybridKeySwitcher`](crate::rlwe::HybridKeySwitcher) builds it) followed by the
    /// forward NTT.
    fn mod_up(
        &self,
        c: &Self::Poly,
        c_coeff: &Self::Poly,
        digit: Range<usize>,
        conv: &BaseConverter,
        out: &mut Self::Poly,
    );

    /// The key-switching inner product: for `h = 0, 1`,
    /// `acc[h] (+)= Σ_j digits[j] ⊙ key[j][h]` limb by limb (NTT form), adding to `acc`
    /// when `accumulate` and overwriting it otherwise. `acc` and the digits are over
    /// `Q_l ∪ P`; the key polynomials are over `Q_{l'} ∪ P` with `l' >= l` (the whole
    /// chain for a full key, less for a [level-aware](crate::rlwe::HybridKeySwitcher::generate_key_at)
    /// one), and the accumulator's limb `t` meets the key's limb `t` (chain) or `l' + t - l`
    /// (special).
    fn inner_product(
        &self,
        digits: &[Self::Poly],
        key: &[[Self::Poly; 2]],
        acc: &mut [Self::Poly; 2],
        accumulate: bool,
    );

    /// ModDown by `P`: `p` over `Q_l ∪ P` (either form) to `(p - Conv(p_P)) · P^-1` over
    /// `Q_l` in NTT form.
    fn mod_down(&self, p: Self::Poly) -> Self::Poly;

    /// [`mod_down`](Backend::mod_down) of a key switch's two halves (the same shape); a
    /// backend may run both in one pass (the device does, in half the launches). The
    /// default runs the two, in parallel with the `parallel` feature.
    fn mod_down_pair(&self, acc: [Self::Poly; 2]) -> [Self::Poly; 2] {
        let [a0, a1] = acc;
        #[cfg(feature = "parallel")]
        {
            let (u0, u1) = rayon::join(|| self.mod_down(a0), || self.mod_down(a1));
            [u0, u1]
        }
        #[cfg(not(feature = "parallel"))]
        {
            [self.mod_down(a0), self.mod_down(a1)]
        }
    }
}

/// The CPU backend: the ring context's own tables, on host polynomials.
impl Backend for RingContext {
    type Poly = Poly;

    fn n(&self) -> usize {
        RingContext::n(self)
    }

    fn alloc(&self, q_limbs: usize, p_limbs: usize, form: Form) -> Poly {
        self.scratch_poly(q_limbs, p_limbs, form)
    }

    fn recycle(&self, p: Poly) {
        RingContext::recycle(self, p)
    }

    fn upload(&self, p: &Poly) -> Poly {
        p.clone()
    }

    fn download(&self, p: &Poly) -> Poly {
        p.clone()
    }

    fn copy(&self, src: &Poly, dst: &mut Poly) {
        debug_assert_eq!(src.data().len(), dst.data().len());
        dst.data_mut().copy_from_slice(src.data());
        dst.set_form(src.form());
    }

    fn forward_ntt(&self, p: &mut Poly) {
        p.ntt(self)
    }

    fn inverse_ntt(&self, p: &mut Poly) {
        p.intt(self)
    }

    fn add_assign(&self, a: &mut Poly, b: &Poly) {
        a.add_assign(b, self)
    }

    fn sub_assign(&self, a: &mut Poly, b: &Poly) {
        a.sub_assign(b, self)
    }

    fn mul_assign(&self, a: &mut Poly, b: &Poly) {
        a.mul_assign(b, self)
    }

    fn mul_add_assign(&self, acc: &mut Poly, a: &Poly, b: &Poly) {
        acc.mul_add_assign(a, b, self)
    }

    fn automorphism(&self, a: &Poly, k: usize, out: &mut Poly) {
        a.automorphism(k, self, out)
    }

    fn mod_up(
        &self,
        c: &Poly,
        c_coeff: &Poly,
        digit: Range<usize>,
        conv: &BaseConverter,
        out: &mut Poly,
    ) {
        let (ql, k, n) = (c.q_limbs(), self.p_len(), RingContext::n(self));
        let (start, end) = (digit.start, digit.end);
        debug_assert!(c.form() == Form::Ntt && c.p_limbs() == 0 && end <= ql);
        debug_assert!(c_coeff.form() == Form::Coeff && c_coeff.q_limbs() == ql);
        debug_assert!(out.q_limbs() == ql && out.p_limbs() == k);
        let size = end - start;
        let pool = self.pool();
        let mut scratch = pool.take((size + 1) * n);
        let input = &c_coeff.data()[start * n..end * n];
        {
            let data = out.data_mut();
            let (below, rest) = data.split_at_mut(start * n);
            let (_, above_and_p) = rest.split_at_mut(size * n);
            let (above, p_limbs) = above_and_p.split_at_mut((ql - end) * n);
            conv.convert_range(input, p_limbs, 0, n, &mut scratch);
            conv.convert_range(input, below, k, n, &mut scratch);
            conv.convert_range(input, above, k + start, n, &mut scratch);
        }
        pool.recycle(scratch);
        for_each_limb(out.data_mut(), n, |t, limb| {
            if digit.contains(&t) {
                limb.copy_from_slice(c.limb(t));
            } else {
                self.ntt_plan(t, ql).forward(limb);
            }
        });
        out.set_form(Form::Ntt);
    }

    /// Limb by limb, and within a limb tile by tile (`DIGIT_TILE` = 4096 coefficients): both
    /// halves of a tile in a row, so the digits' tile is read from memory once for the
    /// two of them (half by half over whole limbs, the digits were streamed twice).
    fn inner_product(
        &self,
        digits: &[Poly],
        key: &[[Poly; 2]],
        acc: &mut [Poly; 2],
        accumulate: bool,
    ) {
        tiled_inner_product(self, digits, key, acc, accumulate, DIGIT_TILE);
    }

    fn mod_down(&self, p: Poly) -> Poly {
        p.mod_down_by_p(self)
    }
}

/// [`Backend::inner_product`] of the CPU with tiles of `tile` coefficients (`N` if
/// smaller); every tile size gives the same words.
fn tiled_inner_product(
    ctx: &RingContext,
    digits: &[Poly],
    key: &[[Poly; 2]],
    acc: &mut [Poly; 2],
    accumulate: bool,
    tile: usize,
) {
    let ql = acc[0].q_limbs();
    let n = ctx.n();
    let tile = n.min(tile);
    let beta = digits.len();
    debug_assert!(beta <= key.len() && beta < 64);
    let key_q = key.first().map_or(0, |k| k[0].q_limbs());
    assert!(
        beta == 0 || key_q >= ql,
        "a switching key over {key_q} chain limbs for an input over {ql}: check the key's \
         level first"
    );
    let [acc0, acc1] = acc;
    for_each_limb_pair(acc0.data_mut(), acc1.data_mut(), n, |t, l0, l1| {
        let q = ctx.modulus(t, ql);
        let mut a: Vec<&[u64]> = Vec::with_capacity(beta);
        let mut b: Vec<&[u64]> = Vec::with_capacity(beta);
        for lo in (0..n).step_by(tile) {
            let r = lo..lo + tile;
            a.clear();
            a.extend(digits.iter().map(|p| &p.limb(t)[r.clone()]));
            for (half, out) in [(0, &mut *l0), (1, &mut *l1)] {
                b.clear();
                b.extend(
                    key[..beta]
                        .iter()
                        .map(|k| &k[half].limb_over(t, ql)[r.clone()]),
                );
                if accumulate {
                    kernels::inner_product_add_assign(&mut out[r.clone()], &a, &b, q);
                } else {
                    kernels::inner_product(&mut out[r.clone()], &a, &b, q);
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rlwe::keys::{SecretDistribution, SecretKey};
    use crate::rlwe::keyswitch::tests::{mixed_ring, random_ntt, random_ntt_over, rng_and_secrets};
    use crate::rlwe::{HybridKeySwitcher, KeySwitcher};
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    use std::sync::Arc;

    /// A polynomial of [`Device`]: not a host [`Poly`], so generic code cannot reach
    /// host-only methods through it.
    struct DevicePoly(Poly);

    /// A stand-in device: the CPU arithmetic behind polynomials of another type, counting
    /// the calls of each entry point.
    struct Device {
        ctx: Arc<RingContext>,
        mod_ups: AtomicUsize,
        inner_products: AtomicUsize,
        mod_downs: AtomicUsize,
        ntts: AtomicUsize,
    }

    impl Backend for Device {
        type Poly = DevicePoly;
        fn n(&self) -> usize {
            self.ctx.n()
        }
        fn alloc(&self, q_limbs: usize, p_limbs: usize, form: Form) -> DevicePoly {
            DevicePoly(Backend::alloc(&*self.ctx, q_limbs, p_limbs, form))
        }
        fn recycle(&self, p: DevicePoly) {
            Backend::recycle(&*self.ctx, p.0)
        }
        fn upload(&self, p: &Poly) -> DevicePoly {
            DevicePoly(p.clone())
        }
        fn download(&self, p: &DevicePoly) -> Poly {
            p.0.clone()
        }
        fn copy(&self, src: &DevicePoly, dst: &mut DevicePoly) {
            self.ctx.copy(&src.0, &mut dst.0)
        }
        fn forward_ntt(&self, p: &mut DevicePoly) {
            self.ntts.fetch_add(1, Relaxed);
            self.ctx.forward_ntt(&mut p.0)
        }
        fn inverse_ntt(&self, p: &mut DevicePoly) {
            self.ntts.fetch_add(1, Relaxed);
            self.ctx.inverse_ntt(&mut p.0)
        }
        fn add_assign(&self, a: &mut DevicePoly, b: &DevicePoly) {
            Backend::add_assign(&*self.ctx, &mut a.0, &b.0)
        }
        fn sub_assign(&self, a: &mut DevicePoly, b: &DevicePoly) {
            Backend::sub_assign(&*self.ctx, &mut a.0, &b.0)
        }
        fn mul_assign(&self, a: &mut DevicePoly, b: &DevicePoly) {
            Backend::mul_assign(&*self.ctx, &mut a.0, &b.0)
        }
        fn mul_add_assign(&self, acc: &mut DevicePoly, a: &DevicePoly, b: &DevicePoly) {
            Backend::mul_add_assign(&*self.ctx, &mut acc.0, &a.0, &b.0)
        }
        fn automorphism(&self, a: &DevicePoly, k: usize, out: &mut DevicePoly) {
            Backend::automorphism(&*self.ctx, &a.0, k, &mut out.0)
        }
        fn mod_up(
            &self,
            c: &DevicePoly,
            c_coeff: &DevicePoly,
            digit: Range<usize>,
            conv: &BaseConverter,
            out: &mut DevicePoly,
        ) {
            self.mod_ups.fetch_add(1, Relaxed);
            self.ctx.mod_up(&c.0, &c_coeff.0, digit, conv, &mut out.0)
        }
        fn inner_product(
            &self,
            digits: &[DevicePoly],
            key: &[[DevicePoly; 2]],
            acc: &mut [DevicePoly; 2],
            accumulate: bool,
        ) {
            self.inner_products.fetch_add(1, Relaxed);
            // Host views of the device polynomials (a real device runs its own kernel).
            let digits: Vec<Poly> = digits.iter().map(|d| d.0.clone()).collect();
            let key: Vec<[Poly; 2]> = key
                .iter()
                .map(|k| [k[0].0.clone(), k[1].0.clone()])
                .collect();
            let [a0, a1] = acc;
            let mut host = [a0.0.clone(), a1.0.clone()];
            self.ctx.inner_product(&digits, &key, &mut host, accumulate);
            let [h0, h1] = host;
            (a0.0, a1.0) = (h0, h1);
        }
        fn mod_down(&self, p: DevicePoly) -> DevicePoly {
            self.mod_downs.fetch_add(1, Relaxed);
            DevicePoly(self.ctx.mod_down(p.0))
        }
    }

    /// The hybrid engine's control flow runs on another backend's polynomials and gives
    /// the CPU engine's words: one ModUp per digit, one inner product per key, two
    /// ModDowns, at every level; hoisted use (two keys summed before one ModDown) too.
    #[test]
    fn hybrid_steps_run_on_any_backend_word_for_word() {
        let ctx = mixed_ring(1 << 10);
        let (mut rng, sk, s1) = rng_and_secrets(&ctx, 7);
        let s2 = SecretKey::generate(&ctx, SecretDistribution::Ternary, &mut rng).unwrap();
        let dev = Device {
            ctx: ctx.clone(),
            mod_ups: AtomicUsize::new(0),
            inner_products: AtomicUsize::new(0),
            mod_downs: AtomicUsize::new(0),
            ntts: AtomicUsize::new(0),
        };
        for dnum in [2usize, 3] {
            let ks = HybridKeySwitcher::new(ctx.clone(), dnum);
            let k1 = ks.generate_key(s1.ntt(), &sk, &mut rng);
            let k2 = ks.generate_key(s2.ntt(), &sk, &mut rng);
            let up = |k: &crate::rlwe::HybridKey| -> Vec<[DevicePoly; 2]> {
                k.digits
                    .iter()
                    .map(|[b, a]| [dev.upload(b), dev.upload(a)])
                    .collect()
            };
            let (d1, d2) = (up(&k1), up(&k2));
            for ql in 1..=ctx.q_len() {
                let c = random_ntt(&ctx, ql, &mut rng);
                // One key: `switch` against the three steps on the device.
                let want = ks.switch(&c, &k1);
                let before = dev.mod_ups.load(Relaxed);
                let digits = ks.decompose_on(&dev, &dev.upload(&c), ql);
                assert_eq!(dev.mod_ups.load(Relaxed) - before, ks.digits_at(ql));
                let mut acc = [0, 1].map(|_| dev.alloc(ql, ctx.p_len(), Form::Ntt));
                ks.multiply_on(&dev, &digits, &d1, &mut acc, false);
                let got = ks.mod_down_on(&dev, acc);
                assert_eq!(dev.download(&got[0]), want[0], "dnum {dnum} level {ql}");
                assert_eq!(dev.download(&got[1]), want[1], "dnum {dnum} level {ql}");
                // Two keys summed before one ModDown (hoisting's pattern).
                let d = ks.decompose(&c);
                let mut want2 = ks.multiply(&d, &k1, ql);
                ks.multiply_add(&d, &k2, &mut want2);
                let want2 = ks.mod_down(want2);
                let mut acc = [0, 1].map(|_| dev.alloc(ql, ctx.p_len(), Form::Ntt));
                ks.multiply_on(&dev, &digits, &d1, &mut acc, false);
                ks.multiply_on(&dev, &digits, &d2, &mut acc, true);
                let got2 = ks.mod_down_on(&dev, acc);
                assert_eq!(dev.download(&got2[0]), want2[0]);
                assert_eq!(dev.download(&got2[1]), want2[1]);
            }
        }
        assert!(dev.inner_products.load(Relaxed) > 0 && dev.mod_downs.load(Relaxed) > 0);
        assert!(dev.ntts.load(Relaxed) > 0);
    }

    /// The tiled inner product is the plain sum `Σ_j d_j k_j[h]` (128-bit products, one
    /// reduction per word) for every tile size: several tiles per limb, one, the default
    /// [`DIGIT_TILE`]; overwriting and accumulating; a level-aware key over more chain
    /// limbs than the accumulator (its special limbs met at `l' + t - l`).
    #[test]
    fn tiled_inner_products_match_the_plain_sums() {
        use rand::SeedableRng;
        let ctx = mixed_ring(1 << 10);
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
        let (ql, kl, k) = (3, 6, ctx.p_len());
        let beta = 3;
        let digits: Vec<Poly> = (0..beta)
            .map(|_| random_ntt_over(&ctx, ql, k, &mut rng))
            .collect();
        let key: Vec<[Poly; 2]> = (0..beta)
            .map(|_| [0, 1].map(|_| random_ntt_over(&ctx, kl, k, &mut rng)))
            .collect();
        let start = [0, 1].map(|_| random_ntt_over(&ctx, ql, k, &mut rng));
        for accumulate in [false, true] {
            let want: Vec<Vec<u64>> = (0..2)
                .map(|h| {
                    let mut w = Vec::new();
                    for t in 0..ql + k {
                        let q = ctx.modulus(t, ql).value();
                        for x in 0..ctx.n() {
                            let mut s = if accumulate {
                                start[h].limb(t)[x] as u128
                            } else {
                                0
                            };
                            for (d, kj) in digits.iter().zip(&key) {
                                s += d.limb(t)[x] as u128 * kj[h].limb_over(t, ql)[x] as u128;
                            }
                            w.push((s % q as u128) as u64);
                        }
                    }
                    w
                })
                .collect();
            for tile in [128, 512, 1 << 10, DIGIT_TILE] {
                let mut acc = start.clone();
                tiled_inner_product(&ctx, &digits, &key, &mut acc, accumulate, tile);
                for h in 0..2 {
                    assert_eq!(acc[h].data(), &want[h][..], "tile {tile}, half {h}");
                }
            }
        }
    }
}
