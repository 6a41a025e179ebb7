#include "sb_gemm.h"
#include "sb_cpu.h"
#include "sb_dequant.h"
#include "sb_mem.h"
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- cache sizes ------------------------------------------------------- */

static size_t g_l1 = 32 << 10, g_l2 = 1 << 20, g_l3 = 8 << 20;
static pthread_once_t g_cache_once = PTHREAD_ONCE_INIT;

/* The CPU's own figures (sb_cpu) unless a caller set others. */
static void cache_detect(void)
{
    const sb_cpu *c = sb_cpu_get();
    if (c->l1d_bytes) g_l1 = c->l1d_bytes;
    if (c->l2_bytes) g_l2 = c->l2_bytes;
    if (c->l3_bytes) g_l3 = c->l3_bytes;
}

void sb_gemm_set_cache_sizes(size_t l1d, size_t l2, size_t l3)
{
    pthread_once(&g_cache_once, cache_detect);
    if (l1d) g_l1 = l1d;
    if (l2) g_l2 = l2;
    if (l3) g_l3 = l3;
}

void sb_gemm_get_cache_sizes(size_t *l1d, size_t *l2, size_t *l3)
{
    pthread_once(&g_cache_once, cache_detect);
    if (l1d) *l1d = g_l1;
    if (l2) *l2 = g_l2;
    if (l3) *l3 = g_l3;
}

/* ---- blocking ---------------------------------------------------------- */

static int round_up(int x, int m) { return (x + m - 1) / m * m; }

/* Splits len into ceil(len/cap) near-equal blocks rounded up to unit, so no
 * thin trailing block wastes a pass. */
static int balanced_block(int len, int cap, int unit)
{
    if (cap < unit) cap = unit;
    if (len <= cap) return round_up(len, unit);
    int nblk = (len + cap - 1) / cap;
    return round_up((len + nblk - 1) / nblk, unit);
}

/* SB_GEMM_KC/MC/NC override the blocking, SB_GEMM_PRIVATE_B=1 makes each
 * thread pack its own B (experiments); read once. */
static long g_env_kc, g_env_mc, g_env_nc, g_env_private_b;
static pthread_once_t g_env_once = PTHREAD_ONCE_INIT;
static long env_long(const char *name)
{
    const char *v = getenv(name);
    return v ? strtol(v, NULL, 10) : 0;
}
static void env_init(void)
{
    g_env_kc = env_long("SB_GEMM_KC");
    g_env_mc = env_long("SB_GEMM_MC");
    g_env_nc = env_long("SB_GEMM_NC");
    g_env_private_b = env_long("SB_GEMM_PRIVATE_B");
}

/* KC: a B micro-panel (kc x nr) takes an eighth of L2 (twice L1 on most
 * cores): long k runs mean fewer passes over C and long contiguous reads of
 * A and B while packing, which measured better than an L1-sized panel.
 * MC: the packed A block is about 1.5x L2 (or the kernel's a_l2_pct): each
 * B micro-panel then stays in L2 while many A micro-panels stream past it
 * from L3, which measured better than an L2-resident A block re-streaming
 * the (L3) B block for every small MC step for the AVX-512 kernels; the
 * AVX2 ones, with half as wide a B panel, read each A block twice as often
 * and do better with it in L2. NC: the packed B block takes
 * a quarter of L3 (shared by the threads). A caller's blocking (b) replaces
 * these caps, SB_GEMM_KC/MC/NC replace both. */
static void blocking_resolve(const sb_ukr *u, int m, int n, int k, const sb_blocking *b,
                             sb_blocking *out)
{
    size_t l1, l2, l3;
    sb_gemm_get_cache_sizes(&l1, &l2, &l3);
    pthread_once(&g_env_once, env_init);
    (void)l1;
    sb_blocking z = {0};
    if (!b) b = &z;
    *out = *b;
    long kc_cap = (long)(l2 / 8 / ((size_t)u->nr * u->b_esz));
    if (b->kc > 0) kc_cap = b->kc;
    if (g_env_kc > 0) kc_cap = g_env_kc;
    if (u->kc_max && kc_cap > u->kc_max) kc_cap = u->kc_max;
    if (kc_cap < u->ku) kc_cap = u->ku;
    int kcv = balanced_block(k, (int)kc_cap, u->ku);
    /* k a little over one block: one block beats a thin second pass */
    if (k <= kc_cap + kc_cap / 4) kcv = round_up(k, u->ku);
    long mc_cap = (long)(l2 * (u->a_l2_pct ? (size_t)u->a_l2_pct : 150) / 100 /
                         ((size_t)kcv * u->a_esz));
    if (b->mc > 0) mc_cap = b->mc;
    if (g_env_mc > 0) mc_cap = g_env_mc;
    int mcv = balanced_block(m, (int)(mc_cap / u->mr * u->mr), u->mr);
    long nc_cap = (long)(l3 / 4 / ((size_t)kcv * u->b_esz));
    if (b->nc > 0) nc_cap = b->nc;
    if (g_env_nc > 0) nc_cap = g_env_nc;
    if (nc_cap > 8192) nc_cap = 8192;
    int ncv = balanced_block(n, (int)(nc_cap / u->nr * u->nr), u->nr);
    out->mc = mcv;
    out->nc = ncv;
    out->kc = kcv;
}

