#include "sb_ptset.h"
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <jansson.h>
#include "sb_db_internal.h"
#include "sb_workload.h"
#include "sb_peak.h"
#include "sb_text.h"
#include "sb_uarch.h"

/* ---- point sets ---- */

static void pt_free(sb_pt *p)
{
    free(p->fingerprint);
    free(p->workload);
    free(p->kernel);
    free(p->dtype);
    free(p->shape);
    free(p->config);
    free(p->status);
    free(p->reason);
    free(p->samples);
    free(p->paired);
    free(p->side);
    free(p->pair);
    free(p->pair_mode);
    free(p->pair_baseline);
    free(p->pair_candidate);
    for (int i = 0; i < p->nmetrics; i++) {
        free(p->metrics[i].name);
        free(p->metrics[i].unit);
        free(p->metrics[i].source);
    }
    free(p->metrics);
}

void sb_ptset_free(sb_ptset *set)
{
    for (int i = 0; i < set->n; i++) pt_free(&set->p[i]);
    free(set->p);
    set->p = NULL;
    set->n = 0;
}

/* A point's samples being read (load_samples): the capacities so far, and
 * the largest pair number seen. */
typedef struct samples_read {
    sb_pt *p;
    int cap, pcap;
    sqlite3_int64 max_pair;
} samples_read;

static int sample_row(sqlite3_stmt *ss, void *ctx, sb_err *e)
{
    samples_read *r = ctx;
    sb_pt *p = r->p;
    double x = sqlite3_column_double(ss, 0);
    int paired = sqlite3_column_type(ss, 1) != SQLITE_NULL;
    /* read as 64 bits and bounded, as an import bounds them: a database
     * written by another program may hold any number, and a pair
     * number is never a size */
    sqlite3_int64 side = sqlite3_column_int64(ss, 1), pair = sqlite3_column_int64(ss, 2);
    if (paired && (side < 0 || side > 1 || pair < 0 || pair > SB_DB_MAX_PAIR))
        return sb_errf(e, SB_EUSAGE,
                       "point %lld (%.8s of sweep %.8s): a sample of side %lld in pair %lld:"
                       " a side is 0 or 1 and a pair number 0 to %d",
                       (long long)p->id, p->uuid, p->sweep_uuid, (long long)side, (long long)pair,
                       SB_DB_MAX_PAIR);
    if (paired && pair > r->max_pair) r->max_pair = pair;
    if (paired) {
        if (p->npaired == r->pcap) {
            r->pcap = r->pcap ? 2 * r->pcap : 16;
            double *nv = realloc(p->paired, sizeof *nv * (size_t)r->pcap);
            if (nv) p->paired = nv;
            int *ns = nv ? realloc(p->side, sizeof *ns * (size_t)r->pcap) : NULL;
            if (ns) p->side = ns;
            int *np = ns ? realloc(p->pair, sizeof *np * (size_t)r->pcap) : NULL;
            if (!np) return sb_errf(e, SB_EFAIL, "out of memory");
            p->pair = np;
        }
        p->paired[p->npaired] = x;
        p->side[p->npaired] = (int)side;
        p->pair[p->npaired++] = (int)pair;
    }
    if (paired && side != 1) return SB_OK;
    if (p->nsamples == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        double *ns = realloc(p->samples, sizeof *ns * (size_t)r->cap);
        if (!ns) return sb_errf(e, SB_EFAIL, "out of memory");
        p->samples = ns;
    }
    p->samples[p->nsamples++] = x;
    return SB_OK;
}

/* The raw samples of p, in repetition order: the candidate's (or an
 * ordinary point's) in samples, and a paired point's every sample with its
 * side and pair. */
static int load_samples(sb_db *db, sqlite3_stmt *ss, sb_pt *p, sb_err *e)
{
    samples_read r = {p, 0, 0, -1};
    sb_db_arg id[] = {SB_DB_INT(p->id)};
    int rc = sb_db_stmt(db, ss, "reading samples", id, 1, sample_row, &r, e);
    if (!rc && p->npaired && r.max_pair >= p->npaired)
        rc = sb_errf(e, SB_EUSAGE,
                     "point %lld (%.8s of sweep %.8s): pair %lld among %d paired samples: a pair"
                     " holds a sample of each side, so its number is below their count",
                     (long long)p->id, p->uuid, p->sweep_uuid, (long long)r.max_pair, p->npaired);
    return rc;
}

static int pairing_row(sqlite3_stmt *sp, void *ctx, sb_err *e)
{
    sb_pt *p = ctx;
    if (!(p->pair_mode = sb_db_column_repaired(sp, 0)) ||
        !(p->pair_baseline = sb_db_column_repaired(sp, 1)) ||
        !(p->pair_candidate = sb_db_column_repaired(sp, 2)))
        return sb_errf(e, SB_EFAIL, "out of memory");
    return SB_DB_STOP;
}

/* How a paired point was paired: its mode and the two binaries. */
static int load_pairing(sb_db *db, sqlite3_stmt *sp, sb_pt *p, sb_err *e)
{
    sb_db_arg id[] = {SB_DB_INT(p->id)};
    return sb_db_stmt(db, sp, "reading pairing", id, 1, pairing_row, p, e);
}

