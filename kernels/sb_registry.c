#include "sb_kernel.h"
#include <stdio.h>
#include <string.h>

/* The rows of sb_kernels.def, in order (the sweep's default kernel axis and
 * `sprbench info`). */
static const sb_kernel *const g_kernels[] = {
#define SB_KERNEL_OWN(id, ...) &sb_kernel_##id,
#define SB_KERNEL_LIB(id) &sb_kernel_##id,
#include "sb_kernels.def"
#undef SB_KERNEL_OWN
#undef SB_KERNEL_LIB
};

int sb_kernel_count(void) { return (int)(sizeof g_kernels / sizeof g_kernels[0]); }

const sb_kernel *sb_kernel_at(int i)
{
    return (i >= 0 && i < sb_kernel_count()) ? g_kernels[i] : NULL;
}

const sb_kernel *sb_kernel_find(const char *name)
{
    for (int i = 0; i < sb_kernel_count(); i++)
        if (strcmp(g_kernels[i]->name, name) == 0) return g_kernels[i];
    return NULL;
}

const char *sb_kernel_names(void)
{
    static char buf[512];
    if (!buf[0]) {
        size_t off = 0;
        for (int i = 0; i < sb_kernel_count() && off < sizeof buf; i++)
            off += snprintf(buf + off, sizeof buf - off, "%s%s", i ? ", " : "", g_kernels[i]->name);
    }
    return buf;
}

const char *sb_dtype_name(sb_dtype d)
{
    switch (d) {
    case SB_DT_F32: return "f32";
    case SB_DT_BF16: return "bf16";
    case SB_DT_INT8: return "int8";
    }
    return "?";
}

int sb_gemm_desc_check(const sb_gemm_desc *d, sb_err *err)
{
    if ((d->transa != 'N' && d->transa != 'T') || (d->transb != 'N' && d->transb != 'T'))
        return sb_errf(err, SB_EUSAGE, "transpose must be N or T");
    if (d->m <= 0 || d->n <= 0 || d->k <= 0)
        return sb_errf(err, SB_EUSAGE, "GEMM sizes must be positive (m=%d n=%d k=%d)", d->m, d->n,
                       d->k);
    int a_cols = d->transa == 'N' ? d->k : d->m;
    int b_cols = d->transb == 'N' ? d->n : d->k;
    if (d->lda < a_cols || d->ldb < b_cols || d->ldc < d->n)
        return sb_errf(err, SB_EUSAGE, "leading dimension smaller than the matrix row");
    return SB_OK;
}
