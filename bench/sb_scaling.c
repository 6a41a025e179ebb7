#include "sb_scaling.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_io.h"
#include "sb_shapes.h"

size_t sb_distilbert_param_count(long vocab, long dim, long layers, long ffn, long max_pos)
{
    size_t d = (size_t)dim, f = (size_t)ffn;
    size_t emb = ((size_t)vocab + (size_t)max_pos) * d + 2 * d;
    size_t attn = 4 * (d * d + d);
    size_t mlp = d * f + f + f * d + d;
    size_t layer = attn + 2 * d + mlp + 2 * d;
    size_t head = d * 2 + 2;
    return emb + (size_t)layers * layer + head;
}

size_t sb_distilbert_grad_bytes(void)
{
    sb_model_config c;
    sb_model_config_base(&c);
    return sb_distilbert_param_count(c.vocab, c.dim, c.layers, c.ffn, c.max_pos) * sizeof(float);
}

static double last_bucket(long vocab, long dim, long max_pos)
{
    return ((double)(vocab + max_pos) * dim + 2.0 * dim) * 4;
}

double sb_distilbert_last_bucket_bytes(void)
{
    sb_model_config c;
    sb_model_config_base(&c);
    return last_bucket(c.vocab, c.dim, c.max_pos);
}

void sb_scaling_model_bytes(long vocab, long dim, long layers, long ffn, sb_scaling_input *in)
{
    sb_model_config c;
    sb_model_config_base(&c);
    if (vocab > 0 && dim > 0 && layers > 0 && ffn > 0)
        c.vocab = (int)vocab, c.dim = (int)dim, c.layers = (int)layers, c.ffn = (int)ffn;
    /* gradients are all-reduced in f32 whatever the kernel computes in */
    in->grad_bytes = (double)sb_distilbert_param_count(c.vocab, c.dim, c.layers, c.ffn, c.max_pos) * 4;
    in->last_bucket_bytes = last_bucket(c.vocab, c.dim, c.max_pos);
}

int sb_scaling_fit(const size_t *bytes, const double *lat_s, int n, int ranks, size_t min_bytes,
                   sb_ab_fit *fit, sb_err *e)
{
    memset(fit, 0, sizeof *fit);
    if (ranks < 2)
        return sb_errf(e, SB_EUSAGE,
                       "the all-reduce curve was measured on %d rank(s); a fit needs >= 2", ranks);
    int use = 0;
    for (int i = 0; i < n; i++) use += bytes[i] >= min_bytes;
    if (use < 2) min_bytes = 0, use = n;
    if (use < 2) return sb_errf(e, SB_EUSAGE, "the all-reduce curve has fewer than 2 sizes");
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        if (bytes[i] < min_bytes) continue;
        double x = (double)bytes[i], y = lat_s[i];
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    double den = use * sxx - sx * sx;
    if (den <= 0) return sb_errf(e, SB_EUSAGE, "the all-reduce curve needs two different sizes");
    double b = (use * sxy - sx * sy) / den, a = (sy - b * sx) / use;
    if (b <= 0) return sb_errf(e, SB_EUSAGE, "the all-reduce curve does not grow with size");
    if (a < 0) a = 0; /* a tiny negative intercept is noise */
    fit->alpha_s = a / (2.0 * (ranks - 1));
    fit->beta_s_per_byte = b * ranks / (2.0 * (ranks - 1));
    fit->ranks = ranks;
    fit->points = use;
    return SB_OK;
}

void sb_scaling_fit_from_busbw(double busbw_gbs, double alpha_us, sb_ab_fit *fit)
{
    memset(fit, 0, sizeof *fit);
    fit->beta_s_per_byte = busbw_gbs > 0 ? 1.0 / (busbw_gbs * 1e9) : 0;
    fit->alpha_s = alpha_us * 1e-6;
}

