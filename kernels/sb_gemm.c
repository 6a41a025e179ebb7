#include "sb_gemm.h"
#include "sb_cpu.h"
#include "sb_dequant.h"
#include "sb_mem.h"
#include <cpuid.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- cache sizes ------------------------------------------------------- */

static size_t g_l1 = 32 << 10, g_l2 = 1 << 20, g_l3 = 8 << 20;
static pthread_once_t g_cache_once = PTHREAD_ONCE_INIT;

/* CPUID leaf 4 (Intel) and 0x8000001D (AMD) share the layout: type in EAX[4:0],
 * level in EAX[7:5], ways/partitions/line size/sets in EBX/ECX. */
static void cache_leaf(unsigned leaf)
{
    for (unsigned sub = 0; sub < 16; sub++) {
        unsigned a, b, c, d;
        __cpuid_count(leaf, sub, a, b, c, d);
        unsigned type = a & 31, level = (a >> 5) & 7;
        if (type == 0) break;
        if (type == 2) continue;   /* instruction cache */
        size_t size = (size_t)((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) *
                      ((b & 0xfff) + 1) * ((size_t)c + 1);
        if (level == 1) g_l1 = size;
        else if (level == 2) g_l2 = size;
        else if (level == 3) g_l3 = size;
    }
}

static void cache_detect(void)
{
    unsigned a, b, c, d;
    __cpuid(0, a, b, c, d);
    unsigned max_leaf = a;
    int amd = b == 0x68747541;   /* "Auth" */
    __cpuid(0x80000000, a, b, c, d);
    if (amd && a >= 0x8000001D) {
        __cpuid(0x80000001, a, b, c, d);
        if ((c >> 22) & 1) {   /* TopologyExtensions: leaf 0x8000001D valid */
            cache_leaf(0x8000001D);
            return;
        }
    }
    if (max_leaf >= 4) cache_leaf(4);
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

int sb_kernel_forced_off(const char *flag)
{
    char name[64] = "SB_FORCE_NO_";
    strncat(name, flag, sizeof name - strlen(name) - 1);
    const char *v = getenv(name);
    return v && v[0] && strcmp(v, "0") != 0;
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
 * a quarter of L3 (shared by the threads). */
void sb_gemm_blocking(const sb_ukr *u, int m, int n, int k, int *mc, int *nc, int *kc)
{
    size_t l1, l2, l3;
    sb_gemm_get_cache_sizes(&l1, &l2, &l3);
    pthread_once(&g_env_once, env_init);
    (void)l1;
    long kc_cap = (long)(l2 / 8 / ((size_t)u->nr * u->b_esz));
    if (g_env_kc > 0) kc_cap = g_env_kc;
    if (u->kc_max && kc_cap > u->kc_max) kc_cap = u->kc_max;
    if (kc_cap < u->ku) kc_cap = u->ku;
    int kcv = balanced_block(k, (int)kc_cap, u->ku);
    /* k a little over one block: one block beats a thin second pass */
    if (k <= kc_cap + kc_cap / 4) kcv = round_up(k, u->ku);
    long mc_cap = (long)(l2 * (u->a_l2_pct ? (size_t)u->a_l2_pct : 150) / 100 /
                         ((size_t)kcv * u->a_esz));
    if (g_env_mc > 0) mc_cap = g_env_mc;
    int mcv = balanced_block(m, (int)(mc_cap / u->mr * u->mr), u->mr);
    long nc_cap = (long)(l3 / 4 / ((size_t)kcv * u->b_esz));
    if (g_env_nc > 0) nc_cap = g_env_nc;
    if (nc_cap > 8192) nc_cap = 8192;
    int ncv = balanced_block(n, (int)(nc_cap / u->nr * u->nr), u->nr);
    *mc = mcv;
    *nc = ncv;
    *kc = kcv;
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
    const sb_cpu *c = sb_cpu_get();
    g_dequant = c->avx512f && c->avx512bw && c->avx512vl && c->avx512dq && c->os_avx512
                    ? sb_dequant_tile_avx512
                : c->avx2 && c->fma && c->os_avx ? sb_dequant_tile_avx2
                                                 : dequant_tile_scalar;
}
static void dequant_tile(const sb_dequant *q, void *C, int ldc, int i0, int j0, int mre,
                         int nre)
{
    pthread_once(&g_dequant_once, dequant_pick);
    g_dequant(q, C, ldc, i0, j0, mre, nre);
}

typedef struct {
    const sb_ukr *u;
    const sb_gemm_desc *d;
    const void *A, *B;
    const sb_packed_b *pb;
    void *C;
    int mc, nc, kc, nt;
    int split_rows;         /* 1: threads own row ranges; 0: column panels */
    char *shared_b[2];      /* split rows: B blocks packed by all threads together
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
    size_t a_need = (size_t)round_up(a_whole ? row_hi - row_lo : x->mc, u->mr) * kcp_max *
                    u->a_esz;
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
            const char *bblk;   /* panel jp at bblk + jp * bpan */
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
                for (int jp = col_plo; jp < col_phi; jp++) {
                    int jr = jp * u->nr;
                    int nre = ncur - jr < u->nr ? ncur - jr : u->nr;
                    const char *bp = bblk + jp * bpan;
                    for (int ir = 0; ir < mcur; ir += u->mr) {
                        int mre = mcur - ir < u->mr ? mcur - ir : u->mr;
                        char *cp = (char *)x->C + ((size_t)(ic + ir) * d->ldc + jc + jr) * csz;
                        u->kernel(kcp, ablk + (ir / u->mr) * apan, bp, cp, d->ldc, mre, nre,
                                  d->alpha, beta);
                        if (last_kc && d->dequant)
                            dequant_tile(d->dequant, cp, d->ldc, ic + ir, jc + jr, mre, nre);
                        /* the bias while the tile is still in cache */
                        if (last_kc && d->bias) {
                            const float *bb = d->bias + jc + jr;
                            for (int i = 0; i < mre; i++) {
                                float *crow = (float *)cp + (size_t)i * d->ldc;
                                for (int j = 0; j < nre; j++) crow[j] += bb[j];
                            }
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
    sb_gemm_blocking(u, d->m, d->n, d->k, &x.mc, &x.nc, &x.kc);
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
    x.split_rows = x.nt == 1 || choose_split_rows(u, d->m, d->n, d->n < x.nc ? d->n : x.nc, x.nt);
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

int sb_gemm_pack_b_whole(const sb_ukr *u, const void *owner, const sb_gemm_desc *d,
                         const void *B, sb_packed_b **out, sb_err *e)
{
    *out = NULL;
    sb_gemm_desc dd = *d;
    if (dd.m <= 0) dd.m = 1;
    if (dd.lda <= 0) dd.lda = dd.transa == 'N' ? dd.k : dd.m;
    if (dd.ldc <= 0) dd.ldc = dd.n;
    int rc = sb_gemm_desc_check(&dd, e);
    if (rc) return rc;
    sb_packed_b *p = calloc(1, sizeof *p);
    if (!p) return sb_errf(e, SB_EFAIL, "out of memory");
    int mc;
    sb_gemm_blocking(u, dd.m, dd.n, dd.k, &mc, &p->nc, &p->kc);
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

int sb_packed_b_check(const sb_packed_b *pb, const void *owner, const sb_gemm_desc *d,
                      sb_err *e)
{
    if (!pb) return sb_errf(e, SB_EUSAGE, "no packed B given");
    if (pb->owner != owner)
        return sb_errf(e, SB_EUSAGE, "packed B was made by another kernel");
    if (pb->k != d->k || pb->n != d->n || pb->transb != d->transb || pb->ldb != d->ldb)
        return sb_errf(e, SB_EUSAGE,
                       "packed B is %dx%d (trans %c, ldb %d), the call wants %dx%d (trans %c, "
                       "ldb %d)", pb->k, pb->n, pb->transb, pb->ldb, d->k, d->n, d->transb,
                       d->ldb);
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
        return sb_errf(e, SB_EUSAGE, "int8 GEMM takes no f32 bias (give it in the dequant epilogue)");
    if (d->dequant && (d->beta != 0.0f || !d->dequant->a_scale || !d->dequant->a_zp ||
                       !d->dequant->b_scale || !d->dequant->b_colsum))
        return sb_errf(e, SB_EUSAGE, "int8 GEMM dequant epilogue: beta must be 0 and every "
                                     "scale, zero point and column sum given");
    if (d->beta != 0.0f && d->beta != 1.0f)
        return sb_errf(e, SB_EUSAGE, "int8 GEMM takes beta 0 or 1 (got %g)", d->beta);
    return sb_gemm_desc_check(d, e);
}

/* ---- packers ----------------------------------------------------------- */

/* Every packed layout is made of 32-bit slots (1 f32, 2 bf16 or 4 int8 k
 * values), so two SSE2 shapes (baseline x86-64: safe before any probe) cover
 * all of them:
 *  - slot transpose: source rows run along k (op(A) when 'N', op(B) when
 *    'T'); 4 rows x 4 slots are loaded and transposed 4x4;
 *  - row interleave: source rows run along the panel (op(A) when 'T', op(B)
 *    when 'N'); kg consecutive k rows are interleaved into slots.
 * Edges (partial panels, k tails) go through the scalar put(). */
#include <emmintrin.h>

typedef struct { sb_src_type src; int bf16; } conv_t;

static inline void put(void *dst, size_t idx, const void *X, size_t sidx, conv_t cv)
{
    switch (cv.src) {
    case SB_SRC_F32: {
        float f = ((const float *)X)[sidx];
        if (cv.bf16) ((uint16_t *)dst)[idx] = sb_f32_to_bf16(f);
        else ((float *)dst)[idx] = f;
        break;
    }
    case SB_SRC_BF16: ((uint16_t *)dst)[idx] = ((const uint16_t *)X)[sidx]; break;
    case SB_SRC_U8:
    case SB_SRC_S8: ((uint8_t *)dst)[idx] = ((const uint8_t *)X)[sidx]; break;
    }
}

static size_t dst_esz(conv_t cv)
{
    if (cv.src == SB_SRC_U8 || cv.src == SB_SRC_S8) return 1;
    return cv.src == SB_SRC_BF16 || cv.bf16 ? 2 : 4;
}
static size_t src_esz(conv_t cv)
{
    return cv.src == SB_SRC_F32 ? 4 : cv.src == SB_SRC_BF16 ? 2 : 1;
}

/* 8 f32 -> 8 bf16 (nearest even; NaN stays a quiet NaN), as sb_f32_to_bf16. */
static inline __m128i cvt8_bf16(__m128i a, __m128i b)
{
    const __m128i bias = _mm_set1_epi32(0x7fff), one = _mm_set1_epi32(1);
    const __m128i absm = _mm_set1_epi32(0x7fffffff), inf = _mm_set1_epi32(0x7f800000);
    const __m128i quiet = _mm_set1_epi32(0x00400000);
    __m128i r[2], x[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        __m128i t = _mm_add_epi32(x[i], _mm_add_epi32(bias, _mm_and_si128(_mm_srli_epi32(x[i], 16), one)));
        __m128i nan = _mm_cmpgt_epi32(_mm_and_si128(x[i], absm), inf);
        t = _mm_or_si128(_mm_and_si128(nan, _mm_or_si128(x[i], quiet)), _mm_andnot_si128(nan, t));
        r[i] = _mm_srai_epi32(t, 16);   /* sign-extended, so packs is exact */
    }
    return _mm_packs_epi32(r[0], r[1]);
}

static inline void transpose_store(__m128i r0, __m128i r1, __m128i r2, __m128i r3, char *dst,
                                   size_t slot_stride)
{
    __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3);
    __m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
    _mm_storeu_si128((__m128i *)dst, _mm_unpacklo_epi64(t0, t1));
    _mm_storeu_si128((__m128i *)(dst + slot_stride), _mm_unpackhi_epi64(t0, t1));
    _mm_storeu_si128((__m128i *)(dst + 2 * slot_stride), _mm_unpacklo_epi64(t2, t3));
    _mm_storeu_si128((__m128i *)(dst + 3 * slot_stride), _mm_unpackhi_epi64(t2, t3));
}

/* Panel of R rows (nrows real) from source rows along k: X row r at
 * X + r*ld elements, k from p0. Slot (s, r) at dst + (s*R + r)*4. All R rows
 * advance together, so the hardware sees R sequential streams at once. */
static void pack_slot_transpose(const void *X, int ld, conv_t cv, int R, int nrows, int p0,
                                int kc, int kcp, int kg, void *dst)
{
    size_t es = dst_esz(cv), ses = src_esz(cv);
    if (nrows < R || kc < kcp) memset(dst, 0, (size_t)R * kcp * es);
    const char *base = (const char *)X + (size_t)p0 * ses;
    const size_t rs = (size_t)ld * ses;
    int full = (R % 4 == 0 && nrows == R) ? kc / (4 * kg) * 4 * kg : 0;   /* k done by SIMD */
    const int cvt = cv.src == SB_SRC_F32 && cv.bf16;
    for (int p = 0; p < full; p += 4 * kg) {
        if ((p & 15) == 0)
            for (int r = 0; r < R; r++) _mm_prefetch(base + r * rs + (size_t)(p + 128) * ses, _MM_HINT_T0);
        char *o = (char *)dst + (size_t)(p / kg) * R * 4;
        if (cvt) {
            for (int r = 0; r < R; r += 4) {
                const float *x0 = (const float *)(base + r * rs) + p;
                const float *x1 = (const float *)((const char *)x0 + rs);
                const float *x2 = (const float *)((const char *)x1 + rs);
                const float *x3 = (const float *)((const char *)x2 + rs);
#define SB_LD8(x) cvt8_bf16(_mm_loadu_si128((const __m128i *)(x)), _mm_loadu_si128((const __m128i *)((x) + 4)))
                transpose_store(SB_LD8(x0), SB_LD8(x1), SB_LD8(x2), SB_LD8(x3), o + (size_t)r * 4,
                                (size_t)R * 4);
#undef SB_LD8
            }
        } else {
            /* 16 source bytes are 4 slots as they are */
            for (int r = 0; r < R; r += 4) {
                const char *x0 = base + r * rs + (size_t)p * ses;
                transpose_store(_mm_loadu_si128((const __m128i *)x0),
                                _mm_loadu_si128((const __m128i *)(x0 + rs)),
                                _mm_loadu_si128((const __m128i *)(x0 + 2 * rs)),
                                _mm_loadu_si128((const __m128i *)(x0 + 3 * rs)),
                                o + (size_t)r * 4, (size_t)R * 4);
            }
        }
    }
    for (int r = 0; r < nrows; r++)
        for (int p = full; p < kc; p++)
            put(dst, ((size_t)(p / kg) * R + r) * kg + p % kg, base, (size_t)r * ld + p, cv);
}

/* kg source rows (k = p .. p+kg-1), columns [0, n): slots in column order.
 * One loop per conversion, so no branch runs per element. */
static void interleave_rows(const char *r0, size_t rs, conv_t cv, int kg, int n, uint32_t *out)
{
    int c = 0;
    char *o = (char *)out;
    if (kg == 2 && cv.src == SB_SRC_F32) {
        const float *a = (const float *)r0, *b = (const float *)(r0 + rs);
        for (; c + 8 <= n; c += 8) {
            __m128i x = cvt8_bf16(_mm_loadu_si128((const __m128i *)(a + c)),
                                  _mm_loadu_si128((const __m128i *)(a + c + 4)));
            __m128i y = cvt8_bf16(_mm_loadu_si128((const __m128i *)(b + c)),
                                  _mm_loadu_si128((const __m128i *)(b + c + 4)));
            _mm_storeu_si128((__m128i *)(o + (size_t)c * 4), _mm_unpacklo_epi16(x, y));
            _mm_storeu_si128((__m128i *)(o + (size_t)c * 4 + 16), _mm_unpackhi_epi16(x, y));
        }
    } else if (kg == 2) {
        const char *a = r0, *b = r0 + rs;
        for (; c + 8 <= n; c += 8) {
            __m128i x = _mm_loadu_si128((const __m128i *)(a + (size_t)c * 2));
            __m128i y = _mm_loadu_si128((const __m128i *)(b + (size_t)c * 2));
            _mm_storeu_si128((__m128i *)(o + (size_t)c * 4), _mm_unpacklo_epi16(x, y));
            _mm_storeu_si128((__m128i *)(o + (size_t)c * 4 + 16), _mm_unpackhi_epi16(x, y));
        }
    } else if (kg == 4) {
        for (; c + 16 <= n; c += 16) {
            __m128i a = _mm_loadu_si128((const __m128i *)(r0 + c));
            __m128i b = _mm_loadu_si128((const __m128i *)(r0 + rs + c));
            __m128i q = _mm_loadu_si128((const __m128i *)(r0 + 2 * rs + c));
            __m128i d = _mm_loadu_si128((const __m128i *)(r0 + 3 * rs + c));
            __m128i ab0 = _mm_unpacklo_epi8(a, b), ab1 = _mm_unpackhi_epi8(a, b);
            __m128i cd0 = _mm_unpacklo_epi8(q, d), cd1 = _mm_unpackhi_epi8(q, d);
            char *oc = o + (size_t)c * 4;
            _mm_storeu_si128((__m128i *)oc, _mm_unpacklo_epi16(ab0, cd0));
            _mm_storeu_si128((__m128i *)(oc + 16), _mm_unpackhi_epi16(ab0, cd0));
            _mm_storeu_si128((__m128i *)(oc + 32), _mm_unpacklo_epi16(ab1, cd1));
            _mm_storeu_si128((__m128i *)(oc + 48), _mm_unpackhi_epi16(ab1, cd1));
        }
    } else {
        for (; c + 4 <= n; c += 4)
            _mm_storeu_si128((__m128i *)(o + (size_t)c * 4),
                             _mm_loadu_si128((const __m128i *)(r0 + (size_t)c * 4)));
    }
    for (; c < n; c++)
        for (int q = 0; q < kg; q++) put(out, (size_t)c * kg + q, r0, (size_t)q * rs / src_esz(cv) + c, cv);
}

/* R*4 bytes (24, 48, 64 or 128) from t to o: inline moves beat a memcpy call. */
static inline void copy_slots(char *o, const char *t, int w)
{
    int bytes = w * 4, b = 0;
    for (; b + 16 <= bytes; b += 16)
        _mm_storeu_si128((__m128i *)(o + b), _mm_loadu_si128((const __m128i *)(t + b)));
    if (b + 8 <= bytes) {   /* the 6-wide AVX2 panels: 16 + 8 */
        memcpy(o + b, t + b, 8);
        b += 8;
    }
    for (; b < bytes; b += 4) memcpy(o + b, t + b, 4);
}

/* ceil(ncols/R) panels of R columns from source rows along the panels: k row
 * p at X + (p0+p)*ld elements, columns from 0. Slot (s, c) of panel q holds k
 * rows s*kg .. s*kg+kg-1 of column q*R + c. Each source row is read once,
 * contiguously, across all panels (a strip per panel would stride through
 * memory and the TLB). */
static void pack_interleave_via_tmp(const char *base, size_t rs, conv_t cv, int R, int ncols,
                                    int npan, size_t pan_bytes, int kfull, int kg, void *dst);
#define SB_PACK_COLS 512
#define SB_PACK_GROUPS 16
#ifndef SB_PACK_ROWS
#define SB_PACK_ROWS 8
#endif
static void pack_row_interleave(const void *X, int ld, conv_t cv, int R, int ncols, int p0,
                                int kc, int kcp, int kg, void *dst)
{
    size_t es = dst_esz(cv), ses = src_esz(cv);
    int npan = (ncols + R - 1) / R;
    size_t pan_bytes = (size_t)R * kcp * es;
    if (ncols % R || kc < kcp) {
        for (int q = 0; q < npan; q++)
            if ((q + 1) * R > ncols || kc < kcp) memset((char *)dst + q * pan_bytes, 0, pan_bytes);
    }
    const char *base = (const char *)X + (size_t)p0 * ld * ses;
    const size_t rs = (size_t)ld * ses;
    int kfull = kc / kg * kg;
    if (kg == 1 && cv.src == SB_SRC_F32 && !cv.bf16) {
        /* slots are the source's own floats: straight from the rows,
         * SB_PACK_ROWS rows at a time, so that each panel receives one
         * contiguous run of slot rows (a row at a time wrote R floats into
         * every panel in turn, far apart: twice the time for 768 A^T rows).
         * The same columns two blocks down are fetched meanwhile: the rows
         * are far apart, so the hardware does not see them coming (+3 % on
         * a 768x768x3072 A^T.B). */
        for (int p0 = 0; p0 < kc; p0 += SB_PACK_ROWS) {
            int pn = kc - p0 < SB_PACK_ROWS ? kc - p0 : SB_PACK_ROWS;
            const char *rows = base + (size_t)p0 * rs;
            for (int q = 0; q < npan; q++) {
                int w = ncols - q * R < R ? ncols - q * R : R;
                char *o = (char *)dst + q * pan_bytes + (size_t)p0 * R * 4;
                const char *x = rows + (size_t)q * R * 4;
                for (int p = 0; p < pn; p++) {
                    _mm_prefetch(x + (size_t)(p + 2 * SB_PACK_ROWS) * rs, _MM_HINT_T0);
                    copy_slots(o + (size_t)p * R * 4, x + (size_t)p * rs, w);
                }
            }
        }
        return;
    }
    int step = kg == 1 ? 4 : kg == 2 ? 8 : 16;
    if (R % step == 0) {
        /* a panel row is a whole number of SIMD steps: interleave in place */
        for (int p = 0; p < kfull; p += kg) {
            const char *row = base + (size_t)p * rs;
            for (int q = 0; q < npan; q++) {
                int w = ncols - q * R < R ? ncols - q * R : R;
                interleave_rows(row + (size_t)q * R * ses, rs, cv, kg, w,
                                (uint32_t *)((char *)dst + q * pan_bytes + (size_t)(p / kg) * R * 4));
            }
        }
    } else {
        pack_interleave_via_tmp(base, rs, cv, R, ncols, npan, pan_bytes, kfull, kg, dst);
    }
    for (int p = kfull; p < kc; p++)
        for (int c = 0; c < ncols; c++) {
            int q = c / R, j = c % R;
            put((char *)dst + q * pan_bytes, ((size_t)(p / kg) * R + j) * kg + p % kg, base,
                (size_t)p * ld + c, cv);
        }
}

/* Panels whose rows are not whole SIMD steps (R = 12 with bf16 or int8): up
 * to 16 k groups x a strip of columns are interleaved into tmp, then each
 * panel receives its slot rows as one contiguous run. */
static void pack_interleave_via_tmp(const char *base, size_t rs, conv_t cv, int R, int ncols,
                                    int npan, size_t pan_bytes, int kfull, int kg, void *dst)
{
    (void)npan;
    size_t ses = src_esz(cv);
    static _Thread_local uint32_t tmp[SB_PACK_GROUPS][SB_PACK_COLS];
    int chunk = SB_PACK_COLS / R * R;
    for (int c0 = 0; c0 < ncols; c0 += chunk) {
        int cn = ncols - c0 < chunk ? ncols - c0 : chunk;
        for (int p = 0; p < kfull; p += SB_PACK_GROUPS * kg) {
            int ng = (kfull - p) / kg < SB_PACK_GROUPS ? (kfull - p) / kg : SB_PACK_GROUPS;
            for (int g = 0; g < ng; g++)
                interleave_rows(base + (size_t)(p + g * kg) * rs + (size_t)c0 * ses, rs, cv, kg,
                                cn, tmp[g]);
            for (int c = 0; c < cn; c += R) {
                int q = (c0 + c) / R, w = cn - c < R ? cn - c : R;
                char *o = (char *)dst + q * pan_bytes + (size_t)(p / kg) * R * 4;
                for (int g = 0; g < ng; g++, o += (size_t)R * 4)
                    copy_slots(o, (const char *)(tmp[g] + c), w);
            }
        }
    }
}

static const void *elem_ptr(const void *X, conv_t cv, size_t idx)
{
    return (const char *)X + idx * src_esz(cv);
}

/* VNNI panels of r rows or columns of op(X) starting at x0: a matrix whose
 * k runs down its rows (A^T, B) is interleaved row by row; one whose k runs
 * along its rows (A, B^T) is transposed slot by slot. A and B differ only
 * in which transpose is which. */
static void pack_vnni(const void *X, int ld, int k_down_rows, conv_t cv, int r, int kg, int x0,
                      int xc, int p0, int kc, int kcp, void *dst)
{
    size_t es = dst_esz(cv);
    if (k_down_rows) {
        pack_row_interleave(elem_ptr(X, cv, x0), ld, cv, r, xc, p0, kc, kcp, kg, dst);
        return;
    }
    for (int q = 0; q * r < xc; q++) {
        char *pan = (char *)dst + (size_t)q * r * kcp * es;
        int cnt = xc - q * r < r ? xc - q * r : r;
        int first = x0 + q * r;
        pack_slot_transpose(elem_ptr(X, cv, (size_t)first * ld), ld, cv, r, cnt, p0, kc, kcp, kg,
                            pan);
    }
}

void sb_pack_a_vnni(const sb_gemm_desc *d, const void *A, sb_src_type src, int dst_bf16,
                    int mr, int kg, int i0, int mc, int p0, int kc, int kcp, void *dst)
{
    conv_t cv = {src, dst_bf16};
    pack_vnni(A, d->lda, d->transa == 'T', cv, mr, kg, i0, mc, p0, kc, kcp, dst);
}

void sb_pack_b_vnni(const sb_gemm_desc *d, const void *B, sb_src_type src, int dst_bf16,
                    int nr, int kg, int p0, int kc, int kcp, int j0, int nc, void *dst)
{
    conv_t cv = {src, dst_bf16};
    pack_vnni(B, d->ldb, d->transb == 'N', cv, nr, kg, j0, nc, p0, kc, kcp, dst);
}

void sb_pack_a_chunked(const sb_gemm_desc *d, const void *A, sb_src_type src, int dst_bf16,
                       int mr, int kg, int i0, int mc, int p0, int kc, int kcp, void *dst)
{
    conv_t cv = {src, dst_bf16};
    size_t es = dst_esz(cv), ses = src_esz(cv);
    const int ce = 16 * kg;   /* k elements per chunk row (64 bytes) */
    for (int q = 0; q * mr < mc; q++) {
        char *pan = (char *)dst + (size_t)q * mr * kcp * es;
        int rows = mc - q * mr < mr ? mc - q * mr : mr;
        if (rows < mr || kc < kcp) memset(pan, 0, (size_t)mr * kcp * es);
        for (int i = 0; i < rows; i++) {
            size_t sidx = (size_t)(i0 + q * mr + i) * d->lda + p0;
            const char *row = (const char *)A + sidx * ses;
            int p = 0, c = 0;
            if (cv.src == SB_SRC_F32 && cv.bf16) {
                for (; p + ce <= kc; c++, p += ce) {
                    char *o = pan + ((size_t)c * mr + i) * 64;
                    const float *f = (const float *)row + p;
                    _mm_prefetch((const char *)(f + 4 * ce), _MM_HINT_T0);
                    for (int v = 0; v < 4; v++)
                        _mm_storeu_si128((__m128i *)(o + 16 * v),
                                         cvt8_bf16(_mm_loadu_si128((const __m128i *)(f + 8 * v)),
                                                   _mm_loadu_si128((const __m128i *)(f + 8 * v + 4))));
                }
            } else {
                /* 64 source bytes are the 16 slots as they are */
                for (; p + ce <= kc; c++, p += ce) {
                    char *o = pan + ((size_t)c * mr + i) * 64;
                    const char *x = row + (size_t)p * ses;
                    _mm_prefetch(x + 256, _MM_HINT_T0);
                    for (int v = 0; v < 4; v++)
                        _mm_storeu_si128((__m128i *)(o + 16 * v),
                                         _mm_loadu_si128((const __m128i *)(x + 16 * v)));
                }
            }
            for (; p < kc; p++)
                put(pan, (((size_t)(p / ce) * mr + i) * 64) / es + p % ce, A, sidx + p, cv);
        }
    }
}

/* AMX A panels: one tile row per A row (row i at i*kcp), no slots. */
void sb_pack_a_rows(const sb_gemm_desc *d, const void *A, sb_src_type src, int dst_bf16,
                    int mr, int i0, int mc, int p0, int kc, int kcp, void *dst)
{
    conv_t cv = {src, dst_bf16};
    size_t es = dst_esz(cv);
    for (int q = 0; q * mr < mc; q++) {
        char *pan = (char *)dst + (size_t)q * mr * kcp * es;
        int rows = mc - q * mr < mr ? mc - q * mr : mr;
        if (rows < mr || kc < kcp) memset(pan, 0, (size_t)mr * kcp * es);
        int r0 = i0 + q * mr;
        if (d->transa == 'N') {
            for (int i = 0; i < rows; i++) {
                size_t s = (size_t)(r0 + i) * d->lda + p0;
                if (src == SB_SRC_F32 && dst_bf16) {
                    int p = 0;
                    for (; p + 8 <= kc; p += 8) {
                        const float *f = (const float *)A + s + p;
                        _mm_storeu_si128((__m128i *)(pan + ((size_t)i * kcp + p) * 2),
                                         cvt8_bf16(_mm_loadu_si128((const __m128i *)f),
                                                   _mm_loadu_si128((const __m128i *)(f + 4))));
                    }
                    for (; p < kc; p++) put(pan, (size_t)i * kcp + p, A, s + p, cv);
                } else {
                    memcpy(pan + (size_t)i * kcp * es, elem_ptr(A, cv, s), (size_t)kc * es);
                }
            }
        } else {
            for (int p = 0; p < kc; p++)
                for (int i = 0; i < rows; i++)
                    put(pan, (size_t)i * kcp + p, A, (size_t)(p0 + p) * d->lda + r0 + i, cv);
        }
    }
}
