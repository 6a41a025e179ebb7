/* sb_gemm: the one blocked, threaded GEMM driver every project kernel runs
 * through (BLIS style). It owns the cache blocking (MC/KC/NC from the cache
 * sizes), the OpenMP partition of the macro loops, the per-thread packing
 * buffers that survive between calls, edge tiles, alpha/beta across KC
 * blocks, and pre-packed B objects. A kernel supplies only an sb_ukr: its
 * register block, its packed layout (two packers) and its micro-kernel.
 *
 * Packed layouts (per micro-panel, kcp = kc rounded up to ku, zero padded),
 * in 32-bit slots of kg k values (1 f32, 2 bf16, 4 int8):
 *   A panel: mr rows x kcp, layout chosen by the kernel: slot-major
 *            ([slot][mr], from op(A) = A^T), row chunks ([chunk of 16 slots]
 *            [mr][16], from op(A) = A; AMX tiles from either op(A))
 *   B panel: kcp x nr, element (p, j) at ((p / kg) * nr + j) * kg + p % kg
 * Loops: jc (NC) -> pc (KC, pack B) -> ic (MC, pack A) -> jr (NR) -> ir (MR)
 * -> micro-kernel. Threads split rows or column panels and pack what they
 * use themselves, so nothing waits on anything until the end of the call. */
#ifndef SB_GEMM_H
#define SB_GEMM_H
#include <stddef.h>
#include "sb_kernel.h"
#include "sb_pack.h"

/* Packs op(A)[i0, i0+mc) x [p0, p0+kc) into ceil(mc/mr) panels of mr*kcp elements. */
typedef void (*sb_pack_a_fn)(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc,
                             int kcp, void *dst);
/* Packs op(B)[p0, p0+kc) x [j0, j0+nc) into ceil(nc/nr) panels of kcp*nr elements. */
typedef void (*sb_pack_b_fn)(const sb_gemm_desc *d, const void *B, int p0, int kc, int kcp, int j0,
                             int nc, void *dst);
/* C[0..mre) x [0..nre) = alpha * (a_panel . b_panel) + beta * C (beta == 0: C not read).
 * For int32 C: alpha is ignored and beta is 0 or 1. */
typedef void (*sb_ukr_fn)(int kcp, const void *a, const void *b, void *C, int ldc, int mre, int nre,
                          float alpha, float beta);

/* The driver's per-tile epilogue (dequantisation, bias) for a block
 * function: called on each tile of C once its last KC block is written,
 * while it is still in cache. i, j: the tile's place in the block. */
typedef struct sb_tile_post {
    void (*fn)(const struct sb_tile_post *p, void *c, int i, int j, int mre, int nre);
    const sb_gemm_desc *d;
    int i0, j0; /* the block's first row and column in C */
} sb_tile_post;
/* Optional, instead of the driver's two inner loops (jr, ir) over one packed
 * block: C[0..mcur) x [0..ncur) at C, A's panels at a (apan bytes apart),
 * B's at b (bpan apart); the kernel picks their order (which operand stays
 * in L1) and prefetches. post: NULL, or called on each finished tile. */
typedef void (*sb_ukr_block_fn)(int kcp, const void *a, size_t apan, int mcur, const void *b,
                                size_t bpan, int ncur, void *C, int ldc, float alpha, float beta,
                                const sb_tile_post *post);

typedef struct sb_ukr {
    const char *name;
    int mr, nr;          /* register block */
    int ku;              /* k is packed in multiples of ku */
    int kg;              /* k values grouped per B element column (1 f32, 2 bf16, 4 int8) */
    size_t a_esz, b_esz; /* bytes per packed element */
    size_t c_esz;        /* 4: f32 or s32 */
    int kc_max;          /* upper bound for KC (0: none) */
    int a_l2_pct;        /* packed A block (MC x KC) as a percentage of L2 (0: 150) */
    sb_pack_a_fn pack_a;
    sb_pack_b_fn pack_b;
    sb_ukr_fn kernel;
    /* Called in every thread before its first / after its last micro-kernel
     * (AMX: load the tile configuration / tilerelease). May be NULL. */
    int (*thread_begin)(sb_err *e);
    int (*thread_end)(sb_err *e);
    sb_ukr_block_fn block; /* NULL: the driver loops over `kernel` (AMX: its own) */
} sb_ukr;