double sb_scaling_ring_seconds(const sb_ab_fit *fit, double bytes, int ranks)
{
    if (ranks < 2) return 0;
    return 2.0 * (ranks - 1) * fit->alpha_s +
        2.0 * (ranks - 1) / ranks * bytes * fit->beta_s_per_byte;
}

long sb_scaling_steps(long features, int batch, int ranks)
{
    long per_rank = (features + ranks - 1) / ranks;
    return (per_rank + batch - 1) / batch;
}

static double epoch_for(const sb_scaling_input *in, int nodes, sb_scaling_point *p)
{
    p->nodes = nodes;
    p->ranks = nodes * in->ppn;
    p->steps = sb_scaling_steps(in->features, in->batch, p->ranks);
    /* One node reduces through shared memory: part of the measured step. */
    p->comm_s = nodes > 1 ? sb_scaling_ring_seconds(&in->net, in->grad_bytes, p->ranks) : 0;
    double last = nodes > 1 ? sb_scaling_ring_seconds(&in->net, in->last_bucket_bytes, p->ranks)
                            : 0;
    double hidden_room = in->overlap_share * in->step_compute_s;
    double exposed = p->comm_s - hidden_room;
    if (exposed < last) exposed = last;
    if (exposed > p->comm_s) exposed = p->comm_s;
    if (exposed < 0) exposed = 0;
    p->exposed_s = exposed;
    p->epoch_no_overlap_s = (double)p->steps * (in->step_compute_s + p->comm_s);
    p->epoch_overlap_s = (double)p->steps * (in->step_compute_s + exposed);
    return p->epoch_overlap_s;
}

int sb_scaling_project(const sb_scaling_input *in, const int *nodes, int n, sb_scaling_point *out,
                       sb_err *e)
{
    if (in->step_compute_s <= 0) return sb_errf(e, SB_EUSAGE, "step time must be > 0");
    if (in->features < 1 || in->batch < 1 || in->ppn < 1)
        return sb_errf(e, SB_EUSAGE, "features, batch and ppn must be >= 1");
    if (in->overlap_share < 0 || in->overlap_share > 1)
        return sb_errf(e, SB_EUSAGE, "overlap share %g is outside [0, 1]", in->overlap_share);
    sb_scaling_point one;
    epoch_for(in, 1, &one);
    for (int i = 0; i < n; i++) {
        if (nodes[i] < 1) return sb_errf(e, SB_EUSAGE, "node count %d < 1", nodes[i]);
        sb_scaling_point *p = &out[i];
        epoch_for(in, nodes[i], p);
        p->ideal_s = one.epoch_overlap_s / nodes[i];
        p->speedup_overlap = one.epoch_overlap_s / p->epoch_overlap_s;
        p->speedup_no_overlap = one.epoch_no_overlap_s / p->epoch_no_overlap_s;
        p->efficiency_overlap = p->speedup_overlap / nodes[i];
    }
    return SB_OK;
}

double sb_scaling_implied_busbw(const sb_scaling_input *in, double epoch1_s, int nodes,
                                double epochN_s)
{
    int r1 = in->ppn, rn = in->ppn * nodes;
    if (nodes < 2) return 0;
    long s1 = sb_scaling_steps(in->features, in->batch, r1);
    long sn = sb_scaling_steps(in->features, in->batch, rn);
    /* step(N) - step(1) = 2(rn-1)/rn x grad / busbw (one node: shared memory, in the step) */
    double extra = epochN_s / (double)sn - epoch1_s / (double)s1;
    double factor = 2.0 * (rn - 1) / rn;
    if (extra <= 0 || factor <= 0) return 0;
    return factor * in->grad_bytes / extra / 1e9;
}

/* ---- study CSV ---- */

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1])) *--end = 0;
    return s;
}

static int split_csv(char *line, char **f, int cap)
{
    int n = 0;
    char *p = line;
    while (n < cap) {
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = 0;
        p = c + 1;
    }
    for (int i = 0; i < n; i++) f[i] = trim(f[i]);
    return n;
}

