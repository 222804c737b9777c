/* Coefficient-wise kernels over limb-major polynomials (word k of limb l at l n + k), the
 * mirrors of hekate's math/kernels (scalar twins): grid x over the n coefficients, y over
 * the limbs. Arguments common to all: the modulus table `mods`, the degree `n`, the chain
 * limbs `ql` of the operands and the chain length `qmax` of the context (hk_mod_index). */

#define HK_ELEMENT_PROLOGUE \
    u32 k = HK_GID_X, l = HK_GID_Y; \
    if (k >= n) return; \
    u64 at = (u64)l * n + k; \
    HK_GLOBAL const u64 *md = mods + HK_MOD_STRIDE * hk_mod_index(l, ql, qmax); \
    u64 q = md[HK_MOD_Q];

/* A pair of polynomials of the same shape in one launch (a ciphertext's two parts): grid y
 * counts `per` limbs of the first operands, then as many of the second (`*1`, chosen by
 * HK_PICK); one polynomial passes each buffer twice and `per` = 0xFFFFFFFF. Shared tables
 * follow `per`. */
#define HK_PAIR_PROLOGUE \
    u32 k = HK_GID_X, l = HK_GID_Y; \
    if (k >= n) return; \
    u32 second = l >= per; \
    if (second) l -= per; \
    u64 at = (u64)l * n + k; \
    HK_GLOBAL const u64 *md = mods + HK_MOD_STRIDE * hk_mod_index(l, ql, qmax); \
    u64 q = md[HK_MOD_Q];
#define HK_PICK(x) if (second) x = x##1

/* out = a + b (a pair). */
HK_KERNEL hk_add_kernel(HK_GLOBAL u64 *out, HK_GLOBAL u64 *out1, HK_GLOBAL const u64 *a,
                        HK_GLOBAL const u64 *a1, HK_GLOBAL const u64 *b, HK_GLOBAL const u64 *b1,
                        u32 per, HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_PAIR_PROLOGUE
    HK_PICK(out);
    HK_PICK(a);
    HK_PICK(b);
    out[at] = hk_add(a[at], b[at], q);
}

/* out = a - b (a pair). */
HK_KERNEL hk_sub_kernel(HK_GLOBAL u64 *out, HK_GLOBAL u64 *out1, HK_GLOBAL const u64 *a,
                        HK_GLOBAL const u64 *a1, HK_GLOBAL const u64 *b, HK_GLOBAL const u64 *b1,
                        u32 per, HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_PAIR_PROLOGUE
    HK_PICK(out);
    HK_PICK(a);
    HK_PICK(b);
    out[at] = hk_sub(a[at], b[at], q);
}

/* out = -a. */
HK_KERNEL hk_neg_kernel(HK_GLOBAL u64 *out, HK_GLOBAL const u64 *a,
                        HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_ELEMENT_PROLOGUE
    out[at] = hk_neg(a[at], q);
}

/* out = a b (the ring product in NTT form). */
HK_KERNEL hk_mul_kernel(HK_GLOBAL u64 *out, HK_GLOBAL const u64 *a, HK_GLOBAL const u64 *b,
                        HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_ELEMENT_PROLOGUE
    out[at] = hk_mul(a[at], b[at], q, md[HK_MOD_MU_LO], md[HK_MOD_MU_HI]);
}

/* acc = acc + a b, one reduction of the 128-bit sum (a pair: acc, a per polynomial, `b`
 * shared, as a plaintext times a ciphertext's parts). */
HK_KERNEL hk_mul_add_kernel(HK_GLOBAL u64 *acc, HK_GLOBAL u64 *acc1, HK_GLOBAL const u64 *a,
                            HK_GLOBAL const u64 *a1, u32 per, HK_GLOBAL const u64 *b,
                            HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_PAIR_PROLOGUE
    HK_PICK(acc);
    HK_PICK(a);
    acc[at] = hk_mul_add(acc[at], a[at], b[at], q, md[HK_MOD_MU_LO], md[HK_MOD_MU_HI]);
}

/* The tensor of two degree-1 ciphertexts in one pass: d0 = a0 b0, d1 = a0 b1 + a1 b0 (the
 * second product added with one reduction of the 128-bit sum, as hk_mul then
 * hk_mul_add), d2 = a1 b1 (Evaluator::mul_no_relin's words). */
