#include "sb_envdiff.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_text.h"
#include "sb_query.h"

/* ---- reading back ---- */

int sb_envmap_load(sb_db *db, const sb_ptset *set, sb_envmap *m, sb_err *e)
{
    memset(m, 0, sizeof *m);
    if (set->n == 0) return SB_OK;
    m->ids = calloc((size_t)set->n, sizeof *m->ids);
    m->env = calloc((size_t)set->n, sizeof *m->env);
    if (!m->ids || !m->env) {
        sb_envmap_free(m);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    m->n = set->n;
    for (int i = 0; i < set->n; i++) {
        m->ids[i] = set->p[i].id;
        json_t *doc;
        int rc = sb_db_point_result(db, set->p[i].id, &doc, e);
        if (rc) {
            sb_envmap_free(m);
            return rc;
        }
        json_t *env = json_object_get(doc, "env");
        /* without env_scope the document is from before complete recording:
         * its partial "env" would show variables as differing that were
         * merely not recorded */
        if (json_is_object(env) && json_is_string(json_object_get(doc, "env_scope")))
            m->env[i] = json_incref(env);
        json_decref(doc);
    }
    return SB_OK;
}

void sb_envmap_free(sb_envmap *m)
{
    for (int i = 0; m->env && i < m->n; i++) json_decref(m->env[i]);
    free(m->env);
    free(m->ids);
    memset(m, 0, sizeof *m);
}

const json_t *sb_envmap_get(const sb_envmap *m, int64_t point_id)
{
    for (int i = 0; i < m->n; i++)
        if (m->ids[i] == point_id) return m->env[i];
    return NULL;
}

/* ---- comparing ---- */

typedef struct text {
    char *buf;
    size_t cap, len;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->cap == 0) return;
    if (t->len + n >= t->cap) n = t->cap - 1 - t->len;
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

/* A value as the user should see it: quoted, at most 48 bytes, control
 * characters as '?' (a value may hold anything; the line must stay one). */
static void put_value(text *t, const json_t *v)
{
    if (!v) {
        put(t, "unset", 5);
        return;
    }
    char num[64];
    const char *s = json_string_value(v);
    if (!s) {
        if (json_is_integer(v))
            snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
        else
            snprintf(num, sizeof num, "%g", json_number_value(v));
        s = num;
    }
    char shown[64];
    size_t n = 0;
    for (; s[n] && n < 48; n++) {
        unsigned char c = (unsigned char)s[n];
        shown[n] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    shown[n] = '\0';
    put(t, "'", 1);
    put(t, shown, n);
    put(t, s[n] ? "...'" : "'", s[n] ? 4 : 1);
}

static int same_value(const json_t *a, const json_t *b)
{
    if (!a || !b) return a == b;
    return json_equal((json_t *)a, (json_t *)b);
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The sprbench variables the binary itself reads for every workload
 * (getenv in kernels/, bench/, harness/: they steer kernels, libraries or
 * the CPU's naming); those only some workloads' workers read, each row
 * names (sb_workload.env: SB_ATTN_ROWS, DistilBERT's). Any other SB_
 * variable a result recorded (SB_TRAIN_BATCH, SB_TRAIN_STEPS: what
 * scripts/run-sweep reads to build the command line, which the point's
 * configuration already holds) is read by no workload. A new
 * getenv("SB_...") belongs here or in its workload's row. */
static const char *const g_sb_read[] = {
    /* a name, or a prefix ending in '_' */
    "SB_FORCE_NO_", "SB_GEMM_",        "SB_AMX_",      "SB_ONEDNN_LIB",
    "SB_MKL_LIB",   "SB_VENDOR_CACHE", "SB_CPU_UARCH",
};

/* a word of a space-separated list */
static int in_list(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; (p = strstr(p, w)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n])) return 1;
    return 0;
}

int sb_env_read_by(const char *workload, const char *name)
{
    if (!workload || strncmp(name, "SB_", 3)) return 1; /* runtimes and libraries: all */
    for (size_t i = 0; i < sizeof g_sb_read / sizeof g_sb_read[0]; i++) {
        const char *n = g_sb_read[i];
        size_t l = strlen(n);
        if (n[l - 1] == '_' ? !strncmp(name, n, l) : !strcmp(name, n)) return 1;
    }
    const sb_workload *w = sb_workload_find(workload);
    return w && w->env && in_list(w->env, name);
}

int sb_env_diff(const json_t *base, const json_t *cand, char *buf, size_t cap)
{
    return sb_env_diff_for(NULL, base, cand, buf, cap);
}

int sb_env_diff_for(const char *workload, const json_t *base, const json_t *cand, char *buf,
                    size_t cap)
{
    text t = {buf, cap, 0};
    if (cap) buf[0] = '\0';
    size_t nb = json_object_size(base), nc = json_object_size(cand);
    const char **names = malloc(sizeof *names * (nb + nc + 1));
    if (!names) return 0;
    size_t n = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)base, k, v) names[n++] = k;
    json_object_foreach((json_t *)cand, k, v) names[n++] = k;
    qsort(names, n, sizeof *names, cmp_cstr);
    int differ = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && !strcmp(names[i], names[i - 1])) continue;
        const json_t *b = json_object_get(base, names[i]), *c = json_object_get(cand, names[i]);
        if (same_value(b, c) || !sb_env_read_by(workload, names[i])) continue;
        if (differ++) put(&t, ", ", 2);
        char name[80];
        size_t l = 0;
        for (; names[i][l] && l < 64; l++) {
            unsigned char ch = (unsigned char)names[i][l];
            name[l] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
        }
        name[l] = '\0';
        put(&t, name, l);
        put(&t, " (baseline ", 11);
        put_value(&t, b);
        put(&t, ", candidate ", 12);
        put_value(&t, c);
        put(&t, ")", 1);
    }
    free(names);
    return differ;
}

