/* Modular arithmetic on 64-bit words, the mirror of hekate's math/modulus.rs: the same
 * Barrett constants (mu = floor(2^128 / q), low and high words), the same Shoup companions
 * (w' = floor(w 2^64 / q)) and the same lazy ranges, so every result equals the CPU's word
 * for word.
 *
 * The modulus table (HK_MOD_* offsets, HK_MOD_STRIDE words per modulus) is built by
 * DeviceRingContext (src/context.rs); limb `l` of a polynomial with `ql` chain limbs over a
 * context with `qmax` chain moduli uses modulus hk_mod_index(l, ql, qmax). */
#define HK_MOD_STRIDE 8u
#define HK_MOD_Q 0u
#define HK_MOD_MU_LO 1u
#define HK_MOD_MU_HI 2u
#define HK_MOD_N_INV 3u
#define HK_MOD_N_INV_S 4u
#define HK_MOD_INV_LAST 5u
#define HK_MOD_INV_LAST_S 6u

/* Chain limbs first, then the special primes (ring::Poly's layout). `qmax = 0` (no ring has
 * an empty chain) marks a batch: every limb is a polynomial of its own modulo the first
 * modulus (DevicePoly::batch, FHEW's accumulators). */
HK_INLINE u32 hk_mod_index(u32 limb, u32 ql, u32 qmax) {
    return qmax == 0 ? 0 : (limb < ql ? limb : qmax + (limb - ql));
}

/* x - c if x >= c, else x. */
HK_INLINE u64 hk_csub(u64 x, u64 c) { return x >= c ? x - c : x; }
HK_INLINE u64 hk_add(u64 a, u64 b, u64 q) { return hk_csub(a + b, q); }
HK_INLINE u64 hk_sub(u64 a, u64 b, u64 q) { return a >= b ? a - b : a + q - b; }
HK_INLINE u64 hk_neg(u64 a, u64 q) { return a == 0 ? 0 : q - a; }

/* x w mod q in [0, 2q) for any word x (Modulus::mul_shoup_lazy). */
HK_INLINE u64 hk_mul_shoup_lazy(u64 x, u64 w, u64 ws, u64 q) { return x * w - hk_mulhi(x, ws) * q; }
HK_INLINE u64 hk_mul_shoup(u64 x, u64 w, u64 ws, u64 q) { return hk_csub(hk_mul_shoup_lazy(x, w, ws, q), q); }

/* (x1:x0) mod q (Modulus::reduce_u128): the high 128 bits of x mu, dropping the lowest
 * partial product's low word; the estimate is at most 2 below the quotient. */
HK_INLINE u64 hk_reduce_u128(u64 x0, u64 x1, u64 q, u64 m0, u64 m1) {
    u64 carry = hk_mulhi(x0, m0);
    u64 t_lo = x0 * m1, t_hi = hk_mulhi(x0, m1);
    t_lo += carry;
    t_hi += (u64)(t_lo < carry);
    u64 u_lo = x1 * m0, u_hi = hk_mulhi(x1, m0);
    u_lo += t_lo;
    u_hi += (u64)(u_lo < t_lo);
    u64 est = x1 * m1 + t_hi + u_hi;
    u64 r = x0 - est * q;
    r = hk_csub(r, q);
    return hk_csub(r, q);
}

/* (hi:lo) += x y: a 128-bit running sum of products, reduced once at the end
 * (kernels::inner_product, the base conversions' output sums). */
#define HK_MAC128(lo, hi, x, y) \
    { \
        u64 p_lo_ = (x) * (y), p_hi_ = hk_mulhi((x), (y)); \
        (lo) += p_lo_; \
        (hi) += p_hi_ + (u64)((lo) < p_lo_); \
    }

/* a b mod q (Modulus::mul). */
HK_INLINE u64 hk_mul(u64 a, u64 b, u64 q, u64 m0, u64 m1) { return hk_reduce_u128(a * b, hk_mulhi(a, b), q, m0, m1); }

/* (acc + a b) mod q with the sum in 128 bits (kernels::mul_add_assign). */
HK_INLINE u64 hk_mul_add(u64 acc, u64 a, u64 b, u64 q, u64 m0, u64 m1) {
    u64 lo = a * b, hi = hk_mulhi(a, b);
    lo += acc;
    hi += (u64)(lo < acc);
    return hk_reduce_u128(lo, hi, q, m0, m1);
}
