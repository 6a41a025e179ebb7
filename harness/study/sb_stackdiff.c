/* sb_stackdiff: see sb_stackdiff.h. */
#include "sb_stackdiff.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_query.h"
#include "sb_stack.h"
#include "sb_text.h"
#include "sb_vendor.h"

/* Appends to buf (cap bytes), cut where it is full. */
__attribute__((format(printf, 3, 4))) static void addf(char *buf, size_t cap, const char *fmt,
                                                        ...)
{
    size_t l = strlen(buf);
    if (l + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + l, cap - l, fmt, ap);
    va_end(ap);
}

int sb_stackside_load(sb_db *db, const sb_ptset *set, sb_stackside *s, sb_err *e)
{
    memset(s, 0, sizeof *s);
    s->vals = json_object();
    if (!s->vals) return sb_errf(e, SB_EFAIL, "out of memory");
    for (int i = 0; i < set->n; i++) {
        const sb_pt *p = &set->p[i];
        /* a point that did not run ok may have no result at all: it says
         * nothing about the side's stack */
        if (!p->status || strcmp(p->status, "ok")) continue;
        json_t *doc = NULL;
        int rc = sb_db_point_result(db, p->id, &doc, e);
        if (rc) {
            sb_stackside_free(s);
            return rc;
        }
        s->points++;
        json_t *st = json_object_get(doc, "stack");
        if (!json_is_object(st)) {
            s->unrecorded++;
            json_decref(doc);
            continue;
        }
        for (int f = 0; f < sb_stack_nfields(); f++) {
            const char *key = sb_stack_field_at(f)->key;
            const char *v = json_string_value(json_object_get(st, key));
            json_t *m = json_object_get(s->vals, key);
            if (!m) {
                m = json_object();
                json_object_set_new(s->vals, key, m);
            }
            json_t *n = json_object_get(m, v ? v : "");
            json_object_set_new(m, v ? v : "", json_integer(n ? json_integer_value(n) + 1 : 1));
        }
        json_decref(doc);
    }
    return SB_OK;
}

void sb_stackside_free(sb_stackside *s)
{
    json_decref(s->vals);
    memset(s, 0, sizeof *s);
}

/* A stored value as one printable line (it came from another machine). */
static void shown(const char *v, char *buf, size_t cap)
{
    if (!*v) {
        snprintf(buf, cap, "not readable");
        return;
    }
    sb_text_cell(buf, cap, v, 200, 0);
}

void sb_stackside_cell(const sb_stackside *s, const char *key, char *buf, size_t cap)
{
    buf[0] = '\0';
    json_t *m = json_object_get(s->vals, key);
    if (!s->points || s->unrecorded == s->points || !json_object_size(m)) {
        snprintf(buf, cap, "not recorded");
        return;
    }
    size_t nv = json_object_size(m);
    const char *v;
    json_t *n;
    json_object_foreach(m, v, n)
    {
        char one[256];
        shown(v, one, sizeof one);
        if (nv == 1)
            addf(buf, cap, "%s", one);
        else
            addf(buf, cap, "%s%s (%lld point%s)", buf[0] ? ", " : "", one,
                         (long long)json_integer_value(n), json_integer_value(n) == 1 ? "" : "s");
    }
    if (s->unrecorded)
        addf(buf, cap, "; not recorded for %d point%s", s->unrecorded,
                     s->unrecorded == 1 ? "" : "s");
}

/* The values a side read, "not readable" ("") left out: an unread field
 * does not differ from anything, it is unknown. */
static size_t nread(json_t *m) { return json_object_size(m) - (json_object_get(m, "") != NULL); }

int sb_stackside_differs(const sb_stackside *b, const sb_stackside *c, const char *key)
{
    json_t *mb = json_object_get(b->vals, key), *mc = json_object_get(c->vals, key);
    if (!nread(mb) || !nread(mc)) return 0;
    /* the same set of values (counts aside) reads as the same */
    if (nread(mb) != nread(mc)) return 1;
    const char *v;
    json_t *n;
    json_object_foreach(mb, v, n)
    {
        if (*v && !json_object_get(mc, v)) return 1;
    }
    return 0;
}

int sb_stack_relevant(const char *kernel_b, const char *kernel_c, int ranks_b, int ranks_c)
{
    int r = SB_STACK_ANY;
    const char *k[2] = {kernel_b, kernel_c};
    for (int i = 0; i < 2; i++) {
        const char *v = sb_vendor_of_kernel(k[i]);
        if (!v)
            r |= SB_STACK_OWN;
        else if (!strcmp(v, "oneDNN"))
            r |= SB_STACK_ONEDNN;
        else if (!strcmp(v, "MKL"))
            r |= SB_STACK_MKL;
    }
    if (ranks_b > 1 || ranks_c > 1) r |= SB_STACK_MPI;
    return r;
}

int sb_stack_diff_words(const json_t *b, const json_t *c, int relevant, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (!json_is_object(b) || !json_is_object(c)) return 0;
    int n = 0, total = 0;
    for (int f = 0; f < sb_stack_nfields(); f++) {
        const sb_stack_field *fd = sb_stack_field_at(f);
        if (!(fd->affects & relevant)) continue;
        const char *vb = json_string_value(json_object_get(b, fd->key)),
                   *vc = json_string_value(json_object_get(c, fd->key));
        if (vb && vc && strcmp(vb, vc)) total++;
    }
    for (int f = 0; f < sb_stack_nfields(); f++) {
        const sb_stack_field *fd = sb_stack_field_at(f);
        if (!(fd->affects & relevant)) continue;
        const char *vb = json_string_value(json_object_get(b, fd->key)),
                   *vc = json_string_value(json_object_get(c, fd->key));
        if (!vb || !vc || !strcmp(vb, vc)) continue;
        char sb[96], sc[96];
        sb_text_cell(sb, sizeof sb, vb, 60, 0);
        sb_text_cell(sc, sizeof sc, vc, 60, 0);
        n++;
        addf(buf, cap, "%s%s %s vs %s", n == 1 ? "" : n == total ? " and " : ", ",
                     fd->word, sc, sb);
    }
    return n;
}

/* a result's recorded stack, NULL when it has none */
static const json_t *stack_of_doc(const json_t *doc)
{
    const json_t *s = json_object_get(doc, "stack");
    return json_is_object(s) ? s : NULL;
}

int sb_stack_diff_docs(const json_t *docb, const json_t *docc, const sb_pt *b, const sb_pt *c,
                       char *buf, size_t cap)
{
    buf[0] = '\0';
    return sb_stack_diff_words(
        stack_of_doc(docb), stack_of_doc(docc),
        sb_stack_relevant(b->kernel, c->kernel, b->ppn * b->nodes, c->ppn * c->nodes), buf, cap);
}
