/* Negacyclic NTT over all limbs of a polynomial at once, the mirror of hekate's
 * math/ntt/scalar.rs butterfly for butterfly (Harvey's lazy Cooley-Tukey forward in [0, 4q),
 * Gentleman-Sande inverse in [0, 2q), the last stages carrying the corrections and N^-1),
 * so lazy outputs equal NttBackend::Scalar's word for word and reduced ones every backend's.
 *
 * Twiddle table `tw`, per modulus index m: four rows of n words at (4 m + r) n, r = 0 psi^brv
 * (forward), 1 its Shoup companions, 2 psi^-brv (inverse), 3 companions. Group g of a stage
 * with G groups reads index G + g.
 *
 * Structure: a transform is two passes over memory. The stages whose butterfly blocks span
 * more than a tile (HK_TILE_MAX words at most, `tile` at run time) run together in one launch
 * (hk_ntt_fwd_cols / hk_ntt_inv_cols): the r stages of distances t_hi .. t_lo only combine
 * the 2^r words x[hi 2 t_hi + mid t_lo + lo], mid < 2^r, so a work-group loads 2^r rows of
 * `cols` consecutive columns lo (tile words in all, coalesced rows) into local memory and
 * runs the r stages there; the stages within a tile run in one launch from local memory too
 * (hk_ntt_fwd_tail / hk_ntt_inv_head; one work-group per tile). Each work-item loops over its
 * share of the butterflies, with a barrier between stages. Grid y is the limb, counted from
 * `first` and stepping over the `skip_len` limbs from `skip_at` (a transform of limbs
 * first .. first + grid y + skip_len but those: ModUp transforms every limb but its digit's
 * in one launch; `skip_at` = 0xFFFFFFFF skips none). A launch may transform a pair of
 * polynomials of the same shape: grid y counts `per` limbs of `a`, then as many of `a1`
 * (rescaling and ModDown transform a ciphertext's two parts together; `a1` = `a` and
 * `per` = 0xFFFFFFFF for one polynomial). */

#ifndef HK_TILE_MAX
#define HK_TILE_MAX 2048
#endif

#define HK_NTT_PROLOGUE \
    u32 y = HK_GRP_Y; \
    HK_GLOBAL u64 *base = y >= per ? a1 : a; \
    u32 l = first + (y >= per ? y - per : y); \
    if (l >= skip_at) l += skip_len; \
    u32 m = hk_mod_index(l, ql, qmax); \
    HK_GLOBAL const u64 *md = mods + HK_MOD_STRIDE * m; \
    u64 q = md[HK_MOD_Q], two_q = q << 1; \
    HK_GLOBAL u64 *x = base + (u64)l * n;

/* The r forward stages of distances t = 2^log_t_hi down to 2^(log_t_hi - r + 1) (each at
 * least `cols`), for blocks of `cols` columns: 2^r cols words in local memory. */
HK_KERNEL hk_ntt_fwd_cols(HK_GLOBAL u64 *a, HK_GLOBAL u64 *a1, u32 per,
                          HK_GLOBAL const u64 *tw, HK_GLOBAL const u64 *mods, u32 n, u32 ql,
                          u32 qmax, u32 first, u32 skip_at, u32 skip_len,
                          u32 log_t_hi, u32 r, u32 cols) {
    HK_LOCAL u64 s[HK_TILE_MAX];
    HK_NTT_PROLOGUE
    u32 lid = HK_LID_X, lsz = HK_LSZ_X;
    u32 log_t_lo = log_t_hi + 1 - r, t_lo = 1u << log_t_lo;
    u32 blocks = t_lo / cols, hi = HK_GRP_X / blocks, lo0 = (HK_GRP_X % blocks) * cols;
    u32 rows = 1u << r, words = rows * cols, npairs = words >> 1;
    HK_GLOBAL const u64 *w = tw + (u64)(4 * m) * n;
    HK_GLOBAL const u64 *wsh = w + n;
    x += ((u64)hi << (log_t_hi + 1)) + lo0;
    for (u32 i = lid; i < words; i += lsz) s[i] = x[(u64)(i / cols) * t_lo + i % cols];
    HK_BARRIER();
    for (u32 u = 0; u < r; u++) {
        u32 log_t = log_t_hi - u, sh = r - 1 - u, d = 1u << sh;
        u32 mg = n >> (log_t + 1);
        for (u32 b = lid; b < npairs; b += lsz) {
            u32 c = b % cols, pm = b / cols;
            u32 mid = ((pm >> sh) << (sh + 1)) | (pm & (d - 1));
            u32 g = (hi << u) + (mid >> (sh + 1));
            u64 wv = w[mg + g], ws = wsh[mg + g];
            u32 j = mid * cols + c, k = j + d * cols;
            u64 uu = hk_csub(s[j], two_q), v = hk_mul_shoup_lazy(s[k], wv, ws, q);
            s[j] = uu + v;
            s[k] = uu + two_q - v;
        }
        HK_BARRIER();
    }
    for (u32 i = lid; i < words; i += lsz) x[(u64)(i / cols) * t_lo + i % cols] = s[i];
}

/* The forward stages of distance tile/2 .. 1 on one tile, then the final correction (to
 * [0, 2q), or [0, q) when `reduce`). */
