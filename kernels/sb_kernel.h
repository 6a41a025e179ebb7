/* sb_kernel: the kernel registry and the GEMM call every workload makes.
 * A kernel is a name, the dtype it computes in, a probe that says whether
 * this machine can run it (and why not), and a GEMM entry point.
 *
 * Layout: row-major. op(A) is m x k, op(B) is k x n, C is m x n;
 * op(X) = X when trans == 'N', X^T when trans == 'T' (X stored k x m, etc.).
 * lda/ldb/ldc are row strides in elements of the stored matrices.
 *   C = alpha * op(A) * op(B) + beta * C
 */
#ifndef SB_KERNEL_H
#define SB_KERNEL_H
#include <stddef.h>
#include <stdint.h>
#include "sb_err.h"
#include "sb_isa.h" /* sb_isa_probe: may this machine run an instruction path */

typedef enum {
    SB_DT_F32 = 0, /* f32 in, f32 accumulate */
    SB_DT_BF16,    /* f32 in rounded to bf16 (nearest-even) while packing, f32 out */
    SB_DT_INT8,    /* u8 (A) x s8 (B) -> s32; alpha/beta: beta 0 or 1 only */
} sb_dtype;

const char *sb_dtype_name(sb_dtype d); /* "f32", "bf16", "int8" */

/* Dynamic-quantisation epilogue of an int8 GEMM (u8 A with a scale and zero
 * point per row, s8 B symmetric with a scale per column): on the last k block
 * the kernel turns each s32 tile of C, while it is in cache, into f32 in place
 *   C[i][j] = a_scale[i] * b_scale[j] * (acc[i][j] - a_zp[i] * b_colsum[j]) + bias[j]
 * (b_colsum[j] = sum over k of B[k][j]; bias may be NULL). C then holds f32.
 * beta must be 0. */
typedef struct sb_dequant {
    const float *a_scale;    /* [m] */
    const int32_t *a_zp;     /* [m] */
    const float *b_scale;    /* [n] */
    const int32_t *b_colsum; /* [n] */
    const float *bias;       /* [n] or NULL */
} sb_dequant;

/* How a project kernel's GEMM driver (sb_gemm) blocks and orders one call.
 * Zero in any field means the built-in choice, so {0} is today's behaviour.
 *   kc, mc, nc  caps on the k, m and n blocks (rounded and balanced by the
 *               driver as its own figures are); SB_GEMM_KC/MC/NC in the
 *               environment still override them for the whole process
 *   order       inner loops: SB_ORDER_JR_IR (each B micro-panel against all
 *               A micro-panels of the block, the default) or SB_ORDER_IR_JR
 *               (each A micro-panel against all B micro-panels)
 *   pf          cache lines of the next A micro-panel prefetched (to L2)
 *               before each micro-kernel call; 0 none
 *   split       how threads share the work: SB_SPLIT_AUTO (the driver's
 *               rule), SB_SPLIT_ROWS, SB_SPLIT_COLS
 *   variant     the micro-kernel variant; every kernel has one today (0)
 * Every choice gives the same C bit for bit as long as kc is unchanged (the
 * k blocks fix the order of additions), and within rounding otherwise. */
typedef struct sb_blocking {
    int kc, mc, nc;
    int order;
    int pf;
    int split;
    int variant;
} sb_blocking;
enum { SB_ORDER_JR_IR = 0, SB_ORDER_IR_JR = 1 };
enum { SB_SPLIT_AUTO = 0, SB_SPLIT_ROWS = 1, SB_SPLIT_COLS = 2 };

typedef struct sb_gemm_desc {
    char transa, transb; /* 'N' or 'T' */
    int m, n, k;
    int lda, ldb, ldc;
    float alpha, beta;
    int threads;               /* OpenMP threads for this call; <= 0: current default */
    const float *bias;         /* f32 C only: bias[j] added to every row of C after the
                               product (a linear layer's bias, fused where the kernel
                               writes C); NULL: none. Int8 entries refuse it. */
    const sb_dequant *dequant; /* int8 C only: the epilogue above; NULL: s32 C */
    const sb_blocking *blocking; /* project kernels: this call's blocking; NULL: the one
                                 set for the kernel and shape class (sb_blocking_set),
                                 else the built-in rule. Library kernels ignore it. */
} sb_gemm_desc;

