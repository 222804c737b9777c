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

/* One signed base-2^lb digit of x (two's complement, centred), lifted to [0, Q); x becomes
 * the rest (rlwe::gsw's decompose_portable step). */
HK_INLINE u64 hk_fhew_next_digit(u64 *x, u64 mask, u64 hb, u32 lb, u64 q) {
    u64 r = *x & mask;
    u64 s = r - ((r & hb) << 1);
    *x = hk_sar(*x - s, lb);
    return s + ((s >> 63) ? q : 0);
}

/* The GINX update of one accumulator coefficient a at index j (blindrotate.rs
 * add_monomial_times): x is t[j - shift] (j >= shift) or t[j + n - shift] (below), tj is
 * t[j]; the sign of x flips when k >= n. */
HK_INLINE u64 hk_fhew_ginx(u64 a, u64 x, u64 tj, u32 below, u32 flip, u64 q) {
    a = (flip != below) ? hk_sub(a, x, q) : hk_add(a, x, q);
    return hk_sub(a, tj, q);
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
    for (u32 i = 0; i + 1 < d; i++) out[(u64)i * n] = hk_fhew_next_digit(&x, mask, hb, lb, q);
    out[(u64)(d - 1) * n] = x + ((x >> 63) ? q : 0);
}

/* sum_{j < terms} dg[j n] kp[j n] mod Q, summed in 128 bits and reduced once
 * (kernels::inner_product). */
HK_INLINE u64 hk_fhew_dot(HK_GLOBAL const u64 *dg, HK_GLOBAL const u64 *kp, u32 terms, u32 n,
                          HK_GLOBAL const u64 *mods) {
    u64 lo = 0, hi = 0;
    for (u32 j = 0; j < terms; j++) {
        HK_MAC128(lo, hi, dg[(u64)j * n], kp[(u64)j * n]);
    }
    return hk_reduce_u128(lo, hi, mods[HK_MOD_Q], mods[HK_MOD_MU_LO], mods[HK_MOD_MU_HI]);
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
    t[(u64)p * n + k] = hk_fhew_dot(dg, kp, 2 * d, n, mods);
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
    u64 kk = expo[off + e];
    u32 flip = kk >= n;
    u32 shift = (u32)(flip ? kk - n : kk), below = j < shift;
    u64 x = t[at + (below ? j + n - shift : j - shift)];
    acc[at + j] = hk_fhew_ginx(acc[at + j], x, t[at + j], below, flip, mods[HK_MOD_Q]);
}

/* Digit i of the signed base-2^lb decomposition of c (hk_fhew_decompose's, for one digit),
 * in [0, Q). */
HK_INLINE u64 hk_fhew_digit(u64 c, u32 i, u32 lb, u32 d, u64 q) {
    u64 x = c > q / 2 ? c - q : c;
    u64 mask = ((u64)1 << lb) - 1, hb = (u64)1 << (lb - 1);
    for (u32 k = 0; k + 1 < d; k++) {
        u64 digit = hk_fhew_next_digit(&x, mask, hb, lb, q);
        if (k == i) return digit;
    }
    return x + ((x >> 63) ? q : 0);
}

/* One accumulator coefficient after a step (hk_fhew_update's, for coefficient j of the
 * half at `o`, the step's product in coefficient form): AP takes the product, GINX adds
 * (X^k - 1) t. */
HK_INLINE u64 hk_fhew_step(u64 a, HK_LOCAL_PTR const u64 *o, u32 j, u32 n, u32 ginx, u64 kk, u64 q) {
    if (!ginx) return o[j];
    u32 flip = kk >= n;
    u32 shift = (u32)(flip ? kk - n : kk), below = j < shift;
    return hk_fhew_ginx(a, o[below ? j + n - shift : j - shift], o[j], below, flip, q);
}

/* The gadget products of one step of a fused rotation, for the work-group of one batch
 * element (N/2 work-items; item i holds coefficients i and i + N/2 of each half: a0, a1 of
 * the accumulator's a, b0, b1 of its b): for each of the `terms` digits (j < d: digit j of
 * a; d <= j < 2d: digit j - d of b), its value for every coefficient, the forward NTT
 * (reduced), and the products with the key's polynomials j (output half a) and terms + j
 * (half b) accumulated one reduction at a time (hk_mul_add: the same residues as one
 * 128-bit sum); then the inverse NTT (reduced) of both halves, left in `out`. `terms` is 2d
 * for an RGSW key (zm.a, m.a, zm.b, m.b) and d for an RLWE' key (a, b). `tw` holds the
 * modulus's four twiddle rows. */
