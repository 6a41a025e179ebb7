/* sb_vendor_cmp: see sb_vendor_cmp.h. */
#include "sb_vendor_cmp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_vendor.h"

static int same_text(const char *a, const char *b) { return !strcmp(a ? a : "", b ? b : ""); }

int sb_vcmp_same_point(const sb_vcmp_entry *a, const sb_vcmp_entry *b)
{
    return same_text(a->dtype, b->dtype) && same_text(a->shape, b->shape) &&
        a->threads == b->threads && a->ppn == b->ppn && a->nodes == b->nodes;
}

/* a vendor was tried at this precision somewhere in the entries */
static int vendor_tried(const sb_vcmp_entry *e, int n, const char *dtype)
{
    for (int i = 0; i < n; i++)
        if (sb_vendor_of_kernel(e[i].kernel) && same_text(e[i].dtype, dtype)) return 1;
    return 0;
}

static int faster(const sb_vcmp_entry *e, int i, int best)
{
    return best < 0 || e[i].value > e[best].value;
}

/* The row of the point of entry `first`: the fastest own kernel, the fastest
 * kernel of each vendor, and of those the faster as the vendor. */
static void fill_row(const sb_vcmp_entry *e, int n, int first, sb_vcmp_row *r)
{
    int best[2] = {-1, -1}; /* per vendor, in the order first seen */
    const char *names[2] = {NULL, NULL};
    r->first = first;
    r->own = r->vendor = r->other = -1;
    for (int i = first; i < n; i++) {
        if (!sb_vcmp_same_point(&e[i], &e[first]) || !(e[i].value > 0)) continue;
        const char *v = sb_vendor_of_kernel(e[i].kernel);
        if (!v) {
            if (faster(e, i, r->own)) r->own = i;
            continue;
        }
        int k = names[0] && strcmp(names[0], v) ? 1 : 0;
        if (!names[k]) names[k] = v;
        if (!strcmp(names[k], v) && faster(e, i, best[k])) best[k] = i;
    }
    int f = best[1] >= 0 && (best[0] < 0 || e[best[1]].value > e[best[0]].value);
    r->vendor = best[f];
    r->other = best[!f];
}

/* f32, bf16, int8, then any other precision by name: the order the study
 * tells them in */
static int prec_rank(const char *d)
{
    static const char *const order[] = {"f32", "bf16", "int8"};
    for (int i = 0; i < 3; i++)
        if (same_text(d, order[i])) return i;
    return 3;
}

static int row_before(const sb_vcmp_entry *a, const sb_vcmp_entry *b)
{
    int c = prec_rank(a->dtype) - prec_rank(b->dtype);
    if (!c) c = strcmp(a->dtype, b->dtype);
    if (!c) c = strcmp(a->shape ? a->shape : "", b->shape ? b->shape : "");
    if (!c) c = a->nodes - b->nodes;
    if (!c) c = a->ppn - b->ppn;
    if (!c) c = a->threads - b->threads;
    return c < 0;
}

int sb_vcmp_rows(const sb_vcmp_entry *e, int n, sb_vcmp_row **rows, int *nrows)
{
    *rows = NULL;
    *nrows = 0;
    int cap = 0;
    for (int i = 0; i < n; i++) {
        if (!e[i].dtype || !e[i].dtype[0] || !vendor_tried(e, n, e[i].dtype)) continue;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = sb_vcmp_same_point(&e[j], &e[i]);
        if (seen) continue;
        if (*nrows == cap) {
            cap = cap ? 2 * cap : 16;
            sb_vcmp_row *nr = realloc(*rows, sizeof *nr * (size_t)cap);
            if (!nr) {
                free(*rows);
                *rows = NULL;
                *nrows = 0;
                return -1;
            }
            *rows = nr;
        }
        fill_row(e, n, i, &(*rows)[(*nrows)++]);
    }
    /* by precision, shape, ranks, threads, whatever order the entries came
     * in (a sweep's are by kernel); few rows: an insertion sort */
    for (int i = 1; i < *nrows; i++) {
        sb_vcmp_row r = (*rows)[i];
        int j = i;
        for (; j > 0 && row_before(&e[r.first], &e[(*rows)[j - 1].first]); j--)
            (*rows)[j] = (*rows)[j - 1];
        (*rows)[j] = r;
    }
    return 0;
}

const char *sb_vcmp_name(const char *kernel, char *buf, size_t cap)
{
    const char *v = sb_vendor_of_kernel(kernel);
    if (v)
        snprintf(buf, cap, "%s (%s)", v, kernel);
    else
        snprintf(buf, cap, "%s", kernel ? kernel : "");
    return buf;
}

void sb_vcmp_not_run(const sb_vcmp_entry *e, const char *const *status, int n, const sb_vcmp_row *r,
                     char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = r->first; i < n && len < cap; i++) {
        if (!sb_vcmp_same_point(&e[i], &e[r->first]) || e[i].value > 0 ||
            !sb_vendor_of_kernel(e[i].kernel))
            continue;
        int w = snprintf(buf + len, cap - len, "%s%s %s", len ? ", " : "", e[i].kernel,
                         status && status[i] && status[i][0] ? status[i] : "did not run");
        if (w < 0) break;
        len += (size_t)w;
    }
}