HK_KERNEL hk_tensor_kernel(HK_GLOBAL u64 *d0, HK_GLOBAL u64 *d1, HK_GLOBAL u64 *d2,
                           HK_GLOBAL const u64 *a0, HK_GLOBAL const u64 *a1,
                           HK_GLOBAL const u64 *b0, HK_GLOBAL const u64 *b1,
                           HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_ELEMENT_PROLOGUE
    u64 m0 = md[HK_MOD_MU_LO], m1 = md[HK_MOD_MU_HI];
    u64 x0 = a0[at], x1 = a1[at], y0 = b0[at], y1 = b1[at];
    d0[at] = hk_mul(x0, y0, q, m0, m1);
    d1[at] = hk_mul_add(hk_mul(x0, y1, q, m0, m1), x1, y0, q, m0, m1);
    d2[at] = hk_mul(x1, y1, q, m0, m1);
}

/* out = a w_l for a reduced constant per limb: `scalars` holds (w_l, w_l') pairs, the Shoup
 * companion w_l' = floor(w_l 2^64 / q_l) (a pair, the table shared). */
HK_KERNEL hk_mul_scalar_kernel(HK_GLOBAL u64 *out, HK_GLOBAL u64 *out1, HK_GLOBAL const u64 *a,
                               HK_GLOBAL const u64 *a1, u32 per, HK_GLOBAL const u64 *scalars,
                               HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_PAIR_PROLOGUE
    HK_PICK(out);
    HK_PICK(a);
    out[at] = hk_mul_shoup(a[at], scalars[2 * l], scalars[2 * l + 1], q);
}

/* out += a w_l (the same (w_l, w_l') table): Poly::mul_scalar_add_assign. `a` may have more
 * limbs than `out` (its lower ones are read). A pair, the table shared. */
HK_KERNEL hk_mul_scalar_add_kernel(HK_GLOBAL u64 *out, HK_GLOBAL u64 *out1,
                                   HK_GLOBAL const u64 *a, HK_GLOBAL const u64 *a1, u32 per,
                                   HK_GLOBAL const u64 *scalars, HK_GLOBAL const u64 *mods,
                                   u32 n, u32 ql, u32 qmax) {
    HK_PAIR_PROLOGUE
    HK_PICK(out);
    HK_PICK(a);
    out[at] = hk_add(out[at], hk_mul_shoup(a[at], scalars[2 * l], scalars[2 * l + 1], q), q);
}

/* The fused sums' common start: the pair's element, then `out` and the four terms x0 .. x3
 * of the part it belongs to. */
#define HK_SUM_PROLOGUE \
    HK_PAIR_PROLOGUE \
    HK_PICK(out); \
    HK_PICK(x0); \
    HK_PICK(x1); \
    HK_PICK(x2); \
    HK_PICK(x3);

/* out = (accumulate ? out : 0) + sum_{j < count} x_j w_{j0 + j, l} for up to 4 terms (a pair),
 * the (w, w') tables of all terms in `tabs` (term t, limb l at 2 (t ql + l)): a polynomial's
 * leaf sum_j c_j T_j, the words of hk_mul_scalar then hk_mul_scalar_add per term (sums mod q
 * are exact). Each x_j may have more limbs than `out` (its lower ones are read). */
HK_KERNEL hk_lincomb_kernel(HK_GLOBAL u64 *out, HK_GLOBAL u64 *out1, HK_GLOBAL const u64 *x0,
                            HK_GLOBAL const u64 *x01, HK_GLOBAL const u64 *x1,
                            HK_GLOBAL const u64 *x11, HK_GLOBAL const u64 *x2,
                            HK_GLOBAL const u64 *x21, HK_GLOBAL const u64 *x3,
                            HK_GLOBAL const u64 *x31, u32 per, HK_GLOBAL const u64 *tabs, u32 j0,
                            u32 count, u32 accumulate, HK_GLOBAL const u64 *mods, u32 n, u32 ql,
                            u32 qmax) {
    HK_SUM_PROLOGUE
    HK_GLOBAL const u64 *w = tabs + 2 * ((u64)j0 * ql + l);
    u64 stride = 2 * (u64)ql;
    u64 acc = accumulate ? out[at] : 0;
    acc = hk_add(acc, hk_mul_shoup(x0[at], w[0], w[1], q), q);
    if (count > 1) acc = hk_add(acc, hk_mul_shoup(x1[at], w[stride], w[stride + 1], q), q);
    if (count > 2) acc = hk_add(acc, hk_mul_shoup(x2[at], w[2 * stride], w[2 * stride + 1], q), q);
    if (count > 3) acc = hk_add(acc, hk_mul_shoup(x3[at], w[3 * stride], w[3 * stride + 1], q), q);
    out[at] = acc;
}

