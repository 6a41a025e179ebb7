/* sb_tune_shapes: the shapes `sprbench tune --shapes` names: the sets
 * "square" and "distilbert", and shapes in the one grammar (bench/sb_shape). */
#include "sb_tune_shapes.h"
#include <stdio.h>
#include <string.h>
#include "sb_parse.h"
#include "sb_shape.h"
#include "sb_shapes.h"
#include "sb_kernel.h"

static const sb_tune_shape g_square[] = {{'N', 'N', 1024, 1024, 1024, 0},
                                         {'N', 'N', 2048, 2048, 2048, 0}};

/* DistilBERT's training GEMMs for 3072 tokens (8 sequences of 384; the row
 * count only has to fall in the same class as a real batch's), one of each
 * class (bench/distilbert/sb_shapes): the per-head attention products run on
 * one thread each. */
static size_t distilbert_set(sb_tune_shape *out)
{
    sb_model_config c;
    sb_model_config_base(&c);
    sb_shape g[SB_STEP_GEMMS];
    int n = sb_distilbert_step_gemms(&c, 8, 384, g);
    for (int i = 0; i < n; i++)
        out[i] = (sb_tune_shape){g[i].transa, g[i].transb, g[i].m, g[i].n, g[i].k, g[i].threads};
    return (size_t)n;
}

static int add_shape(sb_tune_shape *s, int *n, sb_tune_shape x)
{
    if (*n >= SB_TUNE_MAX_SHAPES) return -1;
    int cls = sb_shape_class(x.ta, x.tb, x.m, x.n, x.k);
    for (int i = 0; i < *n; i++)
        if (sb_shape_class(s[i].ta, s[i].tb, s[i].m, s[i].n, s[i].k) == cls) return 0;
    s[(*n)++] = x;
    return 0;
}

int sb_tune_shapes_parse(const char *list, sb_tune_shape *s, int *n, sb_err *e)
{
    char buf[2048];
    if (strlen(list) >= sizeof buf) return sb_errf(e, SB_EUSAGE, "--shapes: too long");
    snprintf(buf, sizeof buf, "%s", list);
    if (sb_check_list(buf, "--shapes", e)) return SB_EUSAGE;
    for (char *save = NULL, *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
        if (!strcmp(it, "square") || !strcmp(it, "distilbert")) {
            sb_tune_shape src[SB_STEP_GEMMS];
            size_t cnt = sizeof g_square / sizeof *g_square;
            if (it[0] == 's')
                memcpy(src, g_square, sizeof g_square);
            else
                cnt = distilbert_set(src);
            for (size_t i = 0; i < cnt; i++)
                if (add_shape(s, n, src[i])) return sb_errf(e, SB_EUSAGE, "--shapes: too many");
            continue;
        }
        /* the old spelling XY:MxNxK is still read */
        sb_shape y;
        sb_err pe = {0};
        if (sb_shape_parse(it, SB_SHAPE_THREADS | SB_SHAPE_PREFIX, &y, &pe))
            return sb_errf(e, SB_EUSAGE, "--shapes: %s", pe.msg);
        sb_tune_shape x = {
            y.transa ? y.transa : 'N', y.transb ? y.transb : 'N', y.m, y.n, y.k, y.threads};
        if (add_shape(s, n, x)) return sb_errf(e, SB_EUSAGE, "--shapes: too many");
    }
    return SB_OK;
}