/* B packed once in a kernel's own layout, reused across calls (weights).
 * Opaque; made by a kernel's pack_b and valid only for that kernel and the
 * k, n, transb and ldb it was packed with. */
typedef struct sb_packed_b sb_packed_b;
void sb_packed_b_free(sb_packed_b *p);

typedef struct sb_kernel {
    const char *name; /* "scalar-f32", "avx2-f32", "avx512-f32", ... */
    sb_dtype dtype;
    const char *isa;     /* instruction path, keys the peak it is measured against:
                               "scalar", "avx2_f32" (AVX2 FMA), "avx2_int8", "f32"
                               (AVX-512 FMA), "bf16", "int8", "amx_bf16", "amx_int8" */
    const char *summary; /* one line for --help and `sprbench info` */
    /* 1 when this machine can run the kernel; else 0 with the reason in why. */
    int (*probe)(char *why, size_t whylen);
    /* SB_DT_F32 and SB_DT_BF16 kernels. */
    int (*gemm_f32)(const sb_gemm_desc *d, const float *A, const float *B, float *C, sb_err *err);
    /* SB_DT_INT8 kernels: A is u8, B is s8, C is s32. */
    int (*gemm_u8s8)(const sb_gemm_desc *d, const uint8_t *A, const int8_t *B, int32_t *C,
                     sb_err *err);
    /* The implementation the kernel last ran as its library reports it (oneDNN's
     * impl_info_str, e.g. "brg:avx512_core"), or for a project kernel that picks
     * its instructions at run time the ones it runs ("avx2:vpmaddwd-s16");
     * NULL for the other project kernels. */
    const char *(*impl)(void);
    /* SB_DT_BF16 kernels, for callers that already hold bf16 (raw bit patterns):
     * no rounding happens on the way in. NULL when not offered. */
    int (*gemm_bf16)(const sb_gemm_desc *d, const uint16_t *A, const uint16_t *B, float *C,
                     sb_err *err);
    /* Weight reuse: pack op(B) (f32 for f32/bf16 kernels, s8 for int8) once, then
     * run with any A/C of the same k and n. Uses d's k, n, transb, ldb (and
     * threads for oneDNN). NULL when not offered. */
    int (*pack_b)(const sb_gemm_desc *d, const void *B, sb_packed_b **out, sb_err *err);
    /* C = alpha op(A) B + beta C with B from pack_b; A and C typed as for gemm_f32 /
     * gemm_u8s8. SB_EUSAGE when B was packed for another kernel or shape. */
    int (*gemm_packed)(const sb_gemm_desc *d, const void *A, const sb_packed_b *B, void *C,
                       sb_err *err);
    /* 1: a project kernel (sb_gemm around a micro-kernel), whose pack_b is a
     * plain copy into its layout, cheap enough to pack a short-lived B (one
     * attention head's k or v); 0: a library kernel (oneDNN builds and caches
     * primitives per packed object) or scalar-f32. */
    int own;
} sb_kernel;

/* Cache sizes in bytes (per instance) the GEMM driver blocks for: MC/KC/NC.
 * The CPU's own figures (sb_cpu: CPUID leaf 4, or 0x8000001D on AMD) unless
 * set here; nothing else changes them, so blocking never depends on which
 * other module ran first. A zero keeps the current value. */
void sb_gemm_set_cache_sizes(size_t l1d, size_t l2, size_t l3);
void sb_gemm_get_cache_sizes(size_t *l1d, size_t *l2, size_t *l3);

/* Shape classes: the blocking a caller sets applies to every call of one
 * kernel whose transposes and m, n, k magnitudes match. Each size falls in
 * t (<= 96), s (<= 384), m (<= 1024) or l (larger); the class is named
 * "<transa><transb>-<m><n><k>", e.g. "NN-mmm" for 1024^3, "NN-lll" for
 * 2048^3, "TN-mml" for a DistilBERT weight gradient (768 x 768 over 12288
 * tokens). Codes run 0 .. SB_SHAPE_CLASSES - 1. */
#define SB_SHAPE_CLASSES 256
int sb_shape_class(char transa, char transb, int m, int n, int k);
/* The name of a class into buf (at least 8 bytes); "" for a bad code. */
void sb_shape_class_name(int cls, char *buf, size_t len);
/* The code of a class name; -1 when s is not one. */
int sb_shape_class_parse(const char *s);

