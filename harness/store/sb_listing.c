#include "sb_listing.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "sb_db_ingest.h"
#include "sb_metric.h"
#include "sb_ptset.h"
#include "sb_query.h"
#include "sb_stats.h"
#include "sb_text.h"

/* The buffers of one printf's table cells, on the caller's stack: each
 * cell() takes the next slot, so that a printf can take several. */
typedef struct cells {
    char b[8][1024];
    int next;
} cells;

/* A text as a table cell: one line, `width` terminal columns (padded when
 * pad), controls as '?', invalid UTF-8 as U+FFFD, cut between characters;
 * in the next of c's buffers (a printf's cells, at most 8, then reused). */
static const char *cell(cells *c, const char *s, int width, int pad)
{
    char *b = c->b[c->next++ % 8];
    return sb_text_cell(b, sizeof c->b[0], s, width, pad);
}

/* A column wide enough for its header and every value in it (terminal
 * columns, wide characters two): a listing never cuts a label, a shape or a
 * host name, which are what --sweep, --baseline and --candidate take. */
static int widen(int w, const char *s)
{
    char b[2048];
    int cols = (int)strlen(sb_text_cell(b, sizeof b, s ? s : "", 1000, 0));
    /* bytes bound columns from above (a wide character is 3 bytes, 2 columns) */
    return cols > w ? cols : w;
}

int sb_listing_info(sb_db *db, const char *path, FILE *f, sb_err *e)
{
    cells tc = {.next = 0};
    sb_db_counts c;
    sb_machine_row *m;
    int n, rc;
    if ((rc = sb_db_count_rows(db, &c, e)) || (rc = sb_db_machines(db, &m, &n, e))) return rc;
    fprintf(f, "database   %s\nschema     %d%s\n", cell(&tc, path, 200, 0),
            sb_db_schema_version(db),
            sb_db_schema_version(db) < SB_DB_SCHEMA_VERSION ? " (older: read as is, upgraded by"
                                                              " the next command that writes)"
                                                            : "");
    static const char *const tables[] = {"machine", "sweep", "point", "sample", "metric"};
    const long rows[] = {c.machines, c.sweeps, c.points, c.samples, c.metrics};
    for (int i = 0; i < 5; i++) fprintf(f, "%-10s %ld rows\n", tables[i], rows[i]);
    /* the microarchitecture is what tells cloud guests (all "vm") apart and
     * what --baseline/--candidate take: never cut */
    int wu = 9, wh = 8;
    for (int i = 0; i < n; i++) {
        wu = widen(wu, m[i].microarch);
        wh = widen(wh, m[i].hostname);
    }
    fprintf(f, "\nmachines:\n%-18s %-*s %-*s %6s %7s  %s\n", "fingerprint", wh, "hostname", wu,
            "microarch", "cores", "points", "cpu");
    for (int i = 0; i < n; i++)
        fprintf(f, "%s %s %s %6d %7ld  %s\n", cell(&tc, m[i].fingerprint, 18, 1),
                cell(&tc, m[i].hostname, wh, 1), cell(&tc, m[i].microarch, wu, 1), m[i].cores,
                m[i].points, cell(&tc, m[i].cpu_model, 120, 0));
    sb_machine_rows_free(m, n);
    return SB_OK;
}

/* One document on the stream, nothing else there: what --json promises. */
static int emit_json(json_t *doc, FILE *f, sb_err *e)
{
    if (!doc) return sb_errf(e, SB_EFAIL, "out of memory");
    int rc = sb_text_json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (rc) return sb_errf(e, SB_EFAIL, "cannot write the JSON document");
    fputc('\n', f);
    return SB_OK;
}