/* A point's metrics being read (load_metrics), and their capacity so far. */
typedef struct metrics_read {
    sb_pt *p;
    int cap;
} metrics_read;

static int metric_row(sqlite3_stmt *sm, void *ctx, sb_err *e)
{
    metrics_read *r = ctx;
    sb_pt *p = r->p;
    /* stored by an older sprbench from a wrong per-cycle figure: not shown */
    if (sb_peak_clock_impossible((const char *)sqlite3_column_text(sm, 0),
                                 sqlite3_column_double(sm, 1)))
        return SB_OK;
    if (p->nmetrics == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 8;
        sb_metric_val *nm = realloc(p->metrics, sizeof *nm * (size_t)r->cap);
        if (!nm) return sb_errf(e, SB_EFAIL, "out of memory");
        p->metrics = nm;
    }
    sb_metric_val *m = &p->metrics[p->nmetrics++];
    m->name = sb_db_column_repaired(sm, 0);
    m->value = sqlite3_column_double(sm, 1);
    m->unit = sb_db_column_repaired(sm, 2);
    m->projected = sqlite3_column_int(sm, 3);
    m->source = sb_db_column_repaired(sm, 4);
    if (!m->name || !m->unit || !m->source) return sb_errf(e, SB_EFAIL, "out of memory");
    return SB_OK;
}

/* The metrics of p, by name. */
static int load_metrics(sb_db *db, sqlite3_stmt *sm, sb_pt *p, sb_err *e)
{
    metrics_read r = {p, 0};
    sb_db_arg id[] = {SB_DB_INT(p->id)};
    return sb_db_stmt(db, sm, "reading metrics", id, 1, metric_row, &r, e);
}

/* A point set being read (sb_ptset_load): the set, its capacity, and the
 * statements that read each point's samples, metrics and pairing. */
typedef struct points_read {
    sb_db *db;
    sb_ptset *set;
    int cap;
    sqlite3_stmt *ss, *sm, *sp;
} points_read;

static int point_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    points_read *r = ctx;
    sb_ptset *set = r->set;
    sb_pt *p = sb_db_push((void **)&set->p, &set->n, &r->cap, sizeof *p, e);
    if (!p) return SB_EFAIL;
    p->id = sqlite3_column_int64(st, 0);
    p->sweep_id = sqlite3_column_int64(st, 1);
    p->machine_id = sqlite3_column_int64(st, 2);
    snprintf(p->uuid, sizeof p->uuid, "%s",
             sqlite3_column_text(st, 3) ? (const char *)sqlite3_column_text(st, 3) : "");
    char **text[] = {&p->fingerprint, &p->workload, &p->kernel, &p->dtype,
                     &p->shape,       &p->config,   &p->status, &p->reason};
    for (int i = 0; i < 8; i++)
        if (!(*text[i] = sb_db_column_repaired(st, 4 + i)))
            return sb_errf(e, SB_EFAIL, "out of memory");
    p->wl = sb_workload_find(p->workload);
    p->threads = sqlite3_column_int(st, 12);
    /* read as 64 bits and bounded: ppn x nodes is multiplied in an int
     * everywhere, and a database written by another program may hold
     * any number */
    sqlite3_int64 ppn = sqlite3_column_int64(st, 13), nodes = sqlite3_column_int64(st, 14);
    if (ppn > SB_DB_MAX_RANKS || nodes > SB_DB_MAX_RANKS ||
        (ppn > 0 ? ppn : 1) * (nodes > 0 ? nodes : 1) > SB_DB_MAX_RANKS)
        return sb_errf(e, SB_EUSAGE,
                       "point %lld: ppn %lld x nodes %lld is more than %d ranks: not a run"
                       " sprbench can show",
                       (long long)p->id, (long long)ppn, (long long)nodes, SB_DB_MAX_RANKS);
    p->ppn = ppn > 0 ? (int)ppn : 1;
    p->nodes = nodes > 0 ? (int)nodes : 1;
    snprintf(p->sweep_uuid, sizeof p->sweep_uuid, "%s",
             sqlite3_column_text(st, 15) ? (const char *)sqlite3_column_text(st, 15) : "");
    snprintf(p->sweep_started, sizeof p->sweep_started, "%s",
             (const char *)sqlite3_column_text(st, 16));
    p->nsweeps = 1;
    int rc;
    if ((rc = load_samples(r->db, r->ss, p, e)) || (rc = load_metrics(r->db, r->sm, p, e)) ||
        (p->npaired && (rc = load_pairing(r->db, r->sp, p, e))))
        return rc;
    return SB_OK;
}