/* The per-process table of blockings the driver uses when a call names none
 * (desc->blocking NULL): one per kernel name and shape class. Set it before
 * any GEMM runs (the workers do, from the tuned file): it is read without a
 * lock, and it grows as entries come (every kernel's every class fits), so
 * an entry's address holds only until the next set. SB_EUSAGE when the name
 * is longer than 31 characters or the class is not one; SB_EFAIL when memory
 * runs out. */
int sb_blocking_set(const char *kernel, int cls, const sb_blocking *b, sb_err *e);
void sb_blocking_clear(void);
/* The entry for kernel and class, or NULL. */
const sb_blocking *sb_blocking_get(const char *kernel, int cls);
/* Compact text: "kc=256,mc=96,nc=4096,order=jr-ir,pf=0,split=auto"
 * (variant and the AMX fields only when set; a zero size prints as 0 =
 * built-in). Returns what snprintf returns. */
int sb_blocking_format(const sb_blocking *b, char *buf, size_t len);
/* Parses that text (any subset of the fields, in any order, each once;
 * "default" for all zero) into *b. SB_EUSAGE naming the bad part: an empty
 * text, a field given twice. */
int sb_blocking_parse(const char *s, sb_blocking *b, sb_err *e);
/* What the driver would really run for kernel k and call d (d->blocking,
 * else the table, else the built-in rule; SB_GEMM_KC/MC/NC applied; sizes
 * as the driver rounds them). 1 with *out filled for a project kernel, 0 for
 * one that does not run through the driver (scalar-f32, oneDNN). */
int sb_kernel_blocking(const sb_kernel *k, const sb_gemm_desc *d, sb_blocking *out);

/* The registered kernels (sb_kernels.def), sb_kernel_<id>. */
#define SB_KERNEL_OWN(id, ...) extern const sb_kernel sb_kernel_##id;
#define SB_KERNEL_LIB(id) extern const sb_kernel sb_kernel_##id;
#include "sb_kernels.def"
#undef SB_KERNEL_OWN
#undef SB_KERNEL_LIB
/* Not registered (gemm_own.c): the AMX kernels on the functional tile
 * model and avx2-int8's AVX-VNNI path on an exact AVX2 stand-in for
 * vpdpbusd, for tests; avx2-int8 for 7-bit A (sb_kernel_for_7bit_a). */
extern const sb_kernel sb_kernel_amx_bf16_model, sb_kernel_amx_int8_model,
    sb_kernel_avx2_int8_vnni_model, sb_kernel_avx2_int8_u7;

int sb_kernel_count(void);
const sb_kernel *sb_kernel_at(int i);
const sb_kernel *sb_kernel_find(const char *name); /* NULL when unknown */
/* The variant of int8 kernel k for A whose every value is below 128 (7-bit
 * activations): avx2-int8's vpmaddubsw path on CPUs without AVX-VNNI (the
 * same name; exact only for such A, so never registered); k itself for
 * every other kernel. */
const sb_kernel *sb_kernel_for_7bit_a(const sb_kernel *k);
/* Comma-separated list of every registered name (for messages). */
const char *sb_kernel_names(void);

/* Checks sizes, transposes and leading dimensions; SB_EUSAGE with a message. */
int sb_gemm_desc_check(const sb_gemm_desc *d, sb_err *err);
/* The descriptor a pack_b works from: d with the A and C fields a caller
 * packing weights may leave 0 (m, lda, ldc) given values that pass the
 * check, then checked. */
int sb_gemm_desc_for_pack(const sb_gemm_desc *d, sb_gemm_desc *out, sb_err *err);
/* C[i][j] += d->bias[j] over m x n (a no-op without bias): for kernels that
 * cannot fuse it. */
void sb_gemm_add_bias(const sb_gemm_desc *d, float *C);

/* The dequantisation epilogue over the whole of C (s32 in, f32 out, in place),
 * for kernels that cannot fuse it; a no-op without d->dequant. */
void sb_gemm_apply_dequant(const sb_gemm_desc *d, void *C);

/* The reference: plain loops, f32 accumulate (exact for small-integer inputs). */
int sb_gemm_ref_f32(const sb_gemm_desc *d, const float *A, const float *B, float *C);
/* Reference for u8 x s8 -> s32 (exact). */
int sb_gemm_ref_u8s8(const sb_gemm_desc *d, const uint8_t *A, const int8_t *B, int32_t *C);

#endif