/* A blocked kernel's two micro-kernels, indexed by op(A): [0] A as stored
 * (row chunks), [1] A^T (slot-major). They differ only in A's packer and the
 * loop that reads it. kg k values per slot (ku = 16 slots), esz bytes per
 * packed A and B element, C 4-byte, l2pct the packed A block's share of L2
 * (0: the default). */
#define SB_UKR_PAIR(nm, mr_, nr_, kg_, esz, l2pct, pa_rc, pa_sm, pb, k_rc, k_sm) \
    {                                                                            \
        {.name = nm,                                                             \
         .mr = mr_,                                                              \
         .nr = nr_,                                                              \
         .ku = 16 * (kg_),                                                       \
         .kg = kg_,                                                              \
         .a_esz = esz,                                                           \
         .b_esz = esz,                                                           \
         .c_esz = 4,                                                             \
         .a_l2_pct = l2pct,                                                      \
         .pack_a = pa_rc,                                                        \
         .pack_b = pb,                                                           \
         .kernel = k_rc},                                                        \
            {.name = nm,                                                         \
             .mr = mr_,                                                          \
             .nr = nr_,                                                          \
             .ku = 16 * (kg_),                                                   \
             .kg = kg_,                                                          \
             .a_esz = esz,                                                       \
             .b_esz = esz,                                                       \
             .c_esz = 4,                                                         \
             .a_l2_pct = l2pct,                                                  \
             .pack_a = pa_sm,                                                    \
             .pack_b = pb,                                                       \
             .kernel = k_sm},                                                    \
    }

/* Defined here so the oneDNN kernels can hang their own packed weights on it. */
struct sb_packed_b {
    const void *owner; /* the sb_kernel (or sb_ukr) that packed it */
    int k, n, ldb;
    char transb;
    int kc, nc, njc, npc; /* blocking fixed at pack time */
    size_t *off;          /* byte offset of block (jc, pc) at [jc * npc + pc] */
    void *buf;
    void *ext; /* owner's own data (oneDNN), freed by ext_free */
    void (*ext_free)(void *ext);
};

/* Runs C = alpha op(A) op(B) + beta C. B is ignored when pb is given. */
int sb_gemm_run(const sb_ukr *u, const sb_gemm_desc *d, const void *A, const void *B,
                const sb_packed_b *pb, void *C, sb_err *e);

/* Packs op(B) whole for u (blocking fixed now, used again by sb_gemm_run). */
int sb_gemm_pack_b_whole(const sb_ukr *u, const void *owner, const sb_gemm_desc *d, const void *B,
                         sb_packed_b **out, sb_err *e);
/* SB_EUSAGE unless pb was made by owner for d's k, n, transb, ldb. */
int sb_packed_b_check(const sb_packed_b *pb, const void *owner, const sb_gemm_desc *d, sb_err *e);

/* The blocking sb_gemm_run picks for u and this shape (exposed for tests and
 * the benchmark's notes). */
void sb_gemm_blocking(const sb_ukr *u, int m, int n, int k, int *mc, int *nc, int *kc);
/* The whole blocking sb_gemm_run uses for u and d: d->blocking, else the
 * built-in rule; sizes resolved as the driver runs them. (The table of
 * sb_blocking_set is looked up by the kernels' entry points, gemm_own.c.) */
void sb_gemm_call_blocking(const sb_ukr *u, const sb_gemm_desc *d, sb_blocking *out);

/* Shared checks for the int8 entry points: beta 0 or 1. */
int sb_gemm_check_int8(const sb_gemm_desc *d, sb_err *e);

#endif