void sb_gemm_blocking(const sb_ukr *u, int m, int n, int k, int *mc, int *nc, int *kc)
{
    sb_blocking r;
    blocking_resolve(u, m, n, k, NULL, &r);
    *mc = r.mc;
    *nc = r.nc;
    *kc = r.kc;
}

/* ---- shape classes and the blocking table ------------------------------ */

static int size_bucket(int v) { return v <= 96 ? 0 : v <= 384 ? 1 : v <= 1024 ? 2 : 3; }
static const char g_bucket_ch[4] = {'t', 's', 'm', 'l'};

int sb_shape_class(char transa, char transb, int m, int n, int k)
{
    return (transa == 'T') << 7 | (transb == 'T') << 6 | size_bucket(m) << 4 |
           size_bucket(n) << 2 | size_bucket(k);
}

void sb_shape_class_name(int cls, char *buf, size_t len)
{
    if (cls < 0 || cls >= SB_SHAPE_CLASSES) {
        if (len) buf[0] = '\0';
        return;
    }
    snprintf(buf, len, "%c%c-%c%c%c", cls & 128 ? 'T' : 'N', cls & 64 ? 'T' : 'N',
             g_bucket_ch[cls >> 4 & 3], g_bucket_ch[cls >> 2 & 3], g_bucket_ch[cls & 3]);
}

static int bucket_of(char c)
{
    for (int i = 0; i < 4; i++)
        if (g_bucket_ch[i] == c) return i;
    return -1;
}

int sb_shape_class_parse(const char *s)
{
    if (!s || strlen(s) != 6 || s[2] != '-' || !strchr("NT", s[0]) || !strchr("NT", s[1]) ||
        !s[0] || !s[1])
        return -1;
    int bm = bucket_of(s[3]), bn = bucket_of(s[4]), bk = bucket_of(s[5]);
    if (bm < 0 || bn < 0 || bk < 0) return -1;
    return (s[0] == 'T') << 7 | (s[1] == 'T') << 6 | bm << 4 | bn << 2 | bk;
}

/* Grown as entries come (a tune file may hold every kernel's every class);
 * set before any GEMM runs, so the move of a realloc never meets a reader.
 * Kept sorted by (class, kernel name): a GEMM call finds its entry by a
 * binary search, not a walk over every kernel's every class. */
typedef struct {
    char kernel[32];
    int cls;
    sb_blocking b;
} blk_entry;
static blk_entry *g_blk;
static int g_nblk, g_capblk;

static int blk_cmp(int cls, const char *kernel, const blk_entry *x)
{
    if (cls != x->cls) return cls < x->cls ? -1 : 1;
    return strcmp(kernel, x->kernel);
}

/* The index of (cls, kernel) when *found, else where it would go. */
static int blk_find(const char *kernel, int cls, int *found)
{
    int lo = 0, hi = g_nblk;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, c = blk_cmp(cls, kernel, &g_blk[mid]);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    *found = 0;
    return lo;
}