/* out = (accumulate ? out : 0) + sum_{j < count} x_j p_j for up to 4 terms (a pair; the
 * plaintexts p_j shared by both parts), each product added with one reduction of the 128-bit
 * sum as hk_mul_add: a linear transform's sum over its baby steps, the words of hk_mul then
 * hk_mul_add per term. Each x_j and p_j may have more limbs than `out`. */
HK_KERNEL hk_mul_plain_sum_kernel(HK_GLOBAL u64 *out, HK_GLOBAL u64 *out1,
                                  HK_GLOBAL const u64 *x0, HK_GLOBAL const u64 *x01,
                                  HK_GLOBAL const u64 *x1, HK_GLOBAL const u64 *x11,
                                  HK_GLOBAL const u64 *x2, HK_GLOBAL const u64 *x21,
                                  HK_GLOBAL const u64 *x3, HK_GLOBAL const u64 *x31, u32 per,
                                  HK_GLOBAL const u64 *p0, HK_GLOBAL const u64 *p1,
                                  HK_GLOBAL const u64 *p2, HK_GLOBAL const u64 *p3, u32 count,
                                  u32 accumulate, HK_GLOBAL const u64 *mods, u32 n, u32 ql,
                                  u32 qmax) {
    HK_SUM_PROLOGUE
    u64 m0 = md[HK_MOD_MU_LO], m1 = md[HK_MOD_MU_HI];
    u64 acc = accumulate ? out[at] : 0;
    acc = hk_mul_add(acc, x0[at], p0[at], q, m0, m1);
    if (count > 1) acc = hk_mul_add(acc, x1[at], p1[at], q, m0, m1);
    if (count > 2) acc = hk_mul_add(acc, x2[at], p2[at], q, m0, m1);
    if (count > 3) acc = hk_mul_add(acc, x3[at], p3[at], q, m0, m1);
    out[at] = acc;
}

/* out = a + s_l in NTT form (every coefficient of limb l), s_l reduced (Poly::add_scalar_assign). */
HK_KERNEL hk_add_scalar_kernel(HK_GLOBAL u64 *out, HK_GLOBAL const u64 *a, HK_GLOBAL const u64 *scalars,
                               HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_ELEMENT_PROLOGUE
    out[at] = hk_add(a[at], scalars[l], q);
}

/* out = a X^(n/2) in NTT form (Poly::mul_monomial_half_assign): the first half of limb l times
 * w_l, the second times -w_l, w_l = psi_l^(n/2); `scalars` holds (w, w', -w, (-w)') per limb. */
HK_KERNEL hk_mul_halves_kernel(HK_GLOBAL u64 *out, HK_GLOBAL const u64 *a, HK_GLOBAL const u64 *scalars,
                               HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_ELEMENT_PROLOGUE
    u32 h = k < (n >> 1) ? 0 : 2;
    out[at] = hk_mul_shoup(a[at], scalars[4 * l + h], scalars[4 * l + h + 1], q);
}

/* ModRaise (bootstrapping, Bootstrapper::mod_raise): limb l of out is the coefficient a[k] of
 * the one-limb coefficient-form input (modulo q_0, the context's first modulus) centred in
 * (-q_0/2, q_0/2] and reduced modulo q_l. */
HK_KERNEL hk_mod_raise_kernel(HK_GLOBAL u64 *out, HK_GLOBAL const u64 *a,
                              HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_ELEMENT_PROLOGUE
    u64 q0 = mods[HK_MOD_Q], c = a[k], r;
    if (c > q0 / 2) {
        r = (q0 - c) % q;
        r = r == 0 ? 0 : q - r;
    } else {
        r = c % q;
    }
    out[at] = r;
}

/* out = a(X^k) in NTT form: the permutation out[j] = a[index[j]] (ring::NttPermutation; a
 * pair, the index shared). */
HK_KERNEL hk_permute_kernel(HK_GLOBAL u64 *out, HK_GLOBAL u64 *out1, HK_GLOBAL const u64 *a,
                            HK_GLOBAL const u64 *a1, u32 per, HK_GLOBAL const u64 *index,
                            HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_PAIR_PROLOGUE
    HK_PICK(out);
    HK_PICK(a);
    (void)q;
    out[at] = a[(u64)l * n + index[k]];
}

/* out = a(X^k) in coefficient form (ring::automorphism_coeff): coefficient i moves to
 * i k mod 2n, negated when that lands in [n, 2n). `k` is odd and below 2n. */