HK_INLINE void hk_fhew_products(HK_LOCAL_PTR u64 *dig, HK_LOCAL_PTR u64 *out,
                                HK_GLOBAL const u64 *key, u32 terms, u32 lb, u32 d, u64 a0,
                                u64 a1, u64 b0, u64 b1, HK_GLOBAL const u64 *tw,
                                HK_GLOBAL const u64 *mods, u32 n) {
    u32 lid = HK_LID_X, hn = n >> 1;
    u64 q = mods[HK_MOD_Q], m0 = mods[HK_MOD_MU_LO], m1 = mods[HK_MOD_MU_HI];
    HK_GLOBAL const u64 *wf = tw, *wfs = tw + n, *wi = tw + 2 * (u64)n, *wis = tw + 3 * (u64)n;
    for (u32 j = 0; j < terms; j++) {
        u32 h = j >= d, i = h ? j - d : j;
        dig[lid] = hk_fhew_digit(h ? b0 : a0, i, lb, d, q);
        dig[lid + hn] = hk_fhew_digit(h ? b1 : a1, i, lb, d, q);
        HK_BARRIER();
        hk_tile_fwd_stages(dig, wf, wfs, n, n, 0, q);
        u64 x0 = dig[2 * lid], x1 = dig[2 * lid + 1];
        hk_fwd_last(&x0, &x1, wf[hn + lid], wfs[hn + lid], q, 1);
        dig[2 * lid] = x0;
        dig[2 * lid + 1] = x1;
        HK_BARRIER();
        HK_GLOBAL const u64 *ka = key + (u64)j * n;
        HK_GLOBAL const u64 *kb = key + (u64)(terms + j) * n;
        for (u32 c = 0; c < 2; c++) {
            u32 k = lid + c * hn;
            u64 x = dig[k];
            out[k] = j ? hk_mul_add(out[k], x, ka[k], q, m0, m1) : hk_mul(x, ka[k], q, m0, m1);
            out[n + k] = j ? hk_mul_add(out[n + k], x, kb[k], q, m0, m1) : hk_mul(x, kb[k], q, m0, m1);
        }
        HK_BARRIER();
    }
    hk_tile_inv_stages(out, wi, wis, mods, n, n, 0, q, 1);
    hk_tile_inv_stages(out + n, wi, wis, mods, n, n, 0, q, 1);
}

/* The whole blind rotation of batch element e = group x, in one launch for the batch
 * (N <= HK_FHEW_N_MAX, N/2 work-items): the same steps as the launches above, with the
 * accumulator in registers (item i holds coefficients i and i + N/2 of both halves), and
 * one digit and the two products in local memory; only the keys stream from global memory.
 * Per step, the RGSW products (hk_fhew_products) and the update. `sched` holds
 * (log2 B_g, d) per step. */
HK_KERNEL hk_fhew_rotate(HK_GLOBAL u64 *acc, HK_GLOBAL const u64 *keys, HK_GLOBAL const u64 *index,
                         HK_GLOBAL const u64 *expo, HK_GLOBAL const u64 *sched, u32 steps,
                         u32 batch, u32 ginx, HK_GLOBAL const u64 *tw,
                         HK_GLOBAL const u64 *mods, u32 n) {
    HK_LOCAL u64 dig[HK_FHEW_N_MAX];
    HK_LOCAL u64 out[2 * HK_FHEW_N_MAX];
    u32 e = HK_GRP_X, lid = HK_LID_X, hn = n >> 1;
    u64 q = mods[HK_MOD_Q];
    HK_GLOBAL u64 *ae = acc + (u64)2 * e * n;
    /* r<h><c>: coefficient lid + c N/2 of half h. */
    u64 r00 = ae[lid], r01 = ae[lid + hn], r10 = ae[n + lid], r11 = ae[n + lid + hn];
    for (u32 s = 0; s < steps; s++) {
        u64 key = index[(u64)s * batch + e];
        if (key == HK_NO_KEY) continue; /* the same for the whole group */
        u32 lb = (u32)sched[2 * s], d = (u32)sched[2 * s + 1];
        hk_fhew_products(dig, out, keys + key, 2 * d, lb, d, r00, r01, r10, r11, tw, mods, n);
        u64 kk = ginx ? expo[(u64)s * batch + e] : 0;
        r00 = hk_fhew_step(r00, out, lid, n, ginx, kk, q);
        r01 = hk_fhew_step(r01, out, lid + hn, n, ginx, kk, q);
        r10 = hk_fhew_step(r10, out + n, lid, n, ginx, kk, q);
        r11 = hk_fhew_step(r11, out + n, lid + hn, n, ginx, kk, q);
        HK_BARRIER();
    }
    ae[lid] = r00;
    ae[lid + hn] = r01;
    ae[n + lid] = r10;
    ae[n + lid + hn] = r11;
}