int sb_ptset_load(sb_db *db, int64_t machine_id, int64_t sweep_id, sb_ptset *set, sb_err *e)
{
    set->p = NULL;
    set->n = 0;
    points_read r = {db, set, 0, NULL, NULL, NULL};
    int rc;
    if ((rc = sb_db_prepare(db, "reading samples",
                            "SELECT seconds, side, pair FROM sample WHERE point_id = ?"
                            " ORDER BY rep",
                            &r.ss, e)) ||
        (rc = sb_db_prepare(db, "reading pairing",
                            "SELECT mode, baseline, candidate FROM point_pairing"
                            " WHERE point_id = ?",
                            &r.sp, e)) ||
        (rc = sb_db_prepare(db, "reading metrics",
                            "SELECT name, value, unit, projected, source FROM metric"
                            " WHERE point_id = ? ORDER BY name",
                            &r.sm, e)))
        goto out;
    sb_db_arg a[] = {SB_DB_INT(machine_id), SB_DB_INT(sweep_id)};
    rc = sb_db_rows(
        db, "reading points",
        "SELECT p.id, p.sweep_id, COALESCE(p.machine_id, s.machine_id, 0), p.uuid,"
        " COALESCE(m.fingerprint, ''), p.workload, p.kernel, p.dtype, p.shape,"
        " p.config, p.status, p.reason, COALESCE(p.threads, 0),"
        " COALESCE(p.ppn, 1), COALESCE(p.nodes, 1), COALESCE(s.uuid, ''),"
        " COALESCE(s.started, '')"
        " FROM point p LEFT JOIN sweep s ON s.id = p.sweep_id"
        " LEFT JOIN machine m ON m.id = COALESCE(p.machine_id, s.machine_id)"
        " WHERE (?1 = 0 OR COALESCE(p.machine_id, s.machine_id) = ?1)"
        " AND (?2 = 0 OR p.sweep_id = ?2) ORDER BY " SB_DB_SWEEP_TIME("s") ", p.seq, p.uuid, p.id",
        a, 2, point_row, &r, e);
out:
    sqlite3_finalize(r.ss);
    sqlite3_finalize(r.sp);
    sqlite3_finalize(r.sm);
    if (rc) sb_ptset_free(set);
    return rc;
}

const sb_metric_val *sb_pt_metric(const sb_pt *p, const char *name)
{
    for (int i = 0; i < p->nmetrics; i++)
        if (!strcmp(p->metrics[i].name, name)) return &p->metrics[i];
    return NULL;
}

char *sb_pt_key(const sb_pt *p, int with_machine)
{
    /* \x1f separates fields: it cannot be confused with text inside them. */
    size_t n = strlen(p->workload) + strlen(p->kernel) + strlen(p->dtype) + strlen(p->shape) +
        strlen(p->config) + strlen(p->fingerprint) + 96;
    char *k = malloc(n);
    if (!k) return NULL;
    /* the scaling model's points (status 'projected') are never the same
     * configuration as a measured point: neither stands in for the other */
    snprintf(k, n, "%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%d\x1f%d\x1f%d%s",
             with_machine ? p->fingerprint : "", p->workload, p->kernel, p->dtype, p->shape,
             p->config, p->threads, p->ppn, p->nodes,
             p->status && !strcmp(p->status, "projected") ? "\x1fprojected" : "");
    return k;
}

void sb_pt_label(const sb_pt *p, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s", p->kernel[0] ? p->kernel : p->workload);
    if (p->dtype[0] && !strstr(p->kernel, p->dtype) && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, " %s", p->dtype);
    if (p->shape[0] && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, " %s", p->shape);
    /* an int8-only option that changes what ran (infer's attention int8)
     * is part of the configuration's key, so it is part of its name: two
     * rows must not read the same */
    const sb_workload *w = p->wl;
    if (w && w->int8_extra && p->config && p->config[0] == '{' && n >= 0 && (size_t)n < cap) {
        json_t *c = json_loads(p->config, 0, NULL);
        const char *v = json_string_value(json_object_get(c, w->int8_extra));
        if (v && (!w->int8_extra_default || strcmp(v, w->int8_extra_default)))
            n += snprintf(buf + n, cap - (size_t)n, " %s=%.32s", w->int8_extra, v);
        json_decref(c);
    }
    if (n >= 0 && (size_t)n < cap) n += snprintf(buf + n, cap - (size_t)n, " t%d", p->threads);
    if (p->ppn * p->nodes > 1 && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " %dx%d ranks", p->nodes, p->ppn);
}