HK_KERNEL hk_automorphism_coeff_kernel(HK_GLOBAL u64 *out, HK_GLOBAL const u64 *a, u32 k_exp,
                                       HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_ELEMENT_PROLOGUE
    u64 idx = ((u64)k * k_exp) & (2 * (u64)n - 1);
    u64 c = a[at];
    u64 j = idx & (n - 1);
    out[(u64)l * n + j] = ((idx & n) == 0 || c == 0) ? c : q - c;
}

/* out limbs out_first .. = a limbs in_first .. (grid y over the limbs copied, `per` of them
 * per polynomial of a pair). */
HK_KERNEL hk_copy_limbs_kernel(HK_GLOBAL u64 *out, HK_GLOBAL u64 *out1, HK_GLOBAL const u64 *a,
                               HK_GLOBAL const u64 *a1, u32 per, u32 n, u32 out_first,
                               u32 in_first) {
    u32 k = HK_GID_X, l = HK_GRP_Y;
    if (k >= n) return;
    u32 second = l >= per;
    if (second) l -= per;
    HK_PICK(out);
    HK_PICK(a);
    out[(u64)(out_first + l) * n + k] = a[(u64)(in_first + l) * n + k];
}

/* x = (x + q - b) w_l mod q (ModDown's and rescaling's last step), `scalars` holding
 * (w_l, w_l') pairs (kernels::sub_mul_scalar_assign); a pair (x, b), (x1, b1). */
HK_KERNEL hk_sub_mul_scalar_kernel(HK_GLOBAL u64 *x, HK_GLOBAL u64 *x1, HK_GLOBAL const u64 *b,
                                   HK_GLOBAL const u64 *b1, u32 per,
                                   HK_GLOBAL const u64 *scalars,
                                   HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_PAIR_PROLOGUE
    HK_PICK(x);
    HK_PICK(b);
    x[at] = hk_mul_shoup(x[at] + q - b[at], scalars[2 * l], scalars[2 * l + 1], q);
}

/* Rescaling's lift (ring::Poly::divide_round_by_last_q): limbs i < l of t receive the
 * centered last residue x = src[l] (limb l of `src`, coefficient form, modulo q_l) modulo
 * q_i: x or x + (q_i - q_l) when q_l <= q_i, else [x]_{q_i} - ([q_l]_{q_i} when x > q_l / 2).
 * Called with ql = l (grid y over the l lower limbs); a pair (t, src), (t1, src1). */
HK_KERNEL hk_rescale_lift_kernel(HK_GLOBAL u64 *t, HK_GLOBAL u64 *t1, HK_GLOBAL const u64 *src,
                                 HK_GLOBAL const u64 *src1, u32 per, HK_GLOBAL const u64 *mods,
                                 u32 n, u32 ql, u32 qmax) {
    HK_PAIR_PROLOGUE
    HK_PICK(t);
    HK_PICK(src);
    HK_GLOBAL const u64 *ml = mods + HK_MOD_STRIDE * ql;
    u64 q_last = ml[HK_MOD_Q], q_half = q_last >> 1;
    u64 x = src[(u64)ql * n + k];
    u64 r;
    if (q_last <= q) {
        r = x + (x > q_half ? q - q_last : 0);
    } else {
        u64 m0 = md[HK_MOD_MU_LO], m1 = md[HK_MOD_MU_HI];
        u64 ql_mod = hk_reduce_u128(q_last, 0, q, m0, m1);
        r = hk_sub(hk_reduce_u128(x, 0, q, m0, m1), x > q_half ? ql_mod : 0, q);
    }
    t[at] = r;
}

/* The fused key-switching inner product (one pass): for both key halves h,
 *   acc_h = [(accumulate ? acc_h : 0) + sum_{j < beta} d_j key_{j,h}]
 * with the sum in 128 bits and one reduction per output word (the CPU's
 * kernels::inner_product), up to HK_IP_MAX digits per launch. Each digit is over Q_l and P
 * (ql + p limbs); the key polynomials over key_ql >= ql chain limbs and P: accumulator
 * limb l meets key limb l (chain) or key_ql + l - ql (special). Reads each digit and key
 * word once and writes each accumulator word once. */
#define HK_IP_MAX 8
#define HK_IP_TERM(j, d, ka, kb) \
    if ((j) < beta) { \
        u64 x = d[at]; \
        HK_MAC128(lo0, hi0, x, ka[kat]); \
        HK_MAC128(lo1, hi1, x, kb[kat]); \
    }