HK_KERNEL hk_ntt_fwd_tail(HK_GLOBAL u64 *a, HK_GLOBAL u64 *a1, u32 per,
                          HK_GLOBAL const u64 *tw, HK_GLOBAL const u64 *mods, u32 n, u32 ql,
                          u32 qmax, u32 first, u32 skip_at, u32 skip_len,
                          u32 tile, u32 reduce) {
    HK_LOCAL u64 s[HK_TILE_MAX];
    HK_NTT_PROLOGUE
    u32 blk = HK_GRP_X, lid = HK_LID_X, lsz = HK_LSZ_X, npairs = tile >> 1;
    HK_GLOBAL const u64 *w = tw + (u64)(4 * m) * n;
    HK_GLOBAL const u64 *wsh = w + n;
    x += (u64)blk * tile;
    for (u32 i = lid; i < tile; i += lsz) s[i] = x[i];
    HK_BARRIER();
    hk_tile_fwd_stages(s, w, wsh, n, tile, blk, q);
    for (u32 b = lid; b < npairs; b += lsz) {
        u32 p = blk * npairs + b;
        u64 x0 = s[2 * b], x1 = s[2 * b + 1];
        hk_fwd_last(&x0, &x1, w[(n >> 1) + p], wsh[(n >> 1) + p], q, reduce);
        x[2 * b] = x0;
        x[2 * b + 1] = x1;
    }
}

/* The inverse stages of distance 1 .. tile/2 on one tile (and, when the tile is the whole
 * polynomial, the last stage with N^-1 as well). */
HK_KERNEL hk_ntt_inv_head(HK_GLOBAL u64 *a, HK_GLOBAL u64 *a1, u32 per,
                          HK_GLOBAL const u64 *tw, HK_GLOBAL const u64 *mods, u32 n, u32 ql,
                          u32 qmax, u32 first, u32 skip_at, u32 skip_len,
                          u32 tile, u32 reduce) {
    HK_LOCAL u64 s[HK_TILE_MAX];
    HK_NTT_PROLOGUE
    u32 blk = HK_GRP_X, lid = HK_LID_X, lsz = HK_LSZ_X;
    HK_GLOBAL const u64 *w = tw + (u64)(4 * m + 2) * n;
    HK_GLOBAL const u64 *wsh = w + n;
    x += (u64)blk * tile;
    for (u32 i = lid; i < tile; i += lsz) s[i] = x[i];
    HK_BARRIER();
    hk_tile_inv_stages(s, w, wsh, md, n, tile, blk, q, reduce);
    for (u32 i = lid; i < tile; i += lsz) x[i] = s[i];
}

/* The r inverse stages of distances t = 2^log_t_lo up to 2^(log_t_lo + r - 1) (the first at
 * least `cols`) for blocks of `cols` columns, in local memory as hk_ntt_fwd_cols; a stage of
 * distance n/2 is the last one (hk_inv_last: N^-1, corrected when `reduce`). */
HK_KERNEL hk_ntt_inv_cols(HK_GLOBAL u64 *a, HK_GLOBAL u64 *a1, u32 per,
                          HK_GLOBAL const u64 *tw, HK_GLOBAL const u64 *mods, u32 n, u32 ql,
                          u32 qmax, u32 first, u32 skip_at, u32 skip_len,
                          u32 log_t_lo, u32 r, u32 cols,
                          u32 reduce) {
    HK_LOCAL u64 s[HK_TILE_MAX];
    HK_NTT_PROLOGUE
    u32 lid = HK_LID_X, lsz = HK_LSZ_X;
    u32 log_t_hi = log_t_lo + r - 1, t_lo = 1u << log_t_lo;
    u32 blocks = t_lo / cols, hi = HK_GRP_X / blocks, lo0 = (HK_GRP_X % blocks) * cols;
    u32 rows = 1u << r, words = rows * cols, npairs = words >> 1;
    HK_GLOBAL const u64 *w = tw + (u64)(4 * m + 2) * n;
    HK_GLOBAL const u64 *wsh = w + n;
    x += ((u64)hi << (log_t_hi + 1)) + lo0;
    for (u32 i = lid; i < words; i += lsz) s[i] = x[(u64)(i / cols) * t_lo + i % cols];
    HK_BARRIER();
    for (u32 u = 0; u < r; u++) {
        u32 log_t = log_t_lo + u, d = 1u << u;
        u32 h = n >> (log_t + 1);
        for (u32 b = lid; b < npairs; b += lsz) {
            u32 c = b % cols, pm = b / cols;
            u32 mid = ((pm >> u) << (u + 1)) | (pm & (d - 1));
            u32 j = mid * cols + c, k = j + d * cols;
            u64 uu = s[j], v = s[k];
            if ((2u << log_t) == n) {
                hk_inv_last(&uu, &v, md, q, reduce);
                s[j] = uu;
                s[k] = v;
            } else {
                u32 g = (hi << (r - 1 - u)) + (mid >> (u + 1));
                u64 wv = w[h + g], ws = wsh[h + g];
                s[j] = hk_csub(uu + v, two_q);
                s[k] = hk_mul_shoup_lazy(uu + two_q - v, wv, ws, q);
            }
        }
        HK_BARRIER();
    }
    for (u32 i = lid; i < words; i += lsz) x[(u64)(i / cols) * t_lo + i % cols] = s[i];
}