typedef struct keyed {
    char *key;
    int idx;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

void sb_ptset_latest(sb_ptset *set)
{
    if (set->n < 2) return;
    int n0 = set->n;
    keyed *k = calloc((size_t)set->n, sizeof *k);
    char *keep = calloc((size_t)set->n, 1);
    int ok = k && keep;
    for (int i = 0; ok && i < set->n; i++) {
        k[i].idx = i;
        ok = (k[i].key = sb_pt_key(&set->p[i], 1)) != NULL;
    }
    if (ok) {
        qsort(k, (size_t)set->n, sizeof *k, cmp_keyed);
        /* in each group of one key (in the set's order, by time): the
         * newest ok, else the newest; and how many sweeps ran it */
        for (int g = 0; g < set->n;) {
            int end = g, best = -1, sweeps = 0;
            while (end < set->n && !strcmp(k[end].key, k[g].key)) {
                const sb_pt *p = &set->p[k[end].idx];
                if (!strcmp(p->status, "ok")) best = k[end].idx;
                sweeps += end == g || p->sweep_id != set->p[k[end - 1].idx].sweep_id;
                end++;
            }
            int at = best >= 0 ? best : k[end - 1].idx;
            keep[at] = 1;
            set->p[at].nsweeps = sweeps;
            g = end;
        }
        int w = 0;
        for (int i = 0; i < set->n; i++) {
            if (keep[i])
                set->p[w++] = set->p[i];
            else
                pt_free(&set->p[i]);
        }
        set->n = w;
    }
    for (int i = 0; k && i < n0; i++) free(k[i].key);
    free(k);
    free(keep);
}

/* ---- selections ---- */

static int all_digits(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

/* Rows of a lookup being counted (match): how many so far, the id of the
 * last, and where counting stops (0: never). */
typedef struct match_count {
    int most, *count;
    int64_t *id;
} match_count;

static int match_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    (void)e;
    match_count *m = ctx;
    (*m->count)++;
    *m->id = sqlite3_column_int64(st, 0);
    return m->most > 0 && *m->count >= m->most ? SB_DB_STOP : SB_OK;
}

/* Rows that the one-parameter query sql finds for spec (an exact value or a
 * prefix, as the query says): how many (counting stops at `most`), and the
 * id of the last. */
static int match(sb_db *db, const char *sql, const char *spec, int most, int *count, int64_t *id,
                 sb_err *e)
{
    *count = 0;
    *id = 0;
    match_count m = {most, count, id};
    sb_db_arg a[] = {SB_DB_TEXT(spec)};
    return sb_db_rows(db, "lookup", sql, a, 1, match_row, &m, e);
}

/* A sweep by number or uuid prefix: *found 0 when neither names one. */
static int sweep_by_id(sb_db *db, const char *spec, int64_t *sweep_id, int *found, sb_err *e)
{
    int n;
    int64_t id;
    int rc;
    *found = 0;
    if (all_digits(spec) && strlen(spec) < 16) {
        if ((rc = match(db, "SELECT id FROM sweep WHERE id = CAST(?1 AS INTEGER)", spec, 0, &n, &id,
                        e)))
            return rc;
        if (n == 1) {
            *sweep_id = id;
            *found = 1;
            return SB_OK;
        }
    }
    if (strlen(spec) >= 4 && strlen(spec) <= 32) {
        /* substr, not LIKE: '%' and '_' in the argument stay literal */
        if ((rc = match(db, "SELECT id FROM sweep WHERE substr(uuid, 1, length(?1)) = ?1", spec, 0,
                        &n, &id, e)))
            return rc;
        if (n == 1) {
            *sweep_id = id;
            *found = 1;
            return SB_OK;
        }
        if (n > 1)
            return sb_errf(e, SB_EUSAGE, "sweep '%s' is ambiguous (%d sweeps match)", spec, n);
    }
    return SB_OK;
}

/* A sweep by its label: the newest of that label (started last), as a
 * rerun of a study under the same name replaces the one before it. */
static int sweep_by_label(sb_db *db, const char *spec, int64_t *sweep_id, int *found, sb_err *e)
{
    int n;
    int64_t id;
    int rc = match(db, "SELECT id FROM sweep WHERE label = ?1 ORDER BY " SB_DB_SWEEP_TIME("sweep"),
                   spec, 0, &n, &id, e);
    if (rc) return rc;
    *found = n > 0;
    if (n) *sweep_id = id;
    return SB_OK;
}

int sb_sweep_resolve(sb_db *db, const char *spec, int64_t *sweep_id, sb_err *e)
{
    int found;
    int rc = sweep_by_id(db, spec, sweep_id, &found, e);
    if (!rc && !found) rc = sweep_by_label(db, spec, sweep_id, &found, e);
    if (rc || found) return rc;
    return sb_errf(e, SB_EUSAGE, "no sweep '%s' in the database (see sprbench db sweeps)", spec);
}

int sb_point_resolve(sb_db *db, const char *spec, int64_t *point_id, sb_err *e)
{
    size_t len = strlen(spec);
    int digits = len > 0 && len < 16 && strspn(spec, "0123456789") == len;
    if (!digits && (len < 4 || len > 32))
        return sb_errf(e, SB_EUSAGE,
                       "'%.64s' is neither a point number nor a uuid prefix of 4 to"
                       " 32 digits",
                       spec);
    /* substr, not LIKE: '%' and '_' in the argument stay literal */
    static const char *by_id = "SELECT id FROM point WHERE id = CAST(?1 AS INTEGER)",
                      *by_uuid = "SELECT id FROM point WHERE substr(uuid, 1, length(?1)) = ?1";
    int n;
    int64_t id;
    int rc = match(db, digits ? by_id : by_uuid, spec, 2, &n, &id, e);
    /* a uuid prefix can be all digits (1 in 40 of 8 characters): no point of
     * that number, then the uuids, as sweeps are found */
    if (!rc && n == 0 && digits && len >= 4 && len <= 32)
        rc = match(db, by_uuid, spec, 2, &n, &id, e);
    if (rc) return rc;
    if (n == 1) {
        *point_id = id;
        return SB_OK;
    }
    if (n > 1) return sb_errf(e, SB_EUSAGE, "point '%.64s' is ambiguous", spec);
    return sb_errf(e, SB_EUSAGE, "no point '%.64s' in the database (see sprbench db points)", spec);
}

/* sel's label from the row sql finds for id (none: the label stays). */
static int label_read(sb_db *db, const char *sql, int64_t id, sb_db_row_fn row, sb_selection *sel,
                      sb_err *e)
{
    int found;
    sb_db_arg a[] = {SB_DB_INT(id)};
    return sb_db_row(db, "selection", sql, a, 1, row, sel, &found, e);
}

static int label_sweep_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    (void)e;
    sb_selection *sel = ctx;
    sel->machine_id = sqlite3_column_int64(st, 0);
    const char *label = (const char *)sqlite3_column_text(st, 1);
    const char *host = (const char *)sqlite3_column_text(st, 2);
    const char *ua = (const char *)sqlite3_column_text(st, 3);
    if (!label) label = "";
    if (!host) host = "";
    if (!ua) ua = "";
    /* each text cut between characters */
    snprintf(sel->label, sizeof sel->label, "sweep %lld%s%.*s%s%.*s%s%.*s",
             (long long)sel->sweep_id, *label ? " " : "", sb_text_prefix(label, 100), label,
             *ua || *host ? " on " : "", sb_text_prefix(ua, 40), ua, *ua && *host ? " " : "",
             sb_text_prefix(host, 80), host);
    return SB_OK;
}

