/* Exact fast base conversion Conv_{C -> B}, the mirror of hekate's
 * math/rns/convert.rs (BaseConverter, ConvTables): for x given by its residues x_i modulo
 * the l primes q_i of C,
 *   y_i = [x_i q_hat_inv_i]_{q_i}                      (Shoup)
 *   v   = round(sum_i y_i (1 / q_i))                    (f64, mul then add, in order, unfused)
 *   out_j = [neg_vq[j (l+1) + v] + sum_i y_i q_hat_mod_p[j l + i]]_{p_j}  (128-bit sum, one reduction)
 * In two kernels, as the CPU's blocks: hk_bconv_yv writes the l rows of y and the row of v
 * into a scratch of (l + 1) n words (grid x over coefficients); hk_bconv_out writes the
 * output limbs (grid x over coefficients, y over the `count` targets j0 .. j0 + count, written
 * to limbs out_first .. of `out`): the KLSS engine's conversions, which reuse one scratch for
 * several outputs. Without a scratch, in one launch (each output word
 * computing the first step itself, hk_bconv_direct_word): hk_bconv_direct (ModDown's
 * conversion, of a key switch's two halves at once) and hk_bconv_mod_up_out (every limb of
 * ModUp's output).
 *
 * Tables: `from`, 4 words per input prime: q_i, q_hat_inv_i, its companion, 1/q_i as f64
 * bits; `to`, 4 words per target: p_j, Barrett mu low and high words, 0. */

HK_KERNEL hk_bconv_yv(HK_GLOBAL u64 *scratch, HK_GLOBAL const u64 *in,
                      HK_GLOBAL const u64 *from, u32 n, u32 l, u32 in_first, u32 exact) {
    u32 k = HK_GID_X;
    if (k >= n) return;
    double acc = 0.0;
    for (u32 i = 0; i < l; i++) {
        HK_GLOBAL const u64 *f = from + 4 * i;
        u64 y = hk_mul_shoup(in[(u64)(in_first + i) * n + k], f[1], f[2], f[0]);
        scratch[(u64)i * n + k] = y;
        acc = HK_DADD(acc, HK_DMUL(HK_U64_TO_F64(y), HK_F64_FROM_BITS(f[3])));
    }
    scratch[(u64)l * n + k] = exact ? (u64)HK_ROUND(acc) : 0;
}

/* Output word k of target j from a hk_bconv_yv scratch. */
HK_INLINE u64 hk_bconv_word(HK_GLOBAL const u64 *scratch, HK_GLOBAL const u64 *to,
                            HK_GLOBAL const u64 *q_hat_mod_p, HK_GLOBAL const u64 *neg_vq,
                            u32 n, u32 l, u32 j, u32 k, u32 exact) {
    HK_GLOBAL const u64 *t = to + 4 * j;
    HK_GLOBAL const u64 *row = q_hat_mod_p + (u64)j * l;
    u64 lo = exact ? neg_vq[(u64)j * (l + 1) + scratch[(u64)l * n + k]] : 0, hi = 0;
    for (u32 i = 0; i < l; i++) HK_MAC128(lo, hi, scratch[(u64)i * n + k], row[i]);
    return hk_reduce_u128(lo, hi, t[0], t[1], t[2]);
}

HK_KERNEL hk_bconv_out(HK_GLOBAL u64 *out, HK_GLOBAL const u64 *scratch,
                       HK_GLOBAL const u64 *to, HK_GLOBAL const u64 *q_hat_mod_p,
                       HK_GLOBAL const u64 *neg_vq, u32 n, u32 l, u32 j0, u32 out_first,
                       u32 exact) {
    u32 k = HK_GID_X;
    if (k >= n) return;
    u32 y = HK_GRP_Y;
    out[(u64)(out_first + y) * n + k] =
        hk_bconv_word(scratch, to, q_hat_mod_p, neg_vq, n, l, j0 + y, k, exact);
}

/* Output word k of target j straight from the input limbs in_first .. in_first + l of `in`
 * (no scratch): the same words as hk_bconv_yv then hk_bconv_word (the same Shoup products,
 * the same f64 sum in the same order, the same 128-bit total, the v term added last instead
 * of first, which an exact sum does not see), at the price of l Shoup and l f64 products
 * more per output word, on input words the sum reads anyway. */