int sb_blocking_set(const char *kernel, int cls, const sb_blocking *b, sb_err *e)
{
    if (!kernel || strlen(kernel) >= sizeof g_blk[0].kernel)
        return sb_errf(e, SB_EUSAGE, "blocking table: bad kernel name");
    if (cls < 0 || cls >= SB_SHAPE_CLASSES)
        return sb_errf(e, SB_EUSAGE, "blocking table: bad shape class %d", cls);
    int found, at = blk_find(kernel, cls, &found);
    if (found) {
        g_blk[at].b = *b;
        return SB_OK;
    }
    if (g_nblk == g_capblk) {
        int cap = g_capblk ? 2 * g_capblk : 64;
        blk_entry *t = realloc(g_blk, (size_t)cap * sizeof *t);
        if (!t) return sb_errf(e, SB_EFAIL, "blocking table: out of memory (%d entries)", g_nblk);
        g_blk = t;
        g_capblk = cap;
    }
    memmove(&g_blk[at + 1], &g_blk[at], (size_t)(g_nblk - at) * sizeof *g_blk);
    blk_entry *x = &g_blk[at];
    snprintf(x->kernel, sizeof x->kernel, "%s", kernel);
    x->cls = cls;
    x->b = *b;
    g_nblk++;
    return SB_OK;
}

void sb_blocking_clear(void) { g_nblk = 0; }

const sb_blocking *sb_blocking_get(const char *kernel, int cls)
{
    int found, at = blk_find(kernel, cls, &found);
    return found ? &g_blk[at].b : NULL;
}

static const char *const g_order_names[] = {"jr-ir", "ir-jr"};
static const char *const g_split_names[] = {"auto", "rows", "cols"};

int sb_blocking_format(const sb_blocking *b, char *buf, size_t len)
{
    int order = b->order == SB_ORDER_IR_JR, split = b->split >= 0 && b->split <= 2 ? b->split : 0;
    int w = snprintf(buf, len, "kc=%d,mc=%d,nc=%d,order=%s,pf=%d,split=%s", b->kc, b->mc, b->nc,
                     g_order_names[order], b->pf, g_split_names[split]);
    if (b->variant && w >= 0 && (size_t)w < len)
        w += snprintf(buf + w, len - w, ",variant=%d", b->variant);
    return w;
}

static int name_index(const char *v, size_t vl, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strlen(names[i]) == vl && !strncmp(v, names[i], vl)) return i;
    return -1;
}

static const char *const g_blk_keys[] = {"kc", "mc", "nc", "order", "pf", "split", "variant"};

int sb_blocking_parse(const char *s, sb_blocking *b, sb_err *e)
{
    sb_blocking r = {0};
    if (!s) return sb_errf(e, SB_EUSAGE, "blocking: empty");
    if (!strcmp(s, "default")) {
        *b = r;
        return SB_OK;
    }
    if (!*s) return sb_errf(e, SB_EUSAGE, "blocking '': empty (\"default\" is the built-in one)");
    const char *p = s;
    unsigned seen = 0; /* a key given twice would have the last silently win */
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq || eq == p || eq == p + len - 1)
            return sb_errf(e, SB_EUSAGE, "blocking '%.80s': '%.*s' is not KEY=VALUE", s, (int)len,
                           p);
        size_t kl = (size_t)(eq - p), vl = len - kl - 1;
        const char *v = eq + 1;
        int *slot = NULL, lo = 0, hi = 0;
        int key = name_index(p, kl, g_blk_keys, (int)(sizeof g_blk_keys / sizeof *g_blk_keys));
        if (key >= 0 && seen & 1u << key)
            return sb_errf(e, SB_EUSAGE, "blocking '%.80s': %.*s given twice", s, (int)kl, p);
        if (key >= 0) seen |= 1u << key;
        if (kl == 5 && !strncmp(p, "order", 5)) {
            r.order = name_index(v, vl, g_order_names, 2);
            if (r.order < 0)
                return sb_errf(e, SB_EUSAGE, "blocking '%.80s': order is jr-ir or ir-jr", s);
        } else if (kl == 5 && !strncmp(p, "split", 5)) {
            r.split = name_index(v, vl, g_split_names, 3);
            if (r.split < 0)
                return sb_errf(e, SB_EUSAGE, "blocking '%.80s': split is auto, rows or cols", s);
        } else {
            if (kl == 2 && !strncmp(p, "kc", 2)) slot = &r.kc, hi = 1 << 16;
            else if (kl == 2 && !strncmp(p, "mc", 2)) slot = &r.mc, hi = 1 << 16;
            else if (kl == 2 && !strncmp(p, "nc", 2)) slot = &r.nc, hi = 1 << 16;
            else if (kl == 2 && !strncmp(p, "pf", 2)) slot = &r.pf, hi = 1024;
            else if (kl == 7 && !strncmp(p, "variant", 7)) slot = &r.variant, hi = 15;
            else
                return sb_errf(e, SB_EUSAGE,
                               "blocking '%.80s': unknown field '%.*s' (kc, mc, nc, order, pf, "
                               "split, variant)",
                               s, (int)kl, p);
            long x = 0;
            size_t i = 0;
            for (; i < vl && v[i] >= '0' && v[i] <= '9' && x <= hi; i++) x = x * 10 + (v[i] - '0');
            if (i != vl || x < lo || x > hi)
                return sb_errf(e, SB_EUSAGE, "blocking '%.80s': %.*s must be an integer %d..%d", s,
                               (int)kl, p, lo, hi);
            *slot = (int)x;
        }
        p += len;
        if (*p == ',') {
            p++;
            if (!*p) return sb_errf(e, SB_EUSAGE, "blocking '%.80s': trailing comma", s);
        }
    }
    *b = r;
    return SB_OK;
}