/* sel's label: "sweep ID LABEL on HOST" or "HOST (FINGERPRINT)". */
static int label_sweep(sb_db *db, sb_selection *sel, sb_err *e)
{
    return label_read(db,
                      "SELECT COALESCE(s.machine_id, 0), COALESCE(s.label, ''),"
                      " COALESCE(m.hostname, ''),"
                      " CASE WHEN m.id IS NULL THEN '' ELSE " SB_DB_MACHINE_NAME("m") " END"
                      " FROM sweep s"
                      " LEFT JOIN machine m ON m.id = s.machine_id WHERE s.id = ?",
                      sel->sweep_id, label_sweep_row, sel, e);
}

static int label_machine_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    (void)e;
    sb_selection *sel = ctx;
    /* "Zen 4 vm (6299f44b6ad52317)": host names of cloud guests ("vm") tell
     * machines apart less often than their microarchitecture */
    const char *ua = (const char *)sqlite3_column_text(st, 2);
    snprintf(sel->label, sizeof sel->label, "%.*s%s%.*s (%.64s)",
             sb_text_prefix(ua ? ua : "", 60), ua ? ua : "", ua && *ua ? " " : "",
             sb_text_prefix((const char *)sqlite3_column_text(st, 0), 100),
             (const char *)sqlite3_column_text(st, 0), sqlite3_column_text(st, 1));
    return SB_OK;
}

static int label_machine(sb_db *db, sb_selection *sel, sb_err *e)
{
    return label_read(db,
                      "SELECT COALESCE(hostname, ''), fingerprint,"
                      " " SB_DB_MACHINE_NAME("machine") " FROM machine WHERE id = ?",
                      sel->machine_id, label_machine_row, sel, e);
}

/* A machine as a selector can name it beyond its fingerprint. */
typedef struct mrow {
    int64_t id;
    char fp[80], host[128], cpu[160], ua[80];
    int amx; /* 1 AMX the OS granted, 0 none, -1 not recorded */
} mrow;

static int mrow_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    sb_db_list *l = ctx;
    mrow *m = sb_db_push(&l->v, &l->n, &l->cap, sizeof *m, e);
    if (!m) return SB_EFAIL;
    m->id = sqlite3_column_int64(st, 0);
    snprintf(m->fp, sizeof m->fp, "%s", (const char *)sqlite3_column_text(st, 1));
    snprintf(m->host, sizeof m->host, "%s", (const char *)sqlite3_column_text(st, 2));
    snprintf(m->cpu, sizeof m->cpu, "%s", (const char *)sqlite3_column_text(st, 3));
    snprintf(m->ua, sizeof m->ua, "%s", (const char *)sqlite3_column_text(st, 4));
    m->amx = sqlite3_column_int(st, 5);
    return SB_OK;
}

static int machines_all(sb_db *db, mrow **v, int *n, sb_err *e)
{
    sb_db_list l = {0};
    int rc = sb_db_rows(db, "lookup",
                        "SELECT id, fingerprint, COALESCE(hostname, ''), COALESCE(cpu_model, ''),"
                        " " SB_DB_UARCH("machine") ", COALESCE(amx_os_permitted, -1)"
                        " FROM machine ORDER BY id",
                        NULL, 0, mrow_row, &l, e);
    return sb_db_list_give(&l, rc, v, n);
}

/* A microarchitecture as people write it: "zen4", "emerald-rapids",
 * "granite-rapids" for a Granite Rapids-class part, "spr", "icelake-server"
 * (sb_uarch_matches). */
static int uarch_is(const char *spec, const char *ua) { return sb_uarch_matches(spec, ua); }

/* A machine by the name every display gives it, AMX state and all, as
 * people write it: "Emerald Rapids (AMX)", "emerald-rapids-amx",
 * "emerald-rapids-no-amx", "zen4-no-amx". */