int sb_listing_sweeps_json(sb_db *db, FILE *f, sb_err *e)
{
    sb_sweep_row *v;
    int n;
    int rc = sb_db_sweeps(db, &v, &n, e);
    if (rc) return rc;
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        const sb_sweep_row *s = &v[i];
        json_t *o = json_object();
        json_object_set_new(o, "id", json_integer(s->id));
        json_object_set_new(o, "uuid", sb_text_json(s->uuid));
        json_object_set_new(o, "label", sb_text_json(s->label));
        json_object_set_new(o, "workload", sb_text_json(s->workload));
        json_object_set_new(o, "hostname", sb_text_json(s->hostname));
        json_object_set_new(o, "microarch", sb_text_json(s->microarch));
        json_object_set_new(o, "cpu_model", sb_text_json(s->cpu_model));
        json_object_set_new(o, "tool_version", sb_text_json(s->tool_version));
        json_object_set_new(o, "status", sb_text_json(s->status));
        json_object_set_new(o, "started", sb_text_json(s->started));
        json_object_set_new(o, "points", json_integer(s->points));
        json_object_set_new(o, "ok", json_integer(s->ok));
        json_object_set_new(o, "skipped", json_integer(s->skipped));
        json_object_set_new(o, "other", json_integer(s->points - s->ok - s->skipped));
        json_object_set_new(o, "held_by",
                            s->held ? json_pack("{s:I,s:o}", "pid", (json_int_t)s->holder_pid,
                                                "host", sb_text_json(s->holder_host))
                                    : json_null());
        json_array_append_new(arr, o);
    }
    sb_sweep_rows_free(v, n);
    return emit_json(json_pack("{s:o}", "sweeps", arr), f, e);
}

int sb_listing_sweeps(sb_db *db, FILE *f, sb_err *e)
{
    cells tc = {.next = 0};
    sb_sweep_row *v;
    int n;
    int rc = sb_db_sweeps(db, &v, &n, e);
    if (rc) return rc;
    int wl = 5, ww = 8, wh = 4, ws = 6, wu = 9, wv = 7;
    for (int i = 0; i < n; i++) {
        wu = widen(wu, v[i].microarch);
        wv = widen(wv, v[i].tool_version);
        wl = widen(wl, v[i].label);
        ww = widen(ww, v[i].workload);
        wh = widen(wh, v[i].hostname);
        ws = widen(ws, v[i].status);
    }
    fprintf(f, "%5s  %-8s  %-*s  %-*s  %-*s  %-*s  %-*s  %-*s  %-20s  %s\n", "id", "uuid", wl,
            "label", ww, "workload", wu, "microarch", wh, "host", wv, "version", ws, "status",
            "started", "points (ok/skipped/other)");
    for (int i = 0; i < n; i++) {
        const sb_sweep_row *s = &v[i];
        /* the uuid's first 8 hex digits: a prefix --sweep accepts, not cut text */
        fprintf(f, "%5lld  %-8.8s  %s  %s  %s  %s  %s  %s  %s  %d (%d/%d/%d)", (long long)s->id,
                s->uuid, cell(&tc, s->label, wl, 1), cell(&tc, s->workload, ww, 1),
                cell(&tc, s->microarch, wu, 1), cell(&tc, s->hostname, wh, 1),
                cell(&tc, s->tool_version, wv, 1), cell(&tc, s->status, ws, 1),
                cell(&tc, s->started, 20, 1), s->points, s->ok, s->skipped,
                s->points - s->ok - s->skipped);
        if (s->held)
            fprintf(f, "  run by process %lld on %s", s->holder_pid,
                    cell(&tc, s->holder_host, 200, 0));
        fputc('\n', f);
    }
    sb_sweep_rows_free(v, n);
    return SB_OK;
}

/* The metric worth one glance: the point's first headline in the metric
 * table's order (gflops, tokens_per_s, triad_gbps, epoch_seconds), else its
 * first metric. */
static const sb_metric_val *main_metric(const sb_pt *p)
{
    for (int i = 0; i < sb_metric_count(); i++) {
        const sb_metric_info *mi = sb_metric_at(i);
        if (mi->role != SB_MROLE_HEADLINE || mi->star != SB_MSTAR_NONE) continue;
        const sb_metric_val *m = sb_pt_metric(p, mi->name);
        if (m) return m;
    }
    return p->nmetrics ? &p->metrics[0] : NULL;
}