int sb_study_load(const char *path, sb_study_point **pts, int *n, sb_err *e)
{
    *pts = NULL;
    *n = 0;
    char *text = NULL;
    size_t len = 0;
    /* A study file is one short CSV line per measured or published run: 16 MiB
     * is over 100,000 of them, and bounds what a wrong path can cost. */
    if (sb_read_text_max(path, 16 * SB_MIB, "study file", &text, &len, e)) {
        if (e) e->code = SB_EUSAGE;
        return SB_EUSAGE;
    }
    enum { LABEL, MACHINE, NODES, PPN, THREADS, BATCH, DTYPE, EPOCH, KIND, NCOL };
    static const char *names[NCOL] = {"label", "machine", "nodes",         "ppn", "threads",
                                      "batch", "dtype",   "epoch_seconds", "kind"};
    int col[NCOL], have_header = 0, lineno = 0, rc = SB_OK, cap = 0;
    sb_study_point *v = NULL;
    char *next = text;
    while (next && !rc) {
        char *line = next, *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        next = nl ? nl + 1 : NULL;
        lineno++;
        char *t = trim(line);
        if (!*t || *t == '#') continue;
        char *f[32];
        int nf = split_csv(t, f, 32);
        if (!have_header) {
            for (int c = 0; c < NCOL; c++) {
                col[c] = -1;
                for (int i = 0; i < nf; i++)
                    if (!strcmp(f[i], names[c])) col[c] = i;
                if (col[c] < 0) {
                    rc = sb_errf(e, SB_EUSAGE, "%s:%d: header lacks column '%s'", path, lineno,
                                 names[c]);
                    break;
                }
            }
            have_header = 1;
            continue;
        }
        sb_study_point p = {0};
        int need = 0;
        for (int c = 0; c < NCOL; c++)
            if (col[c] >= need) need = col[c] + 1;
        if (nf < need) {
            rc = sb_errf(e, SB_EUSAGE, "%s:%d: %d fields, the header names %d", path, lineno, nf,
                         need);
            break;
        }
        snprintf(p.label, sizeof p.label, "%s", f[col[LABEL]]);
        snprintf(p.machine, sizeof p.machine, "%s", f[col[MACHINE]]);
        snprintf(p.dtype, sizeof p.dtype, "%s", f[col[DTYPE]]);
        snprintf(p.kind, sizeof p.kind, "%s", f[col[KIND]]);
        char *end;
        p.nodes = (int)strtol(f[col[NODES]], &end, 10);
        int bad = *end || p.nodes < 1;
        p.ppn = (int)strtol(f[col[PPN]], &end, 10);
        bad |= *end || p.ppn < 1;
        p.threads = (int)strtol(f[col[THREADS]], &end, 10);
        bad |= *end || p.threads < 1;
        p.batch = (int)strtol(f[col[BATCH]], &end, 10);
        bad |= *end || p.batch < 1;
        p.epoch_s = strtod(f[col[EPOCH]], &end);
        bad |= *end || !(p.epoch_s > 0);
        bad |= strcmp(p.kind, "measured") && strcmp(p.kind, "ideal");
        if (bad) {
            rc = sb_errf(e, SB_EUSAGE,
                         "%s:%d: expected positive nodes/ppn/threads/batch/epoch_seconds and kind "
                         "measured|ideal",
                         path, lineno);
            break;
        }
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            sb_study_point *g = realloc(v, (size_t)cap * sizeof *g);
            if (!g) {
                rc = sb_errf(e, SB_EFAIL, "out of memory");
                break;
            }
            v = g;
        }
        v[(*n)++] = p;
    }
    free(text);
    if (!rc && !have_header) rc = sb_errf(e, SB_EUSAGE, "%s: no header line", path);
    if (!rc && *n == 0) rc = sb_errf(e, SB_EUSAGE, "%s: no data rows", path);
    if (rc) {
        free(v);
        *n = 0;
        return rc;
    }
    *pts = v;
    return SB_OK;
}