HK_KERNEL hk_inner_product_kernel(HK_GLOBAL u64 *acc0, HK_GLOBAL u64 *acc1,
        HK_GLOBAL const u64 *d0, HK_GLOBAL const u64 *d1, HK_GLOBAL const u64 *d2, HK_GLOBAL const u64 *d3,
        HK_GLOBAL const u64 *d4, HK_GLOBAL const u64 *d5, HK_GLOBAL const u64 *d6, HK_GLOBAL const u64 *d7,
        HK_GLOBAL const u64 *k0a, HK_GLOBAL const u64 *k0b, HK_GLOBAL const u64 *k1a, HK_GLOBAL const u64 *k1b,
        HK_GLOBAL const u64 *k2a, HK_GLOBAL const u64 *k2b, HK_GLOBAL const u64 *k3a, HK_GLOBAL const u64 *k3b,
        HK_GLOBAL const u64 *k4a, HK_GLOBAL const u64 *k4b, HK_GLOBAL const u64 *k5a, HK_GLOBAL const u64 *k5b,
        HK_GLOBAL const u64 *k6a, HK_GLOBAL const u64 *k6b, HK_GLOBAL const u64 *k7a, HK_GLOBAL const u64 *k7b,
        HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax, u32 key_ql, u32 beta, u32 accumulate) {
    HK_ELEMENT_PROLOGUE
    u64 kat = (u64)(l < ql ? l : key_ql + (l - ql)) * n + k;
    u64 lo0 = accumulate ? acc0[at] : 0, hi0 = 0, lo1 = accumulate ? acc1[at] : 0, hi1 = 0;
    HK_IP_TERM(0, d0, k0a, k0b)
    HK_IP_TERM(1, d1, k1a, k1b)
    HK_IP_TERM(2, d2, k2a, k2b)
    HK_IP_TERM(3, d3, k3a, k3b)
    HK_IP_TERM(4, d4, k4a, k4b)
    HK_IP_TERM(5, d5, k5a, k5b)
    HK_IP_TERM(6, d6, k6a, k6b)
    HK_IP_TERM(7, d7, k7a, k7b)
    u64 m0 = md[HK_MOD_MU_LO], m1 = md[HK_MOD_MU_HI];
    acc0[at] = hk_reduce_u128(lo0, hi0, q, m0, m1);
    acc1[at] = hk_reduce_u128(lo1, hi1, q, m0, m1);
}

/* The KLSS / linear inner products over B' (seed 000 §4, seed 001 Alg. 3) for one key
 * digit's block: acc limb t (modulo the t-th prime of B') =
 *   [(accumulate ? acc : 0) + sum_{jj < beta} d_{j0+jj}[t] key[t][j0 + jj]]
 * with the sum in 128 bits, one reduction per word (kernels::inner_product). The digits are
 * polynomials over B' (limb t at t n); the key block holds `dnum` terms per limb t, at
 * (t dnum + j) n. Up to HK_IP_MAX digits per launch. */
HK_KERNEL hk_klss_inner_product_kernel(HK_GLOBAL u64 *acc,
        HK_GLOBAL const u64 *d0, HK_GLOBAL const u64 *d1, HK_GLOBAL const u64 *d2, HK_GLOBAL const u64 *d3,
        HK_GLOBAL const u64 *d4, HK_GLOBAL const u64 *d5, HK_GLOBAL const u64 *d6, HK_GLOBAL const u64 *d7,
        HK_GLOBAL const u64 *key,
        HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax, u32 dnum, u32 j0, u32 beta, u32 accumulate) {
    HK_ELEMENT_PROLOGUE
    HK_GLOBAL const u64 *kt = key + ((u64)l * dnum + j0) * n + k;
    u64 lo = accumulate ? acc[at] : 0, hi = 0;
#define HK_KLSS_TERM(j, d) if ((j) < beta) { u64 x = d[at]; HK_MAC128(lo, hi, x, kt[(u64)(j) * n]); }
    HK_KLSS_TERM(0, d0)
    HK_KLSS_TERM(1, d1)
    HK_KLSS_TERM(2, d2)
    HK_KLSS_TERM(3, d3)
    HK_KLSS_TERM(4, d4)
    HK_KLSS_TERM(5, d5)
    HK_KLSS_TERM(6, d6)
    HK_KLSS_TERM(7, d7)
    acc[at] = hk_reduce_u128(lo, hi, q, md[HK_MOD_MU_LO], md[HK_MOD_MU_HI]);
}