int sb_listing_points_json(sb_db *db, int64_t sweep_id, FILE *f, sb_err *e)
{
    sb_ptset set;
    int rc = sb_ptset_load(db, 0, sweep_id, &set, e);
    if (rc) return rc;
    json_t *arr = json_array();
    for (int i = 0; i < set.n; i++) {
        const sb_pt *p = &set.p[i];
        json_t *o = json_object();
        json_object_set_new(o, "id", json_integer(p->id));
        json_object_set_new(o, "uuid", sb_text_json(p->uuid));
        json_object_set_new(o, "sweep_id", json_integer(p->sweep_id));
        json_object_set_new(o, "machine_fingerprint", sb_text_json(p->fingerprint));
        json_object_set_new(o, "workload", sb_text_json(p->workload));
        json_object_set_new(o, "kernel", sb_text_json(p->kernel));
        json_object_set_new(o, "dtype", sb_text_json(p->dtype));
        json_object_set_new(o, "shape", sb_text_json(p->shape));
        json_object_set_new(o, "config", sb_text_json(p->config));
        json_object_set_new(o, "threads", json_integer(p->threads));
        json_object_set_new(o, "ppn", json_integer(p->ppn));
        json_object_set_new(o, "nodes", json_integer(p->nodes));
        json_object_set_new(o, "ranks", json_integer(p->ppn * p->nodes));
        json_object_set_new(o, "status", sb_text_json(p->status));
        json_object_set_new(o, "reason", sb_text_json(p->reason));
        json_t *sm = json_array();
        for (int k = 0; k < p->nsamples; k++) json_array_append_new(sm, json_real(p->samples[k]));
        json_object_set_new(o, "samples_seconds", sm);
        if (p->nsamples) {
            json_object_set_new(o, "median_seconds", json_real(sb_median(p->samples, p->nsamples)));
            json_object_set_new(o, "p10_seconds",
                                json_real(sb_quantile(p->samples, p->nsamples, 0.1)));
            json_object_set_new(o, "p90_seconds",
                                json_real(sb_quantile(p->samples, p->nsamples, 0.9)));
        }
        json_t *ms = json_object();
        for (int k = 0; k < p->nmetrics; k++) {
            const sb_metric_val *m = &p->metrics[k];
            json_t *mo = json_pack("{s:f,s:o,s:b}", "value", m->value, "unit",
                                   sb_text_json(m->unit), "projected", m->projected);
            if (m->projected && m->source && m->source[0])
                json_object_set_new(mo, "projected_from", sb_text_json(m->source));
            json_object_set_new(ms, m->name, mo);
        }
        json_object_set_new(o, "metrics", ms);
        json_array_append_new(arr, o);
    }
    sb_ptset_free(&set);
    return emit_json(json_pack("{s:I,s:o}", "sweep_id", (json_int_t)sweep_id, "points", arr), f, e);
}