static int display_is(const char *spec, const mrow *m)
{
    if (m->amx < 0 || !m->ua[0]) return 0;
    char t[96], d[128];
    sb_uarch_table_of(m->ua, t, sizeof t);
    snprintf(d, sizeof d, "%s %s", t, m->amx ? "AMX" : "no AMX");
    return sb_uarch_matches(spec, d);
}

/* The selector that names m alone, as a person types it: its display name
 * as a word ("emerald-rapids-amx", "zen4-no-amx") when that matches no
 * other machine, else its fingerprint. */
static void exact_name(const mrow *v, int nv, int i, char *buf, size_t cap)
{
    char t[96];
    size_t w = 0;
    sb_uarch_table_of(v[i].ua, t, sizeof t);
    for (const char *c = t; *c && w + 1 < cap; c++) {
        if (isalnum((unsigned char)*c)) {
            buf[w++] = (char)tolower((unsigned char)*c);
        } else if (w && buf[w - 1] != '-' && !isdigit((unsigned char)c[1]) && c[1]) {
            buf[w++] = '-';
        }
    }
    buf[w] = '\0';
    if (v[i].amx >= 0 && w) snprintf(buf + w, cap - w, "%s", v[i].amx ? "-amx" : "-no-amx");
    int n = 0;
    for (int k = 0; k < nv && w; k++) n += display_is(buf, &v[k]);
    if (!w || v[i].amx < 0 || n != 1) snprintf(buf, cap, "%.16s", v[i].fp);
}

static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (!n) return 0;
    for (; *hay; hay++)
        if (!strncasecmp(hay, needle, n)) return 1;
    return 0;
}

/* The uuids of the sweeps a record (`db export` file) holds on machine fp,
 * comma-separated, into buf ("" when none). */
static void record_sweeps(const char *path, const char *fp, char *buf, size_t cap)
{
    buf[0] = '\0';
    json_t *doc = json_load_file(path, 0, NULL);
    size_t i, l = 0;
    json_t *s;
    json_array_foreach(json_object_get(doc, "sweeps"), i, s)
    {
        const char *u = json_string_value(json_object_get(s, "uuid"));
        const char *m = json_string_value(json_object_get(s, "machine"));
        if (!u || strlen(u) > 32 || (m && strcmp(m, fp))) continue;
        int w = snprintf(buf + l, cap - l, "%s%s", l ? "," : "", u);
        if (w < 0 || (size_t)w >= cap - l) break;
        l += (size_t)w;
    }
    json_decref(doc);
}

/* A record (`db export` file) names its machines by fingerprint. */
static int record_fingerprints(const char *path, char fps[][80], int cap, int *n)
{
    *n = 0;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    json_t *doc = json_load_file(path, 0, NULL);
    json_t *ms = json_object_get(doc, "machines");
    size_t i;
    json_t *m;
    json_array_foreach(ms, i, m)
    {
        const char *fp = json_string_value(json_object_get(m, "fingerprint"));
        if (fp && *n < cap) snprintf(fps[(*n)++], 80, "%s", fp);
    }
    json_decref(doc);
    return *n > 0;
}

/* SB_EUSAGE naming every machine a selector matched, each with the
 * selector that names it alone, so that the next try can be exact. */
static int ambiguous(const char *spec, const char *how, const mrow *v, const int *hit, int nv,
                     int n, sb_err *e)
{
    char list[700] = "";
    size_t l = 0;
    for (int i = 0; i < nv && l + 1 < sizeof list; i++) {
        if (!hit[i]) continue;
        /* two guests of one CPU model can differ in what the hypervisor
         * exposes: AMX tells an Emerald Rapids with it from one without */
        char exact[80];
        exact_name(v, nv, i, exact, sizeof exact);
        int w = snprintf(list + l, sizeof list - l, "%s%s (%.16s, %.40s, %.60s%s, host %.40s)",
                         l ? "; " : "", exact, v[i].fp, v[i].ua[0] ? v[i].ua : "?",
                         v[i].cpu[0] ? v[i].cpu : "?",
                         v[i].amx == 1   ? ", AMX"
                         : v[i].amx == 0 ? ", no AMX"
                                         : "",
                         v[i].host);
        if (w < 0) break;
        l += (size_t)w < sizeof list - l ? (size_t)w : sizeof list - l - 1;
    }
    return sb_errf(e, SB_EUSAGE,
                   "'%.64s' (%s) names %d machines: %s; the word before each bracket names"
                   " that machine alone",
                   spec, how, n, list);
}

