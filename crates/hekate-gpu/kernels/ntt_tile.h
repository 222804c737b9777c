/* The stages of one NTT tile in local memory, shared by the NTT kernels (ntt.cl) and the
 * fused FHEW rotation (fhew.cl): the mirror of hekate's math/ntt/scalar.rs butterflies.
 * `s` is the tile (block `blk` of `tile` words of a polynomial of n words), `w` / `wsh` the
 * twiddle row of its modulus and the Shoup companions (forward: psi^brv, inverse:
 * psi^-brv); each work-item loops over its share of the tile's butterflies, with a barrier
 * after every stage. */

/* The inverse's last stage (t = n/2, the pair (j, j + n/2)): (x + y) N^-1 and
 * (x - y) psi^-brv(1) N^-1, corrected to [0, q) when `reduce`. */
HK_INLINE void hk_inv_last(u64 *xv, u64 *yv, HK_GLOBAL const u64 *md, u64 q, u32 reduce) {
    u64 u = *xv, v = *yv, two_q = q << 1;
    u64 sum = hk_mul_shoup_lazy(u + v, md[HK_MOD_N_INV], md[HK_MOD_N_INV_S], q);
    u64 dif = hk_mul_shoup_lazy(u + two_q - v, md[HK_MOD_INV_LAST], md[HK_MOD_INV_LAST_S], q);
    if (reduce) { sum = hk_csub(sum, q); dif = hk_csub(dif, q); }
    *xv = sum;
    *yv = dif;
}

/* The forward stages of distance tile/2 .. 2 (Harvey, values in [0, 4q)). */
HK_INLINE void hk_tile_fwd_stages(HK_LOCAL_PTR u64 *s, HK_GLOBAL const u64 *w,
                                  HK_GLOBAL const u64 *wsh, u32 n, u32 tile, u32 blk, u64 q) {
    u32 lid = HK_LID_X, lsz = HK_LSZ_X, npairs = tile >> 1;
    u64 two_q = q << 1;
    u32 log_t = 0;
    while ((2u << log_t) < tile) log_t++;
    for (; log_t > 0; log_t--) {
        u32 t = 1u << log_t;
        u32 mg = n >> (log_t + 1), base = blk * (tile >> (log_t + 1));
        for (u32 b = lid; b < npairs; b += lsz) {
            u32 g = b >> log_t, j = (g << (log_t + 1)) + (b & (t - 1));
            u64 wv = w[mg + base + g], ws = wsh[mg + base + g];
            u64 u = hk_csub(s[j], two_q), v = hk_mul_shoup_lazy(s[j + t], wv, ws, q);
            s[j] = u + v;
            s[j + t] = u + two_q - v;
        }
        HK_BARRIER();
    }
}

/* The last forward stage (t = 1) on one pair, twiddle (wv, ws): the final corrections to
 * [0, 2q), or [0, q) when `reduce`. */
HK_INLINE void hk_fwd_last(u64 *x0, u64 *x1, u64 wv, u64 ws, u64 q, u32 reduce) {
    u64 two_q = q << 1;
    u64 u = hk_csub(*x0, two_q), v = hk_mul_shoup_lazy(*x1, wv, ws, q);
    u64 sum = hk_csub(u + v, two_q), dif = hk_csub(u + two_q - v, two_q);
    if (reduce) { sum = hk_csub(sum, q); dif = hk_csub(dif, q); }
    *x0 = sum;
    *x1 = dif;
}

/* The inverse stages of distance 1 .. tile/2 (Gentleman-Sande, values in [0, 2q)) and, when
 * the tile is the whole polynomial, the last stage with N^-1 (hk_inv_last). */
HK_INLINE void hk_tile_inv_stages(HK_LOCAL_PTR u64 *s, HK_GLOBAL const u64 *w,
                                  HK_GLOBAL const u64 *wsh, HK_GLOBAL const u64 *md, u32 n,
                                  u32 tile, u32 blk, u64 q, u32 reduce) {
    u32 lid = HK_LID_X, lsz = HK_LSZ_X, npairs = tile >> 1;
    u64 two_q = q << 1;
    /* Ordinary stages: every t with 2t <= tile, except t = n/2 (the last stage). */
    for (u32 log_t = 0; (2u << log_t) <= tile && (2u << log_t) < n; log_t++) {
        u32 t = 1u << log_t;
        u32 h = n >> (log_t + 1), base = blk * (tile >> (log_t + 1));
        for (u32 b = lid; b < npairs; b += lsz) {
            u32 g = b >> log_t, j = (g << (log_t + 1)) + (b & (t - 1));
            u64 wv = w[h + base + g], ws = wsh[h + base + g];
            u64 u = s[j], v = s[j + t];
            s[j] = hk_csub(u + v, two_q);
            s[j + t] = hk_mul_shoup_lazy(u + two_q - v, wv, ws, q);
        }
        HK_BARRIER();
    }
    if (tile == n) {
        for (u32 b = lid; b < npairs; b += lsz) {
            u64 xv = s[b], yv = s[b + npairs];
            hk_inv_last(&xv, &yv, md, q, reduce);
            s[b] = xv;
            s[b + npairs] = yv;
        }
        HK_BARRIER();
    }
}
