/* sb_bf16buf: see sb_bf16buf.h. */
#include "sb_bf16buf.h"
#include "sb_cpu.h"
#include "sb_pack.h"
#include "sb_pack_avx512.h"
#include <stdlib.h>

static _Thread_local uint16_t *tl_buf[2];
static _Thread_local size_t tl_cap[2];

uint16_t *sb_bf16buf_round(const float *X, int rows, int cols, int ld, int which, int nt)
{
    which = which == SB_BF16BUF_B;
    size_t need = (size_t)(rows - 1) * ld + cols;
    if (need > tl_cap[which]) {
        free(tl_buf[which]);
        tl_buf[which] = malloc(need * sizeof *tl_buf[which]);
        tl_cap[which] = tl_buf[which] ? need : 0;
        if (!tl_buf[which]) return NULL;
    }
    uint16_t *o = tl_buf[which];
    /* the vendors' bf16 calls pay this on every call: at AMX speed a scalar
     * loop over a 2048 x 2048 A cost a third of the GEMM */
    const sb_cpu *c = sb_cpu_get();
    int wide = c->avx512f && c->avx512bw && c->os_avx512;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && (size_t)rows * cols > 65536)
    for (int r = 0; r < rows; r++) {
        if (wide) {
            sb_round_bf16_rows_avx512(X + (size_t)r * ld, 1, cols, ld, o + (size_t)r * ld);
            continue;
        }
        for (int j = 0; j < cols; j++)
            o[(size_t)r * ld + j] = sb_f32_to_bf16(X[(size_t)r * ld + j]);
    }
    return o;
}