/* The blocking a call runs with (its own or the built-in rule), resolved.
 * The kernel's entry points (gemm_own.c) put the table's entry in d. */
static void call_blocking(const sb_ukr *u, const sb_gemm_desc *d, sb_blocking *out)
{
    blocking_resolve(u, d->m, d->n, d->k, d->blocking, out);
}

void sb_gemm_call_blocking(const sb_ukr *u, const sb_gemm_desc *d, sb_blocking *out)
{
    call_blocking(u, d, out);
}

/* ---- per-thread buffers ------------------------------------------------ */

/* Packing buffers live as long as the thread (OpenMP keeps its pool), so a
 * caller that runs the same shapes again allocates nothing. */
static _Thread_local void *tl_abuf, *tl_bbuf, *tl_sbuf;
static _Thread_local size_t tl_acap, tl_bcap, tl_scap;

/* Big buffers (sb_mem): 2 MB aligned, asked to be backed by huge pages. */
static void *grow(void **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return *buf;
    free(*buf);
    *buf = sb_alloc_big(need);
    *cap = *buf ? sb_alloc_big_size(need) : 0;
    return *buf;
}

/* ---- the driver -------------------------------------------------------- */

/* s32 tile at C (rows i0.., columns j0..) -> f32 in place (sb_dequant). */
static void dequant_tile_scalar(const sb_dequant *q, void *C, int ldc, int i0, int j0, int mre,
                                int nre)
{
    const float *bs = q->b_scale + j0, *bias = q->bias ? q->bias + j0 : NULL;
    const int32_t *cs = q->b_colsum + j0;
    for (int i = 0; i < mre; i++) {
        int32_t *ci = (int32_t *)C + (size_t)i * ldc;
        float *cf = (float *)C + (size_t)i * ldc;
        float as = q->a_scale[i0 + i];
        int32_t zp = q->a_zp[i0 + i];
        for (int j = 0; j < nre; j++) {
            /* exact in s32: |acc| and |zp * colsum| stay far below 2^31 for
             * k <= 2^15 (255 * 127 * k) */
            float v = as * bs[j] * (float)(ci[j] - zp * cs[j]);
            cf[j] = bias ? v + bias[j] : v;
        }
    }
}

/* The best epilogue this CPU runs, picked once (the forces included). */
static sb_dequant_tile_fn g_dequant;
static pthread_once_t g_dequant_once = PTHREAD_ONCE_INIT;
static void dequant_pick(void)
{
    int level = sb_cpu_vector_level();
    g_dequant = level == 2 ? sb_dequant_tile_avx512
        : level == 1       ? sb_dequant_tile_avx2
                           : dequant_tile_scalar;
}
static void dequant_tile(const sb_dequant *q, void *C, int ldc, int i0, int j0, int mre, int nre)
{
    pthread_once(&g_dequant_once, dequant_pick);
    g_dequant(q, C, ldc, i0, j0, mre, nre);
}

/* The driver's epilogue on one finished tile: dequantisation, then the bias
 * while the tile is still in cache. */
static void tile_post(const sb_tile_post *p, void *cp, int i, int j, int mre, int nre)
{
    const sb_gemm_desc *d = p->d;
    if (d->dequant) dequant_tile(d->dequant, cp, d->ldc, p->i0 + i, p->j0 + j, mre, nre);
    if (d->bias) {
        const float *bb = d->bias + p->j0 + j;
        for (int r = 0; r < mre; r++) {
            float *crow = (float *)cp + (size_t)r * d->ldc;
            for (int c = 0; c < nre; c++) crow[c] += bb[c];
        }
    }
}