int sb_select_resolve(sb_db *db, const char *spec, sb_selection *sel, sb_err *e)
{
    memset(sel, 0, sizeof *sel);
    int n = 0, rc, found;
    int64_t id;
    if (!spec || !*spec) return sb_errf(e, SB_EUSAGE, "empty machine or sweep name");
    /* numbers and uuids first, then machines, then sweep labels: a label
     * that is also a host name names the machine (all its sweeps) */
    if ((rc = sweep_by_id(db, spec, &sel->sweep_id, &found, e))) return rc;
    if (found) return label_sweep(db, sel, e);
    if ((rc = match(db, "SELECT id FROM machine WHERE fingerprint = ?1", spec, 0, &n, &id, e)))
        return rc;
    if (n == 0 && strlen(spec) >= 4 &&
        (rc = match(db, "SELECT id FROM machine WHERE substr(fingerprint, 1, length(?1)) = ?1",
                    spec, 0, &n, &id, e)))
        return rc;
    if (n == 1) {
        sel->machine_id = id;
        return label_machine(db, sel, e);
    }
    /* then by what a person calls a machine: its host name, its
     * microarchitecture ("zen4", "emerald-rapids"), a sweep label, a
     * substring of its CPU model, the record (export file) it came from */
    mrow *v;
    int nv;
    if ((rc = machines_all(db, &v, &nv, e))) return rc;
    int *hit = calloc((size_t)nv + 1, sizeof *hit);
    if (!hit) {
        free(v);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    const char *how = NULL;
    char fps[16][80];
    int nfp = 0;
    for (int pass = 0; pass < 4 && !how; pass++) {
        if (pass == 2) { /* an exact sweep label before the looser matches */
            if ((rc = sweep_by_label(db, spec, &sel->sweep_id, &found, e)) || found) {
                free(v);
                free(hit);
                return rc ? rc : label_sweep(db, sel, e);
            }
        }
        if (pass == 3 && !record_fingerprints(spec, fps, 16, &nfp)) break;
        n = 0;
        for (int i = 0; i < nv; i++) {
            hit[i] = pass == 0   ? !strcmp(v[i].host, spec)
                : pass == 1      ? uarch_is(spec, v[i].ua) || display_is(spec, &v[i])
                : pass == 2      ? strlen(spec) >= 3 && contains_ci(v[i].cpu, spec)
                                 : 0;
            for (int k = 0; pass == 3 && k < nfp; k++) hit[i] |= !strcmp(v[i].fp, fps[k]);
            n += hit[i];
        }
        if (n)
            how = pass == 0 ? "host name"
                : pass == 1 ? "microarchitecture"
                : pass == 2 ? "CPU model"
                            : "record file";
    }
    if (n > 1) {
        rc = ambiguous(spec, how, v, hit, nv, n, e);
    } else if (n == 1) {
        const char *fp = "";
        for (int i = 0; i < nv; i++)
            if (hit[i]) {
                sel->machine_id = v[i].id;
                fp = v[i].fp;
            }
        rc = label_machine(db, sel, e);
        /* a record names its sweeps too: the side is what the record holds,
         * not every sweep of its machine (two records of one machine) */
        char list[SB_SELECT_MAX_PINNED * 34];
        if (!rc && nfp) record_sweeps(spec, fp, list, sizeof list);
        if (!rc && nfp && list[0]) rc = sb_select_pin_sweeps(db, sel, list, spec, e);
    } else if (nfp) {
        rc = sb_errf(e, SB_EUSAGE, "%.200s: no machine of this record is in the database (import"
                     " it with sprbench db import)", spec);
    } else {
        rc = sb_errf(e, SB_EUSAGE,
                     "'%s' is neither a sweep (id, uuid or label) nor a machine (fingerprint,"
                     " host name, microarchitecture, CPU model or record file) in the database"
                     " (see sprbench db sweeps, db info)",
                     spec);
    }
    free(v);
    free(hit);
    return rc;
}

/* ---- pinned sweeps ---- */

/* 1 when sweep_id holds points of sel's side (is its sweep, or ran on its
 * machine), 0 when not. */
static int sweep_on_side(sb_db *db, const sb_selection *sel, int64_t sweep_id, int *on, sb_err *e)
{
    *on = 0;
    if (sel->sweep_id) {
        *on = sweep_id == sel->sweep_id;
        return SB_OK;
    }
    sb_db_arg a[] = {SB_DB_INT(sweep_id), SB_DB_INT(sel->machine_id)};
    return sb_db_row(db, "pinned sweep",
                     "SELECT 1 FROM sweep s WHERE s.id = ?1 AND (s.machine_id = ?2 OR"
                     " EXISTS (SELECT 1 FROM point p WHERE p.sweep_id = s.id"
                     " AND p.machine_id = ?2))",
                     a, 2, NULL, NULL, on, e);
}

/* A label among the side's sweeps: the newest of that label on its machine. */
static int label_on_side(sb_db *db, const sb_selection *sel, const char *spec, int64_t *id,
                         sb_err *e)
{
    int found;
    *id = 0;
    sb_db_arg a[] = {SB_DB_TEXT(spec), SB_DB_INT(sel->machine_id)};
    return sb_db_row(db, "pinned sweep",
                     "SELECT id FROM sweep WHERE label = ?1 AND machine_id = ?2"
                     " ORDER BY " SB_DB_SWEEP_TIME_DESC("sweep") " LIMIT 1",
                     a, 2, sb_db_int64_row, id, &found, e);
}

static int short_uuid_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    (void)e;
    snprintf(ctx, 9, "%s", (const char *)sqlite3_column_text(st, 0));
    return SB_OK;
}

