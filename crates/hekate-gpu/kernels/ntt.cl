/* Negacyclic NTT over all limbs of a polynomial at once, the mirror of hekate's
 * math/ntt/scalar.rs butterfly for butterfly (Harvey's lazy Cooley-Tukey forward in [0, 4q),
 * Gentleman-Sande inverse in [0, 2q), the last stages carrying the corrections and N^-1),
 * so lazy outputs equal NttBackend::Scalar's word for word and reduced ones every backend's.
 *
 * Twiddle table `tw`, per modulus index m: four rows of n words at (4 m + r) n, r = 0 psi^brv
 * (forward), 1 its Shoup companions, 2 psi^-brv (inverse), 3 companions. Group g of a stage
 * with G groups reads index G + g.
 *
 * Structure: stages whose butterfly blocks span more than a tile (HK_TILE_MAX words at most,
 * `tile` at run time) run one launch each from global memory (hk_ntt_*_stage, one work-item
 * per butterfly); the stages within a tile run in one launch from local memory with a
 * barrier between stages (hk_ntt_fwd_tail / hk_ntt_inv_head; one work-group per tile, each
 * work-item looping over its share of the tile's butterflies). Grid y is the limb, counted
 * from `first` (a transform of limbs first .. first + grid y). */

#ifndef HK_TILE_MAX
#define HK_TILE_MAX 2048
#endif

#define HK_NTT_PROLOGUE \
    u32 l = first + HK_GRP_Y; \
    u32 m = hk_mod_index(l, ql, qmax); \
    HK_GLOBAL const u64 *md = mods + HK_MOD_STRIDE * m; \
    u64 q = md[HK_MOD_Q], two_q = q << 1; \
    HK_GLOBAL u64 *x = a + (u64)l * n;

/* One forward stage of npairs-distance t = 2^log_t > 1 (its mg = n / 2t groups). */
HK_KERNEL hk_ntt_fwd_stage(HK_GLOBAL u64 *a, HK_GLOBAL const u64 *tw, HK_GLOBAL const u64 *mods,
                           u32 n, u32 ql, u32 qmax, u32 first, u32 log_t) {
    HK_NTT_PROLOGUE
    u32 b = HK_GID_X;
    if (b >= (n >> 1)) return;
    u32 t = 1u << log_t, mg = n >> (log_t + 1);
    u32 g = b >> log_t, j = (g << (log_t + 1)) + (b & (t - 1));
    HK_GLOBAL const u64 *w = tw + (u64)(4 * m) * n;
    u64 wv = w[mg + g], ws = w[n + mg + g];
    u64 u = hk_csub(x[j], two_q), v = hk_mul_shoup_lazy(x[j + t], wv, ws, q);
    x[j] = u + v;
    x[j + t] = u + two_q - v;
}

/* The forward stages of npairs-distance tile/2 .. 1 on one tile, then the final correction
 * (to [0, 2q), or [0, q) when `reduce`). */
HK_KERNEL hk_ntt_fwd_tail(HK_GLOBAL u64 *a, HK_GLOBAL const u64 *tw, HK_GLOBAL const u64 *mods,
                          u32 n, u32 ql, u32 qmax, u32 first, u32 tile, u32 reduce) {
    HK_LOCAL u64 s[HK_TILE_MAX];
    HK_NTT_PROLOGUE
    u32 blk = HK_GRP_X, lid = HK_LID_X, lsz = HK_LSZ_X, npairs = tile >> 1;
    HK_GLOBAL const u64 *w = tw + (u64)(4 * m) * n;
    HK_GLOBAL const u64 *wsh = w + n;
    x += (u64)blk * tile;
    for (u32 i = lid; i < tile; i += lsz) s[i] = x[i];
    HK_BARRIER();
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
    /* t = 1: pairs (2b, 2b + 1), twiddle n/2 + global pair index. */
    for (u32 b = lid; b < npairs; b += lsz) {
        u32 p = blk * npairs + b;
        u64 wv = w[(n >> 1) + p], ws = wsh[(n >> 1) + p];
        u64 u = hk_csub(s[2 * b], two_q), v = hk_mul_shoup_lazy(s[2 * b + 1], wv, ws, q);
        u64 sum = hk_csub(u + v, two_q), dif = hk_csub(u + two_q - v, two_q);
        if (reduce) { sum = hk_csub(sum, q); dif = hk_csub(dif, q); }
        x[2 * b] = sum;
        x[2 * b + 1] = dif;
    }
}

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

/* The inverse stages of npairs-distance 1 .. tile/2 on one tile (and, when the tile is the
 * whole polynomial, the last stage with N^-1 as well). */
HK_KERNEL hk_ntt_inv_head(HK_GLOBAL u64 *a, HK_GLOBAL const u64 *tw, HK_GLOBAL const u64 *mods,
                          u32 n, u32 ql, u32 qmax, u32 first, u32 tile, u32 reduce) {
    HK_LOCAL u64 s[HK_TILE_MAX];
    HK_NTT_PROLOGUE
    u32 blk = HK_GRP_X, lid = HK_LID_X, lsz = HK_LSZ_X, npairs = tile >> 1;
    HK_GLOBAL const u64 *w = tw + (u64)(4 * m + 2) * n;
    HK_GLOBAL const u64 *wsh = w + n;
    x += (u64)blk * tile;
    for (u32 i = lid; i < tile; i += lsz) s[i] = x[i];
    HK_BARRIER();
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
    for (u32 i = lid; i < tile; i += lsz) x[i] = s[i];
}

/* One inverse stage of npairs-distance t = 2^log_t < n/2 from global memory. */
HK_KERNEL hk_ntt_inv_stage(HK_GLOBAL u64 *a, HK_GLOBAL const u64 *tw, HK_GLOBAL const u64 *mods,
                           u32 n, u32 ql, u32 qmax, u32 first, u32 log_t) {
    HK_NTT_PROLOGUE
    u32 b = HK_GID_X;
    if (b >= (n >> 1)) return;
    u32 t = 1u << log_t, h = n >> (log_t + 1);
    u32 g = b >> log_t, j = (g << (log_t + 1)) + (b & (t - 1));
    HK_GLOBAL const u64 *w = tw + (u64)(4 * m + 2) * n;
    u64 wv = w[h + g], ws = w[n + h + g];
    u64 u = x[j], v = x[j + t];
    x[j] = hk_csub(u + v, two_q);
    x[j + t] = hk_mul_shoup_lazy(u + two_q - v, wv, ws, q);
}

/* The inverse's last stage from global memory (when the tile is smaller than n). */
HK_KERNEL hk_ntt_inv_last(HK_GLOBAL u64 *a, HK_GLOBAL const u64 *mods, u32 n, u32 ql, u32 qmax,
                          u32 first, u32 reduce) {
    u32 l = first + HK_GRP_Y;
    u32 b = HK_GID_X;
    if (b >= (n >> 1)) return;
    HK_GLOBAL const u64 *md = mods + HK_MOD_STRIDE * hk_mod_index(l, ql, qmax);
    HK_GLOBAL u64 *x = a + (u64)l * n;
    u64 xv = x[b], yv = x[b + (n >> 1)];
    hk_inv_last(&xv, &yv, md, md[HK_MOD_Q], reduce);
    x[b] = xv;
    x[b + (n >> 1)] = yv;
}