typedef struct {
    const sb_ukr *u;
    const sb_gemm_desc *d;
    const void *A, *B;
    const sb_packed_b *pb;
    void *C;
    int mc, nc, kc, nt;
    int order, pf;
    int split_rows;    /* 1: threads own row ranges; 0: column panels */
    char *shared_b[2]; /* split rows: B blocks packed by all threads together
                               (double-buffered); NULL: each thread packs its own */
    int failed;
    sb_err *err;
} run_ctx;

static void thread_range(int panels, int nt, int tid, int *lo, int *hi)
{
    *lo = (int)((long)panels * tid / nt);
    *hi = (int)((long)panels * (tid + 1) / nt);
}

/* One thread's share. Splitting columns, each thread packs the B panels it
 * uses itself and no thread waits for another until the end. Splitting rows,
 * every thread needs the whole B block: with shared_b the threads pack a
 * share of it each into one buffer and meet at a barrier (two buffers, so one
 * barrier per block suffices: a thread packs block t+1 only after the
 * barrier of block t, which every thread reached having finished block t-1);
 * without, each packs all of it (cheaper only when a thread may lose its core
 * for milliseconds on a shared machine, or when blocks are few and small). */
static void run_thread(run_ctx *x, int tid, int nt)
{
    const sb_ukr *u = x->u;
    const sb_gemm_desc *d = x->d;
    const int m = d->m, n = d->n, k = d->k;
    sb_err lerr = {0};
    int ok = 1;
    if (u->thread_begin && u->thread_begin(&lerr) != SB_OK) ok = 0;

    int shared = x->shared_b[0] != NULL;
    int row_lo = 0, row_hi = m;
    if (x->split_rows) {
        int plo, phi;
        thread_range((m + u->mr - 1) / u->mr, nt, tid, &plo, &phi);
        row_lo = plo * u->mr;
        row_hi = phi * u->mr < m ? phi * u->mr : m;
    }
    int kcp_max = round_up(x->kc, u->ku);
    /* A^T's rows run along m: all of this thread's rows packed at once read
     * long contiguous runs (an MC slice would read short strided pieces) where
     * slots interleave k (bf16 pairs, int8 quads). f32 slots are the rows'
     * own floats, read as well from an MC slice, and a packed copy of every
     * row then only crowds L3 (1-2 % on A^T shapes, avx2-f32 and avx512-f32). */
    int a_whole = d->transa == 'T' && u->kg > 1;
    size_t a_need = (size_t)round_up(a_whole ? row_hi - row_lo : x->mc, u->mr) * kcp_max * u->a_esz;
    size_t b_need = x->pb || shared ? 0 : (size_t)round_up(x->nc, u->nr) * kcp_max * u->b_esz;
    void *abuf = ok ? grow(&tl_abuf, &tl_acap, a_need) : NULL;
    void *bbuf = ok && b_need ? grow(&tl_bbuf, &tl_bcap, b_need) : NULL;
    if (ok && (!abuf || (b_need && !bbuf))) {
        ok = 0;
        sb_errf(&lerr, SB_EFAIL, "out of memory for packing buffers (%zu + %zu bytes)", a_need,
                b_need);
    }
    const size_t csz = u->c_esz;
    int blk = 0;
    /* With shared B every thread must meet every barrier: the loops then run
     * on even after a failure, only the work is skipped. */
    for (int jc = 0, jci = 0; (ok || shared) && jc < n; jc += x->nc, jci++) {
        int ncur = n - jc < x->nc ? n - jc : x->nc;
        int npan = (ncur + u->nr - 1) / u->nr;
        int col_plo = 0, col_phi = npan;
        if (!x->split_rows) thread_range(npan, nt, tid, &col_plo, &col_phi);
        if (!shared && (col_phi <= col_plo || row_hi <= row_lo)) continue;
        for (int pc = 0, pci = 0; pc < k; pc += x->kc, pci++) {
            int kcur = k - pc < x->kc ? k - pc : x->kc;
            int kcp = round_up(kcur, u->ku);
            size_t bpan = (size_t)kcp * u->nr * u->b_esz;
            size_t apan = (size_t)kcp * u->mr * u->a_esz;
            const char *bblk; /* panel jp at bblk + jp * bpan */
            if (shared) {
                char *sb = x->shared_b[blk++ & 1];
                int plo, phi;
                thread_range(npan, nt, tid, &plo, &phi);
                if (ok && phi > plo)
                    u->pack_b(d, x->B, pc, kcur, kcp, jc + plo * u->nr,
                              (phi * u->nr < ncur ? phi * u->nr : ncur) - plo * u->nr,
                              sb + (size_t)plo * bpan);
#pragma omp barrier
                if (!ok || row_hi <= row_lo) continue;
                bblk = sb;
            } else if (x->pb) {
                bblk = (const char *)x->pb->buf + x->pb->off[jci * x->pb->npc + pci];
            } else {
                int j0 = jc + col_plo * u->nr;
                int jn = (col_phi * u->nr < ncur ? col_phi * u->nr : ncur) - col_plo * u->nr;
                u->pack_b(d, x->B, pc, kcur, kcp, j0, jn, bbuf);
                bblk = (const char *)bbuf - (size_t)col_plo * bpan;
            }
            if (a_whole) u->pack_a(d, x->A, row_lo, row_hi - row_lo, pc, kcur, kcp, abuf);
            float beta = pc == 0 ? d->beta : 1.0f;
            int last_kc = pc + x->kc >= k;
            for (int ic = row_lo; ic < row_hi; ic += x->mc) {
                int mcur = row_hi - ic < x->mc ? row_hi - ic : x->mc;
                const char *ablk = a_whole ? (const char *)abuf + ((ic - row_lo) / u->mr) * apan
                                           : abuf;
                if (!a_whole) u->pack_a(d, x->A, ic, mcur, pc, kcur, kcp, abuf);
                if (u->block) {
                    /* the kernel's own loops over this block (AMX) */
                    int j_lo = col_plo * u->nr;
                    int j_hi = col_phi * u->nr < ncur ? col_phi * u->nr : ncur;
                    sb_tile_post post = {tile_post, d, ic, jc + j_lo};
                    u->block(kcp, ablk, apan, mcur, bblk + (size_t)col_plo * bpan, bpan,
                             j_hi - j_lo, (char *)x->C + ((size_t)ic * d->ldc + jc + j_lo) * csz,
                             d->ldc, d->alpha, beta,
                             last_kc && (d->dequant || d->bias) ? &post : NULL);
                    continue;
                }
                int nmp = (mcur + u->mr - 1) / u->mr, njp = col_phi - col_plo;
                int ir_outer = x->order == SB_ORDER_IR_JR;
                int n_out = ir_outer ? nmp : njp, n_in = ir_outer ? njp : nmp;
                /* the micro-tiles of this block, in the order asked */
                for (int to = 0; to < n_out; to++) {
                    for (int ti = 0; ti < n_in; ti++) {
                        int irp = ir_outer ? to : ti, jp = col_plo + (ir_outer ? ti : to);
                        int ir = irp * u->mr, jr = jp * u->nr;
                        int nre = ncur - jr < u->nr ? ncur - jr : u->nr;
                        int mre = mcur - ir < u->mr ? mcur - ir : u->mr;
                        const char *bp = bblk + jp * bpan;
                        const char *ap = ablk + (size_t)irp * apan;
                        if (x->pf) {
                            /* the next tile's A micro-panel (wrapping to the first) */
                            int nirp = ir_outer ? (ti + 1 < n_in ? to : (to + 1 < nmp ? to + 1 : 0))
                                                : (ti + 1 < n_in ? ti + 1 : 0);
                            const char *na = ablk + (size_t)nirp * apan;
                            size_t lines = apan / 64 < (size_t)x->pf ? apan / 64 : (size_t)x->pf;
                            for (size_t l = 0; l < lines; l++)
                                __builtin_prefetch(na + l * 64, 0, 2);
                        }
                        char *cp = (char *)x->C + ((size_t)(ic + ir) * d->ldc + jc + jr) * csz;
                        u->kernel(kcp, ap, bp, cp, d->ldc, mre, nre, d->alpha, beta);
                        if (last_kc && (d->dequant || d->bias)) {
                            sb_tile_post post = {tile_post, d, ic, jc};
                            tile_post(&post, cp, ir, jr, mre, nre);
                        }
                    }
                }
            }
        }
    }
    if (u->thread_end) {
        sb_err te = {0};
        if (u->thread_end(&te) != SB_OK) {
            if (ok) lerr = te;
            ok = 0;
        }
    }
    if (!ok) {
#pragma omp critical(sb_gemm_err)
        {
            if (x->err && x->err->code == SB_OK) *x->err = lerr;
            x->failed = 1;
        }
    }
}

