/* FHEW blind rotation (seed 002, AP Alg. 1 and GINX Alg. 2) over a batch of B accumulators
 * modulo one prime Q (the FhewContext's ring, modulus 0 of `mods`): the mirror of hekate's
 * fhew/blindrotate.rs with the NTT products (RotationArithmetic::Ntt), step for step.
 *
 * Layouts, polynomials of n words side by side:
 * * accumulators and products: polynomial 2e + h is half h (0: a, 1: b) of batch element e;
 * * digits: polynomial 2 d e + j of element e is digit j of the gadget decomposition of its
 *   a (j < d) or of its b (digit j - d), in [0, Q) (rlwe::gsw::Gadget::decompose);
 * * keys: RGSW key k at word offset off_k holds 4 d_k polynomials (NTT form):
 *   zm.a[0..d], m.a[0..d], zm.b[0..d], m.b[0..d], so that half h's inner product meets the
 *   2 d terms at off_k + 2 d h n (Rgsw::external_product_into's order);
 * * per step, `index[off + e]` is the word offset of element e's key, or HK_NO_KEY where the
 *   step leaves the element's accumulator alone (an AP digit of 0, a GINX exponent of 0),
 *   and `expo[off + e]` GINX's monomial exponent in [1, 2n). */

#define HK_NO_KEY (~(u64)0)

/* Arithmetic shift right of a two's complement word. */
HK_INLINE u64 hk_sar(u64 v, u32 s) {
    u64 m = (u64)0 - (v >> 63);
    return ((v ^ m) >> s) ^ m;
}

/* The signed base-2^lb digits of the accumulators (Gadget::decompose, portable twin): the
 * centred value, then d - 1 signed digits in [-B/2, B/2), then the rest, each lifted to
 * [0, Q). Grid x: coefficients, y: the 2B polynomials. */
HK_KERNEL hk_fhew_decompose(HK_GLOBAL u64 *digits, HK_GLOBAL const u64 *acc,
                            HK_GLOBAL const u64 *mods, u32 n, u32 lb, u32 d) {
    u32 k = HK_GID_X, p = HK_GID_Y;
    if (k >= n) return;
    u64 q = mods[HK_MOD_Q];
    u64 c = acc[(u64)p * n + k];
    u64 x = c > q / 2 ? c - q : c;
    u64 mask = ((u64)1 << lb) - 1, hb = (u64)1 << (lb - 1);
    HK_GLOBAL u64 *out = digits + ((u64)(p >> 1) * 2 * d + (u64)(p & 1) * d) * n + k;
    for (u32 i = 0; i + 1 < d; i++) {
        u64 r = x & mask;
        u64 s = r - ((r & hb) << 1);
        x = hk_sar(x - s, lb);
        out[(u64)i * n] = s + ((s >> 63) ? q : 0);
    }
    out[(u64)(d - 1) * n] = x + ((x >> 63) ? q : 0);
}

/* The external products (NTT form): half h of element e is
 *   t[2e + h] = sum_{j < 2d} digit_{e, j} key_{e}[2 d h + j]
 * summed in 128 bits and reduced once (kernels::inner_product). Elements without a key this
 * step are left alone. Grid x: coefficients, y: the 2B polynomials. */
HK_KERNEL hk_fhew_product(HK_GLOBAL u64 *t, HK_GLOBAL const u64 *digits, HK_GLOBAL const u64 *keys,
                          HK_GLOBAL const u64 *index, u32 off,
                          HK_GLOBAL const u64 *mods, u32 n, u32 d) {
    u32 k = HK_GID_X, p = HK_GID_Y;
    if (k >= n) return;
    u32 e = p >> 1, h = p & 1;
    u64 key = index[off + e];
    if (key == HK_NO_KEY) return;
    HK_GLOBAL const u64 *dg = digits + (u64)e * 2 * d * n + k;
    HK_GLOBAL const u64 *kp = keys + key + (u64)2 * d * h * n + k;
    u64 lo = 0, hi = 0;
    for (u32 j = 0; j < 2 * d; j++) {
        u64 x = dg[(u64)j * n], y = kp[(u64)j * n];
        u64 p_lo = x * y, p_hi = hk_mulhi(x, y);
        lo += p_lo;
        hi += p_hi + (u64)(lo < p_lo);
    }
    t[(u64)p * n + k] = hk_reduce_u128(lo, hi, mods[HK_MOD_Q], mods[HK_MOD_MU_LO], mods[HK_MOD_MU_HI]);
}

/* The accumulators after a step's products t (coefficient form): AP replaces the
 * accumulator by the product; GINX adds (X^k - 1) t (blindrotate.rs add_monomial_times:
 * coefficient j of X^k t is t[j - k] for k <= j < n, -t[j - k + n] below, both negated when
 * k >= n). Elements without a key this step are left alone. Grid x: coefficients, y: the 2B
 * polynomials. */
HK_KERNEL hk_fhew_update(HK_GLOBAL u64 *acc, HK_GLOBAL const u64 *t, HK_GLOBAL const u64 *index,
                         HK_GLOBAL const u64 *expo, u32 off, HK_GLOBAL const u64 *mods, u32 n, u32 ginx) {
    u32 j = HK_GID_X, p = HK_GID_Y;
    if (j >= n) return;
    u32 e = p >> 1;
    if (index[off + e] == HK_NO_KEY) return;
    u64 at = (u64)p * n;
    if (!ginx) {
        acc[at + j] = t[at + j];
        return;
    }
    u64 q = mods[HK_MOD_Q];
    u64 kk = expo[off + e];
    u32 flip = kk >= n;
    u32 shift = (u32)(flip ? kk - n : kk);
    u64 a = acc[at + j];
    if (j >= shift) {
        u64 x = t[at + j - shift];
        a = flip ? hk_sub(a, x, q) : hk_add(a, x, q);
    } else {
        u64 x = t[at + j + n - shift];
        a = flip ? hk_add(a, x, q) : hk_sub(a, x, q);
    }
    acc[at + j] = hk_sub(a, t[at + j], q);
}