/* ---- grouping over a comparison ---- */

void sb_envdiffs_add(sb_envdiffs *d, int64_t base_id, const json_t *base, int64_t cand_id,
                     const json_t *cand, const char *label)
{
    sb_envdiffs_add_for(d, NULL, base_id, base, cand_id, cand, label);
}

void sb_envdiffs_add_for(sb_envdiffs *d, const char *workload, int64_t base_id,
                         const json_t *base, int64_t cand_id, const json_t *cand,
                         const char *label)
{
    for (int i = 0; i < d->nseen; i += 2)
        if (d->seen[i] == base_id && d->seen[i + 1] == cand_id) return;
    if (d->nseen + 2 > d->seen_cap) {
        int cap = d->seen_cap ? 2 * d->seen_cap : 64;
        int64_t *s = realloc(d->seen, sizeof *s * (size_t)cap);
        if (!s) return;
        d->seen = s;
        d->seen_cap = cap;
    }
    d->seen[d->nseen++] = base_id;
    d->seen[d->nseen++] = cand_id;
    d->pairs++;
    if (!base || !cand) {
        d->unrecorded++;
        return;
    }
    char diff[1024];
    if (!sb_env_diff_for(workload, base, cand, diff, sizeof diff)) return;
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->g[i].diff, diff)) {
            d->g[i].pairs++;
            return;
        }
    if (d->n == d->cap) {
        int cap = d->cap ? 2 * d->cap : 8;
        sb_envdiff_group *g = realloc(d->g, sizeof *g * (size_t)cap);
        if (!g) return;
        d->g = g;
        d->cap = cap;
    }
    d->g[d->n++] = (sb_envdiff_group){strdup(diff), strdup(label ? label : ""), 1};
}

void sb_envdiffs_free(sb_envdiffs *d)
{
    for (int i = 0; i < d->n; i++) {
        free(d->g[i].diff);
        free(d->g[i].example);
    }
    free(d->g);
    free(d->seen);
    memset(d, 0, sizeof *d);
}

int sb_envdiffs_nlines(const sb_envdiffs *d) { return d->n + (d->unrecorded > 0); }

void sb_envdiffs_line(const sb_envdiffs *d, int i, char *buf, size_t cap)
{
    if (i < d->n) {
        const sb_envdiff_group *g = &d->g[i];
        if (g->pairs == d->pairs)
            snprintf(buf, cap, "environment differs in all %d compared point pair(s): %s", d->pairs,
                     g->diff ? g->diff : "");
        else
            snprintf(buf, cap,
                     "environment differs in %d of %d compared point pair(s) (e.g. %.200s): %s",
                     g->pairs, d->pairs, g->example ? g->example : "", g->diff ? g->diff : "");
    } else {
        snprintf(buf, cap,
                 "environment not recorded for %d of %d compared point pair(s) (results"
                 " from an older sprbench): not compared",
                 d->unrecorded, d->pairs);
    }
    sb_text_one_line(buf); /* labels come from the database */
}
