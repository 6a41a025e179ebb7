/* sb_bf16buf: see sb_bf16buf.h. */
#include "sb_bf16buf.h"
#include "sb_pack.h"
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
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && (size_t)rows * cols > 65536)
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            o[(size_t)r * ld + c] = sb_f32_to_bf16(X[(size_t)r * ld + c]);
    return o;
}