/* The first 8 digits of a sweep's uuid ("" when it has none). */
static void sweep_short_uuid(sb_db *db, int64_t id, char out[9])
{
    int found;
    out[0] = '\0';
    sb_db_arg a[] = {SB_DB_INT(id)};
    sb_db_row(db, "pinned sweep", "SELECT substr(COALESCE(uuid, ''), 1, 8) FROM sweep WHERE id = ?",
              a, 1, short_uuid_row, out, &found, NULL);
}

int sb_select_pin_sweeps(sb_db *db, sb_selection *sel, const char *list, const char *what,
                         sb_err *e)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", list) >= (int)sizeof buf)
        return sb_errf(e, SB_EUSAGE, "%s: too long a list", what);
    int rc = SB_OK;
    if (sel->npinned) { /* pinned again (a record file, then --candidate-sweeps): its label too */
        char *at = strstr(sel->label, ", sweeps ");
        if (at) *at = '\0';
    }
    sel->npinned = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && !rc;
         tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ') tok++;
        if (!*tok) continue;
        int64_t id = 0;
        int on = 0;
        if (!sel->sweep_id && (rc = label_on_side(db, sel, tok, &id, e))) return rc;
        if (!id && (rc = sb_sweep_resolve(db, tok, &id, e))) {
            char why[sizeof e->msg];
            snprintf(why, sizeof why, "%s", e->msg);
            return sb_errf(e, rc, "%s: %s", what, why);
        }
        if ((rc = sweep_on_side(db, sel, id, &on, e))) return rc;
        if (!on)
            return sb_errf(e, SB_EUSAGE, "%s: sweep '%.64s' (sweep %lld) is not on this side (%s)",
                           what, tok, (long long)id, sel->label);
        int dup = 0;
        for (int k = 0; k < sel->npinned; k++) dup |= sel->pinned[k] == id;
        if (dup) continue;
        if (sel->npinned == SB_SELECT_MAX_PINNED)
            return sb_errf(e, SB_EUSAGE, "%s: at most %d sweeps", what, SB_SELECT_MAX_PINNED);
        sel->pinned[sel->npinned++] = id;
    }
    if (!sel->npinned) return sb_errf(e, SB_EUSAGE, "%s: no sweep given", what);
    /* the label names the sweeps by uuid: the same whatever order they were imported in */
    size_t l = strlen(sel->label);
    for (int k = 0; k < sel->npinned && l + 16 < sizeof sel->label; k++) {
        char u[9];
        sweep_short_uuid(db, sel->pinned[k], u);
        l += (size_t)snprintf(sel->label + l, sizeof sel->label - l, "%s%s", k ? ", " : ", sweeps ",
                              u[0] ? u : "?");
    }
    return SB_OK;
}

/* The sweeps of a pinned set in time order (SB_DB_SWEEP_TIME). */
static int sort_pinned(sb_db *db, int64_t *ids, int n, sb_err *e)
{
    static const char *sql =
        "SELECT COUNT(*) FROM sweep a, sweep b WHERE a.id = ?1 AND b.id = ?2 AND"
        " (julianday(a.started), a.started, a.uuid) > (julianday(b.started), b.started, b.uuid)";
    sqlite3_stmt *st;
    int rc = sb_db_prepare(db, "pinned sweeps", sql, &st, e);
    if (rc) return rc;
    for (int i = 1; i < n; i++) /* insertion sort: a few sweeps */
        for (int j = i; j > 0; j--) {
            int64_t later = 0;
            sb_db_arg a[] = {SB_DB_INT(ids[j - 1]), SB_DB_INT(ids[j])};
            sb_db_stmt(db, st, "pinned sweeps", a, 2, sb_db_int64_row, &later, NULL);
            if (later <= 0) break;
            int64_t t = ids[j];
            ids[j] = ids[j - 1];
            ids[j - 1] = t;
        }
    sqlite3_finalize(st);
    return SB_OK;
}

int sb_ptset_load_sel(sb_db *db, const sb_selection *sel, sb_ptset *set, sb_err *e)
{
    if (!sel->npinned)
        return sb_ptset_load(db, sel->sweep_id ? 0 : sel->machine_id, sel->sweep_id, set, e);
    int64_t ids[SB_SELECT_MAX_PINNED];
    memcpy(ids, sel->pinned, sizeof ids[0] * (size_t)sel->npinned);
    int rc = sort_pinned(db, ids, sel->npinned, e);
    set->p = NULL;
    set->n = 0;
    for (int k = 0; !rc && k < sel->npinned; k++) {
        sb_ptset one;
        if ((rc = sb_ptset_load(db, sel->sweep_id ? 0 : sel->machine_id, ids[k], &one, e))) break;
        sb_pt *np = realloc(set->p, sizeof *np * (size_t)(set->n + one.n + 1));
        if (!np) {
            sb_ptset_free(&one);
            rc = sb_errf(e, SB_EFAIL, "out of memory");
            break;
        }
        set->p = np;
        memcpy(set->p + set->n, one.p, sizeof *np * (size_t)one.n);
        set->n += one.n;
        free(one.p);
    }
    if (rc) sb_ptset_free(set);
    return rc;
}