int sb_listing_points(sb_db *db, int64_t sweep_id, FILE *f, sb_err *e)
{
    cells tc = {.next = 0};
    sb_ptset set;
    int rc = sb_ptset_load(db, 0, sweep_id, &set, e);
    if (rc) return rc;
    int ww = 8, wk = 6, wd = 5, wsh = 5, ws = 6;
    for (int i = 0; i < set.n; i++) {
        ww = widen(ww, set.p[i].workload);
        wk = widen(wk, set.p[i].kernel);
        wd = widen(wd, set.p[i].dtype);
        wsh = widen(wsh, set.p[i].shape);
        ws = widen(ws, set.p[i].status);
    }
    fprintf(f, "%6s  %-*s  %-*s  %-*s  %-*s  %3s  %5s  %-*s  %3s  %-30s  %s\n", "id", ww,
            "workload", wk, "kernel", wd, "dtype", wsh, "shape", "thr", "ranks", ws, "status", "n",
            "median s (p10-p90)", "metric / reason");
    for (int i = 0; i < set.n; i++) {
        const sb_pt *p = &set.p[i];
        char spread[64] = "-", what[512] = "";
        const char *reason = NULL;
        if (p->nsamples)
            snprintf(spread, sizeof spread, "%.4g (%.4g-%.4g)", sb_median(p->samples, p->nsamples),
                     sb_quantile(p->samples, p->nsamples, 0.1),
                     sb_quantile(p->samples, p->nsamples, 0.9));
        const sb_metric_val *m = main_metric(p);
        const sb_metric_val *ep = sb_pt_metric(p, "epoch_seconds");
        if (!strcmp(p->status, "projected") && ep) /* the scaling model's: nothing ran */
            snprintf(what, sizeof what, "epoch_seconds=%.4g s (projected, not measured)",
                     ep->value);
        else if (strcmp(p->status, "ok") && p->reason[0])
            reason = p->reason;
        else if (m)
            snprintf(what, sizeof what, "%s=%.4g%s%s%s", m->name, m->value, m->unit[0] ? " " : "",
                     m->unit, m->projected ? " (projected)" : "");
        fprintf(f, "%6lld  %s  %s  %s  %s  %3d  %5d  %s  %3d  %-30s  %s\n", (long long)p->id,
                cell(&tc, p->workload, ww, 1), cell(&tc, p->kernel, wk, 1),
                cell(&tc, p->dtype, wd, 1), cell(&tc, p->shape, wsh, 1), p->threads,
                p->ppn * p->nodes, cell(&tc, p->status, ws, 1), p->nsamples, spread,
                cell(&tc, reason ? reason : what, 400, 0));
    }
    sb_ptset_free(&set);
    return SB_OK;
}

static void print_stream(FILE *f, const char *name, const char *text, long long total)
{
    size_t kept = strlen(text);
    if ((long long)kept >= total)
        fprintf(f, "--- %s: %lld byte(s) ---\n", name, total);
    else
        fprintf(f, "--- %s: the last %zu of %lld bytes ---\n", name, kept, total);
    sb_text_visible(f, text, kept);
    if (kept && text[kept - 1] != '\n') fputc('\n', f);
}

int sb_listing_log(sb_db *db, const char *spec, FILE *f, sb_err *e)
{
    cells tc = {.next = 0};
    int64_t id = 0;
    int rc = sb_point_resolve(db, spec, &id, e);
    if (rc) return rc;
    sb_point_brief b;
    int known;
    if ((rc = sb_db_point_brief(db, id, &b, &known, e))) return rc;
    if (known)
        fprintf(f, "point %lld of sweep %lld: %s %s %s threads %d, status %s\n", (long long)id,
                (long long)b.sweep_id, cell(&tc, b.workload, 16, 0), cell(&tc, b.kernel, 64, 0),
                cell(&tc, b.shape, 64, 0), b.threads, cell(&tc, b.status, 16, 0));
    sb_point_brief_free(&b);
    sb_point_log log;
    int found;
    if ((rc = sb_db_point_log_get(db, id, &log, &found, e))) return rc;
    if (!found) {
        fprintf(f,
                "no worker output kept (the point never ran, ran before sprbench kept it, or"
                " came from an export without it)\n");
        return SB_OK;
    }
    print_stream(f, "stdout", log.out, log.out_bytes);
    print_stream(f, "stderr", log.err, log.err_bytes);
    sb_point_log_free(&log);
    return SB_OK;
}

void sb_listing_import_stats(FILE *f, const char *what, const sb_import_stats *s)
{
    cells tc = {.next = 0};
    fprintf(f,
            "%s: %ld point(s) added (%ld sample(s), %ld metric(s)), %ld already present;"
            " %ld sweep(s), %ld machine(s) added",
            cell(&tc, what, 300, 0), s->points_added, s->samples_added, s->metrics_added,
            s->points_present, s->sweeps_added, s->machines_added);
    if (s->points_updated) fprintf(f, "; %ld unfinished point(s) completed", s->points_updated);
    fprintf(f, "\n");
}