/* Threads split whichever dimension divides into their number of panels more
 * evenly; when both do, the one whose other operand is smaller, since every
 * thread packs that one whole (rows: all of B; columns: all of A). */
static int choose_split_rows(const sb_ukr *u, int m, int n, int ncols, int nt)
{
    int pm = (m + u->mr - 1) / u->mr, pn = (ncols + u->nr - 1) / u->nr;
    double em = (double)pm / (nt * ((pm + nt - 1) / nt));
    double en = (double)pn / (nt * ((pn + nt - 1) / nt));
    if (em > en + 0.03) return 1;
    if (en > em + 0.03) return 0;
    return n <= m;
}

int sb_gemm_run(const sb_ukr *u, const sb_gemm_desc *d, const void *A, const void *B,
                const sb_packed_b *pb, void *C, sb_err *e)
{
    int rc = sb_gemm_desc_check(d, e);
    if (rc) return rc;
    run_ctx x = {.u = u, .d = d, .A = A, .B = B, .pb = pb, .C = C, .err = e};
    sb_blocking bl;
    call_blocking(u, d, &bl);
    x.mc = bl.mc;
    x.nc = bl.nc;
    x.kc = bl.kc;
    x.order = bl.order;
    x.pf = bl.pf;
    if (pb) {
        x.nc = pb->nc;
        x.kc = pb->kc;
    }
    x.nt = d->threads > 0 ? d->threads : omp_get_max_threads();
    /* A thread's share must outweigh waking it (a fork/join costs microseconds,
     * and far more when the machine is oversubscribed): about 1 MFLOP each. */
    double flops = 2.0 * d->m * d->n * d->k;
    if (x.nt > 1 && flops / x.nt < 1e6) x.nt = flops >= 2e6 ? (int)(flops / 1e6) : 1;
    if (x.nt < 1) x.nt = 1;
    x.split_rows = x.nt == 1 || bl.split == SB_SPLIT_ROWS ||
                   (bl.split != SB_SPLIT_COLS &&
                    choose_split_rows(u, d->m, d->n, d->n < x.nc ? d->n : x.nc, x.nt));
    pthread_once(&g_env_once, env_init);
    if (x.nt > 1 && x.split_rows && !pb && !g_env_private_b) {
        /* the calling thread's pair of shared B buffers, kept for its next calls */
        size_t one = (size_t)round_up(x.nc, u->nr) * round_up(x.kc, u->ku) * u->b_esz;
        one = (one + 63) & ~(size_t)63;
        char *buf = grow(&tl_sbuf, &tl_scap, 2 * one);
        if (buf) {
            x.shared_b[0] = buf;
            x.shared_b[1] = buf + one;
        }
    }
    sb_err_clear(e);
    if (x.nt == 1) {
        run_thread(&x, 0, 1);
    } else {
/* the runtime may give fewer threads than asked (nested regions) */
#pragma omp parallel num_threads(x.nt)
        run_thread(&x, omp_get_thread_num(), omp_get_num_threads());
    }
    if (x.failed) {
        if (e && e->code == SB_OK) sb_errf(e, SB_EFAIL, "%s: GEMM failed", u->name);
        return e ? e->code : SB_EFAIL;
    }
    return SB_OK;
}