HK_INLINE u64 hk_bconv_direct_word(HK_GLOBAL const u64 *in, HK_GLOBAL const u64 *from,
                                   HK_GLOBAL const u64 *to, HK_GLOBAL const u64 *q_hat_mod_p,
                                   HK_GLOBAL const u64 *neg_vq, u32 n, u32 l, u32 in_first,
                                   u32 j, u32 k) {
    HK_GLOBAL const u64 *t = to + 4 * j;
    HK_GLOBAL const u64 *row = q_hat_mod_p + (u64)j * l;
    double acc = 0.0;
    u64 lo = 0, hi = 0;
    for (u32 i = 0; i < l; i++) {
        HK_GLOBAL const u64 *f = from + 4 * i;
        u64 y = hk_mul_shoup(in[(u64)(in_first + i) * n + k], f[1], f[2], f[0]);
        acc = HK_DADD(acc, HK_DMUL(HK_U64_TO_F64(y), HK_F64_FROM_BITS(f[3])));
        HK_MAC128(lo, hi, y, row[i]);
    }
    u64 v = neg_vq[(u64)j * (l + 1) + (u64)HK_ROUND(acc)];
    lo += v;
    hi += (u64)(lo < v);
    return hk_reduce_u128(lo, hi, t[0], t[1], t[2]);
}

/* ModUp of the digit `start .. end` of a polynomial over ql chain limbs into `out` over
 * ql + kp limbs (grid y over all of them), the hybrid key switch's layout: the digit's own
 * limbs copied from `c` (NTT form), every other limb converted from `cc` (the same
 * polynomial in coefficient form), the converter's targets being P (limbs ql ..), then the
 * chain below the digit (limbs 0 .. start), then above it (limbs end .. ql), one launch per
 * digit without a scratch (hk_bconv_direct_word). The converted limbs are in coefficient
 * form: the caller transforms them (hk_ntt_* skipping the digit). */
HK_KERNEL hk_bconv_mod_up_out(HK_GLOBAL u64 *out, HK_GLOBAL const u64 *c,
                              HK_GLOBAL const u64 *cc, HK_GLOBAL const u64 *from,
                              HK_GLOBAL const u64 *to, HK_GLOBAL const u64 *q_hat_mod_p,
                              HK_GLOBAL const u64 *neg_vq, u32 n, u32 l, u32 ql, u32 kp,
                              u32 start, u32 end) {
    u32 k = HK_GID_X;
    if (k >= n) return;
    u32 o = HK_GRP_Y;
    HK_GLOBAL u64 *dst = out + (u64)o * n + k;
    if (o >= start && o < end) {
        *dst = c[(u64)o * n + k];
        return;
    }
    u32 j = o >= ql ? o - ql : (o < start ? kp + o : kp + o - (end - start));
    *dst = hk_bconv_direct_word(cc, from, to, q_hat_mod_p, neg_vq, n, l, start, j, k);
}

/* hk_bconv_yv then hk_bconv_out (exact) in one launch, without a scratch: the targets
 * 0 .. count (grid y) written to limbs 0 .. count of `out`, from the input limbs
 * in_first .. in_first + l of `in` (coefficient form, reduced); a pair as hk_bconv_out (grid
 * y rows from `per` on read `in1` and write `out1`). ModDown's conversion. */
HK_KERNEL hk_bconv_direct(HK_GLOBAL u64 *out, HK_GLOBAL u64 *out1, HK_GLOBAL const u64 *in,
                          HK_GLOBAL const u64 *in1, u32 per, HK_GLOBAL const u64 *from,
                          HK_GLOBAL const u64 *to, HK_GLOBAL const u64 *q_hat_mod_p,
                          HK_GLOBAL const u64 *neg_vq, u32 n, u32 l, u32 in_first) {
    u32 k = HK_GID_X;
    if (k >= n) return;
    u32 y = HK_GRP_Y;
    if (y >= per) {
        y -= per;
        out = out1;
        in = in1;
    }
    out[(u64)y * n + k] =
        hk_bconv_direct_word(in, from, to, q_hat_mod_p, neg_vq, n, l, in_first, y, k);
}
