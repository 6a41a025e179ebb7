#include "sb_gate_match.h"
#include <stdlib.h>
#include <string.h>

static int cmp_group(const void *a, const void *b)
{
    const sb_gate_group *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

sb_gate_group *sb_gate_groups_make(const sb_ptset *s, int with_machine)
{
    sb_gate_group *g = calloc((size_t)s->n + 1, sizeof *g);
    if (!g) return NULL;
    for (int i = 0; i < s->n; i++) {
        g[i].idx = i;
        g[i].key = sb_pt_key(&s->p[i], with_machine);
        if (!g[i].key) {
            for (int j = 0; j < i; j++) free(g[j].key);
            free(g);
            return NULL;
        }
    }
    qsort(g, (size_t)s->n, sizeof *g, cmp_group);
    return g;
}

void sb_gate_groups_free(sb_gate_group *g, int n)
{
    for (int i = 0; g && i < n; i++) free(g[i].key);
    free(g);
}

/* [*first, *end) of the run with `key`, or *first = -1 */
void sb_gate_group_find(const sb_gate_group *g, int n, const char *key, int *first, int *end)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (strcmp(g[mid].key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *first = lo < n && !strcmp(g[lo].key, key) ? lo : -1;
    *end = lo;
    while (*end < n && !strcmp(g[*end].key, key)) (*end)++;
}

/* The representative point of a run: newest ok, else newest. */
const sb_pt *sb_gate_group_pick(const sb_ptset *s, const sb_gate_group *g, int first, int end)
{
    const sb_pt *best = NULL;
    for (int i = first; i < end; i++) {
        const sb_pt *p = &s->p[g[i].idx];
        if (!strcmp(p->status, "ok")) best = p;
    }
    return best ? best : &s->p[g[end - 1].idx];
}

int sb_gate_has_machine(const sb_ptset *s, const char *fp)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->p[i].fingerprint, fp)) return 1;
    return 0;
}

/* The measured points of a set, as a shallow view (free only view->p): the
 * scaling model's points (status 'projected') ran nothing, so they are
 * never a baseline, a candidate or a missing point. */
int sb_gate_measured_view(const sb_ptset *in, sb_ptset *view, sb_err *e)
{
    view->n = 0;
    view->p = malloc(sizeof *view->p * (size_t)(in->n + 1));
    if (!view->p) return sb_errf(e, SB_EFAIL, "out of memory");
    for (int i = 0; i < in->n; i++)
        if (!in->p[i].status || strcmp(in->p[i].status, "projected")) view->p[view->n++] = in->p[i];
    return SB_OK;
}