/* ---- pre-packed B ------------------------------------------------------ */

int sb_gemm_desc_for_pack(const sb_gemm_desc *d, sb_gemm_desc *out, sb_err *e)
{
    *out = *d;
    if (out->m <= 0) out->m = 1;
    if (out->lda <= 0) out->lda = out->transa == 'N' ? out->k : out->m;
    if (out->ldc <= 0) out->ldc = out->n;
    return sb_gemm_desc_check(out, e);
}

int sb_gemm_pack_b_whole(const sb_ukr *u, const void *owner, const sb_gemm_desc *d, const void *B,
                         sb_packed_b **out, sb_err *e)
{
    *out = NULL;
    sb_gemm_desc dd;
    int rc = sb_gemm_desc_for_pack(d, &dd, e);
    if (rc) return rc;
    sb_packed_b *p = calloc(1, sizeof *p);
    if (!p) return sb_errf(e, SB_EFAIL, "out of memory");
    sb_blocking bl;
    call_blocking(u, &dd, &bl);
    p->nc = bl.nc;
    p->kc = bl.kc;
    p->owner = owner;
    p->k = dd.k;
    p->n = dd.n;
    p->ldb = dd.ldb;
    p->transb = dd.transb;
    p->njc = (dd.n + p->nc - 1) / p->nc;
    p->npc = (dd.k + p->kc - 1) / p->kc;
    p->off = calloc((size_t)p->njc * p->npc, sizeof *p->off);
    size_t total = 0;
    for (int jc = 0, ji = 0; jc < dd.n; jc += p->nc, ji++) {
        int ncur = dd.n - jc < p->nc ? dd.n - jc : p->nc;
        for (int pc = 0, pi = 0; pc < dd.k; pc += p->kc, pi++) {
            int kcur = dd.k - pc < p->kc ? dd.k - pc : p->kc;
            if (p->off) p->off[ji * p->npc + pi] = total;
            total += (size_t)round_up(ncur, u->nr) * round_up(kcur, u->ku) * u->b_esz;
        }
    }
    p->buf = aligned_alloc(4096, (total + 4095) & ~(size_t)4095);
    if (!p->off || !p->buf) {
        sb_packed_b_free(p);
        return sb_errf(e, SB_EFAIL, "out of memory for packed B (%zu bytes)", total);
    }
    for (int jc = 0, ji = 0; jc < dd.n; jc += p->nc, ji++) {
        int ncur = dd.n - jc < p->nc ? dd.n - jc : p->nc;
        for (int pc = 0, pi = 0; pc < dd.k; pc += p->kc, pi++) {
            int kcur = dd.k - pc < p->kc ? dd.k - pc : p->kc;
            u->pack_b(&dd, B, pc, kcur, round_up(kcur, u->ku), jc, ncur,
                      (char *)p->buf + p->off[ji * p->npc + pi]);
        }
    }
    *out = p;
    return SB_OK;
}

