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

/* out = a + b. */
HK_KERNEL hk_add_kernel(HK_GLOBAL u64 *out, HK_GLOBAL const u64 *a, HK_GLOBAL const u64 *b,
                        HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_ELEMENT_PROLOGUE
    out[at] = hk_add(a[at], b[at], q);
}

/* out = a - b. */
HK_KERNEL hk_sub_kernel(HK_GLOBAL u64 *out, HK_GLOBAL const u64 *a, HK_GLOBAL const u64 *b,
                        HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_ELEMENT_PROLOGUE
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

/* acc = acc + a b, one reduction of the 128-bit sum. */
HK_KERNEL hk_mul_add_kernel(HK_GLOBAL u64 *acc, HK_GLOBAL const u64 *a, HK_GLOBAL const u64 *b,
                            HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_ELEMENT_PROLOGUE
    acc[at] = hk_mul_add(acc[at], a[at], b[at], q, md[HK_MOD_MU_LO], md[HK_MOD_MU_HI]);
}

/* out = a w_l for a reduced constant per limb: `scalars` holds (w_l, w_l') pairs, the Shoup
 * companion w_l' = floor(w_l 2^64 / q_l). */
HK_KERNEL hk_mul_scalar_kernel(HK_GLOBAL u64 *out, HK_GLOBAL const u64 *a, HK_GLOBAL const u64 *scalars,
                               HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_ELEMENT_PROLOGUE
    out[at] = hk_mul_shoup(a[at], scalars[2 * l], scalars[2 * l + 1], q);
}

/* out = a(X^k) in NTT form: the permutation out[j] = a[index[j]] (ring::NttPermutation). */
HK_KERNEL hk_permute_kernel(HK_GLOBAL u64 *out, HK_GLOBAL const u64 *a, HK_GLOBAL const u64 *index,
                            HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_ELEMENT_PROLOGUE
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

/* out limbs out_first .. = a limbs in_first .. (grid y over the limbs copied). */
HK_KERNEL hk_copy_limbs_kernel(HK_GLOBAL u64 *out, HK_GLOBAL const u64 *a, u32 n, u32 out_first, u32 in_first) {
    u32 k = HK_GID_X, l = HK_GRP_Y;
    if (k >= n) return;
    out[(u64)(out_first + l) * n + k] = a[(u64)(in_first + l) * n + k];
}

/* acc = (accumulate ? acc : 0) + a key, where the key polynomial has `key_ql` chain limbs
 * (at least ql) and the same special limbs: limb l of acc meets key limb l (chain) or
 * key_ql + l - ql (special). One term of the key-switching inner product. */
HK_KERNEL hk_mul_key_kernel(HK_GLOBAL u64 *acc, HK_GLOBAL const u64 *a, HK_GLOBAL const u64 *key,
                            HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax, u32 key_ql, u32 accumulate) {
    HK_ELEMENT_PROLOGUE
    u64 kl = l < ql ? l : key_ql + (l - ql);
    u64 w = key[kl * n + k];
    acc[at] = accumulate ? hk_mul_add(acc[at], a[at], w, q, md[HK_MOD_MU_LO], md[HK_MOD_MU_HI])
                         : hk_mul(a[at], w, q, md[HK_MOD_MU_LO], md[HK_MOD_MU_HI]);
}

/* x = (x + q - b) w_l mod q (ModDown's and rescaling's last step), `scalars` holding
 * (w_l, w_l') pairs (kernels::sub_mul_scalar_assign). */
HK_KERNEL hk_sub_mul_scalar_kernel(HK_GLOBAL u64 *x, HK_GLOBAL const u64 *b, HK_GLOBAL const u64 *scalars,
                                   HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_ELEMENT_PROLOGUE
    x[at] = hk_mul_shoup(x[at] + q - b[at], scalars[2 * l], scalars[2 * l + 1], q);
}

/* Rescaling's lift (ring::Poly::divide_round_by_last_q): limbs i < l of t receive the
 * centered last residue x = t[l] (coefficient form, modulo q_l) modulo q_i: x or
 * x + (q_i - q_l) when q_l <= q_i, else [x]_{q_i} - ([q_l]_{q_i} when x > q_l / 2).
 * Called with ql = l (grid y over the l lower limbs). */
HK_KERNEL hk_rescale_lift_kernel(HK_GLOBAL u64 *t, HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax) {
    HK_ELEMENT_PROLOGUE
    HK_GLOBAL const u64 *ml = mods + HK_MOD_STRIDE * ql;
    u64 q_last = ml[HK_MOD_Q], q_half = q_last >> 1;
    u64 x = t[(u64)ql * n + k];
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