/* Coefficient k of p(X^t) for the coefficient-form p at `src` and t^-1 mod 2N = `tinv`:
 * p_j for j = k t^-1 mod 2N below N, -p_(j - N) above (ring::automorphism_coeff, gathered). */
HK_INLINE u64 hk_fhew_auto(HK_LOCAL_PTR const u64 *src, u32 k, u32 tinv, u32 n, u64 q) {
    u32 j = (k * tinv) & (2 * n - 1);
    return j < n ? src[j] : hk_neg(src[j - n], q);
}

/* The automorphism-based rotation (LMKCDEY, seed 002 Alg. 3-5) of batch element e = group
 * x, fused like hk_fhew_rotate, on coefficient-form accumulators: each element runs its own
 * list of operations (hekate's AutoScheduler::schedule, flattened), row s of `index` /
 * `info` holding operation s of every element:
 * * an RGSW product (info's high word 0): acc = acc ⊗ RGSW (2d terms, hk_fhew_products);
 * * an automorphism key ak_t (info's high word t^-1 mod 2N): acc = (a', b') = acc(X^t),
 *   then acc = (a' ⊙ RLWE'(z(X^t)).a, a' ⊙ RLWE'.b + b') (d terms): AutoKey::eval_auto on
 *   the coefficient forms, the same residues;
 * * nothing (index HK_NO_KEY: the element's list is shorter).
 * info's low word holds log2 B_g (bits 0-7) and d (bits 8-15) of the key's gadget. */
HK_KERNEL hk_fhew_rotate_auto(HK_GLOBAL u64 *acc, HK_GLOBAL const u64 *keys,
                              HK_GLOBAL const u64 *index, HK_GLOBAL const u64 *info, u32 steps,
                              u32 batch, HK_GLOBAL const u64 *tw, HK_GLOBAL const u64 *mods,
                              u32 n) {
    HK_LOCAL u64 dig[HK_FHEW_N_MAX];
    HK_LOCAL u64 out[2 * HK_FHEW_N_MAX];
    u32 e = HK_GRP_X, lid = HK_LID_X, hn = n >> 1;
    u64 q = mods[HK_MOD_Q];
    HK_GLOBAL u64 *ae = acc + (u64)2 * e * n;
    u64 r00 = ae[lid], r01 = ae[lid + hn], r10 = ae[n + lid], r11 = ae[n + lid + hn];
    for (u32 s = 0; s < steps; s++) {
        u64 key = index[(u64)s * batch + e];
        if (key == HK_NO_KEY) continue; /* the same for the whole group */
        u64 inf = info[(u64)s * batch + e];
        u32 lb = (u32)(inf & 0xff), d = (u32)((inf >> 8) & 0xff), tinv = (u32)(inf >> 32);
        u32 terms = 2 * d;
        u64 c0 = 0, c1 = 0; /* b' of an automorphism, added to the output's b */
        if (tinv) {
            out[lid] = r00;
            out[lid + hn] = r01;
            out[n + lid] = r10;
            out[n + lid + hn] = r11;
            HK_BARRIER();
            r00 = hk_fhew_auto(out, lid, tinv, n, q);
            r01 = hk_fhew_auto(out, lid + hn, tinv, n, q);
            c0 = hk_fhew_auto(out + n, lid, tinv, n, q);
            c1 = hk_fhew_auto(out + n, lid + hn, tinv, n, q);
            HK_BARRIER();
            terms = d;
        }
        hk_fhew_products(dig, out, keys + key, terms, lb, d, r00, r01, r10, r11, tw, mods, n);
        r00 = out[lid];
        r01 = out[lid + hn];
        r10 = hk_add(out[n + lid], c0, q);
        r11 = hk_add(out[n + lid + hn], c1, q);
        HK_BARRIER();
    }
    ae[lid] = r00;
    ae[lid + hn] = r01;
    ae[n + lid] = r10;
    ae[n + lid + hn] = r11;
}

/* LMKCDEY in launches per row (any N; hk_fhew_rotate_auto's operations, row `off / B` of
 * `index` / `info`, one launch of each kernel per row over the whole batch). Elements
 * without an operation this row (HK_NO_KEY) are left alone. Every kernel takes (index, info,
 * off, mods, n, dmax) after its buffers. Grid x: coefficients, y: the 2B polynomials. */

/* Step 1: tmp = acc(X^t) for an automorphism key (both halves: a' to decompose, b' to add
 * at the end); nothing for an RGSW product (its digits are read from acc). */