int sb_packed_b_check(const sb_packed_b *pb, const void *owner, const sb_gemm_desc *d, sb_err *e)
{
    if (!pb) return sb_errf(e, SB_EUSAGE, "no packed B given");
    if (pb->owner != owner) return sb_errf(e, SB_EUSAGE, "packed B was made by another kernel");
    if (pb->k != d->k || pb->n != d->n || pb->transb != d->transb || pb->ldb != d->ldb)
        return sb_errf(e, SB_EUSAGE,
                       "packed B is %dx%d (trans %c, ldb %d), the call wants %dx%d (trans %c, "
                       "ldb %d)",
                       pb->k, pb->n, pb->transb, pb->ldb, d->k, d->n, d->transb, d->ldb);
    return SB_OK;
}

void sb_packed_b_free(sb_packed_b *p)
{
    if (!p) return;
    if (p->ext_free) p->ext_free(p->ext);
    free(p->off);
    free(p->buf);
    free(p);
}

void sb_gemm_add_bias(const sb_gemm_desc *d, float *C)
{
    if (!d->bias) return;
    int nt = d->threads > 0 ? d->threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1 && (long)d->m * d->n > 65536)
    for (int i = 0; i < d->m; i++) {
        float *c = C + (size_t)i * d->ldc;
        for (int j = 0; j < d->n; j++) c[j] += d->bias[j];
    }
}

void sb_gemm_apply_dequant(const sb_gemm_desc *d, void *C)
{
    if (!d->dequant) return;
    int nt = d->threads > 0 ? d->threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1 && (long)d->m * d->n > 65536)
    for (int i = 0; i < d->m; i++)
        dequant_tile(d->dequant, (int32_t *)C + (size_t)i * d->ldc, d->ldc, i, 0, 1, d->n);
}

int sb_gemm_check_int8(const sb_gemm_desc *d, sb_err *e)
{
    if (d->bias)
        return sb_errf(e, SB_EUSAGE,
                       "int8 GEMM takes no f32 bias (give it in the dequant epilogue)");
    if (d->dequant &&
        (d->beta != 0.0f || !d->dequant->a_scale || !d->dequant->a_zp || !d->dequant->b_scale ||
         !d->dequant->b_colsum))
        return sb_errf(e, SB_EUSAGE,
                       "int8 GEMM dequant epilogue: beta must be 0 and every "
                       "scale, zero point and column sum given");
    if (d->beta != 0.0f && d->beta != 1.0f)
        return sb_errf(e, SB_EUSAGE, "int8 GEMM takes beta 0 or 1 (got %g)", d->beta);
    return sb_gemm_desc_check(d, e);
}