HK_KERNEL hk_fhew_auto_permute(HK_GLOBAL u64 *tmp, HK_GLOBAL const u64 *acc,
                               HK_GLOBAL const u64 *index, HK_GLOBAL const u64 *info, u32 off,
                               HK_GLOBAL const u64 *mods, u32 n, u32 dmax) {
    u32 k = HK_GID_X, p = HK_GID_Y, e = p >> 1;
    if (k >= n || index[off + e] == HK_NO_KEY) return;
    u32 tinv = (u32)(info[off + e] >> 32);
    if (!tinv) return;
    HK_GLOBAL const u64 *src = acc + (u64)p * n;
    u32 j = (k * tinv) & (2 * n - 1);
    tmp[(u64)p * n + k] = j < n ? src[j] : hk_neg(src[j - n], mods[HK_MOD_Q]);
}

/* Step 2: the signed digits with the element's gadget (info bits 0-7: log2 B_g, 8-15: d) of
 * acc (an RGSW product) or of tmp's a' (an automorphism): element e's digits start at
 * polynomial 2 dmax e, a's d digits then b's. */
HK_KERNEL hk_fhew_decompose_ops(HK_GLOBAL u64 *digits, HK_GLOBAL const u64 *tmp,
                                HK_GLOBAL const u64 *acc, HK_GLOBAL const u64 *index,
                                HK_GLOBAL const u64 *info, u32 off, HK_GLOBAL const u64 *mods,
                                u32 n, u32 dmax) {
    u32 k = HK_GID_X, p = HK_GID_Y, e = p >> 1, h = p & 1;
    if (k >= n || index[off + e] == HK_NO_KEY) return;
    u64 inf = info[off + e];
    u32 lb = (u32)(inf & 0xff), d = (u32)((inf >> 8) & 0xff);
    u32 autom = (inf >> 32) != 0;
    if (h && autom) return;
    u64 q = mods[HK_MOD_Q];
    u64 c = (autom ? tmp : acc)[(u64)p * n + k];
    u64 x = c > q / 2 ? c - q : c;
    u64 mask = ((u64)1 << lb) - 1, hb = (u64)1 << (lb - 1);
    HK_GLOBAL u64 *out = digits + ((u64)e * 2 * dmax + (u64)h * d) * n + k;
    for (u32 i = 0; i + 1 < d; i++) out[(u64)i * n] = hk_fhew_next_digit(&x, mask, hb, lb, q);
    out[(u64)(d - 1) * n] = x + ((x >> 63) ? q : 0);
}

/* Step 4 (after the forward NTT of the digits): half h of element e's product, the `terms`
 * digits (2d for an RGSW key, d for an automorphism key) against the key's polynomials
 * terms h + j. */
HK_KERNEL hk_fhew_product_ops(HK_GLOBAL u64 *t, HK_GLOBAL const u64 *digits,
                              HK_GLOBAL const u64 *keys, HK_GLOBAL const u64 *index,
                              HK_GLOBAL const u64 *info, u32 off, HK_GLOBAL const u64 *mods,
                              u32 n, u32 dmax) {
    u32 k = HK_GID_X, p = HK_GID_Y, e = p >> 1, h = p & 1;
    if (k >= n) return;
    u64 key = index[off + e];
    if (key == HK_NO_KEY) return;
    u64 inf = info[off + e];
    u32 d = (u32)((inf >> 8) & 0xff), terms = (inf >> 32) ? d : 2 * d;
    HK_GLOBAL const u64 *dg = digits + (u64)e * 2 * dmax * n + k;
    HK_GLOBAL const u64 *kp = keys + key + (u64)terms * h * n + k;
    t[(u64)p * n + k] = hk_fhew_dot(dg, kp, terms, n, mods);
}

/* Step 6 (after the inverse NTT of the products): acc = t, plus b' = tmp's b for an
 * automorphism key. */
HK_KERNEL hk_fhew_update_ops(HK_GLOBAL u64 *acc, HK_GLOBAL const u64 *t,
                             HK_GLOBAL const u64 *tmp, HK_GLOBAL const u64 *index,
                             HK_GLOBAL const u64 *info, u32 off, HK_GLOBAL const u64 *mods,
                             u32 n, u32 dmax) {
    u32 k = HK_GID_X, p = HK_GID_Y, e = p >> 1, h = p & 1;
    if (k >= n || index[off + e] == HK_NO_KEY) return;
    u64 at = (u64)p * n + k, v = t[at];
    if (h && (info[off + e] >> 32)) v = hk_add(v, tmp[at], mods[HK_MOD_Q]);
    acc[at] = v;
}
