#include "sb_sweep_summary.h"
#include <stdlib.h>
#include <string.h>
#include "sb_db.h"
#include "sb_metric.h"
#include "sb_query.h"
#include "sb_text.h"
#include "sb_vendor.h"
#include "sb_vendor_cmp.h"

/* A sweep's summary rows, the database opened read-only for them alone.
 * Speedup is against the fewest-thread ok point of the same series
 * (kernel, shape, ppn, nodes) in this sweep. */
static int summary_rows(const char *db_path, int64_t sweep_id, sb_summary_row **v, int *n,
                        sb_err *e)
{
    sb_db *db;
    int rc = sb_db_open_readonly(db_path, &db, e);
    if (rc) return rc;
    rc = sb_db_sweep_summary(db, sweep_id, v, n, e);
    sb_db_close(db);
    return rc;
}

/* The summary rows as the vendor comparison's entries: a rate that ran ok,
 * else 0 (did not run); none for a lower-is-better headline, where "faster"
 * is not the larger figure. *e NULL when there is nothing to compare. */
static int vendor_rows(const sb_summary_row *v, int n, sb_vcmp_entry **e, sb_vcmp_row **rows,
                       int *nrows)
{
    *e = NULL;
    *rows = NULL;
    *nrows = 0;
    if (!n || v[0].lower) return 0;
    if (!(*e = calloc((size_t)n, sizeof **e))) return -1;
    for (int i = 0; i < n; i++)
        (*e)[i] = (sb_vcmp_entry){v[i].kernel, v[i].dtype, v[i].shape, v[i].threads, v[i].ppn,
                                  v[i].nodes,
                                  v[i].has_value && !strcmp(v[i].status, "ok") ? v[i].value : 0};
    if (sb_vcmp_rows(*e, n, rows, nrows) || !*nrows) {
        free(*e);
        *e = NULL;
        return *rows ? 0 : -1;
    }
    return 0;
}

/* The closing table: at each point where a vendor kernel was tried, our
 * fastest kernel against the faster vendor there, named, own/vendor (below
 * 1: ours is behind), and the other vendor beside it. */
static void vendor_table(const sb_summary_row *v, int n, FILE *f)
{
    sb_vcmp_entry *e;
    sb_vcmp_row *rows;
    int nr;
    if (vendor_rows(v, n, &e, &rows, &nr) || !e) return;
    const char **status = calloc((size_t)n, sizeof *status);
    for (int i = 0; status && i < n; i++) status[i] = v[i].status;
    fprintf(f, "\nown against the faster vendor at each point (medians; own/vendor below 1: ours"
               " is behind):\n%-9s %-20s %7s %4s %5s  %-13s %9s  %-22s %9s %10s  %s\n",
            "precision", "shape", "threads", "ppn", "nodes", "own", "median", "vendor (faster)",
            "median", "own/vendor", "other vendor");
    for (int i = 0; i < nr; i++) {
        const sb_vcmp_row *r = &rows[i];
        const sb_summary_row *a = &v[r->first];
        char d[64], sh[200], own[200], ven[200], oth[300], nm[200], gone[300], shown[400];
        fprintf(f, "%-9s %-20s %7d %4d %5d  ", sb_text_inert(d, sizeof d, a->dtype),
                sb_text_inert(sh, sizeof sh, a->shape[0] ? a->shape : "-"), a->threads, a->ppn,
                a->nodes);
        if (r->own >= 0)
            fprintf(f, "%-13s %9.1f  ", sb_text_inert(own, sizeof own, v[r->own].kernel),
                    v[r->own].value);
        else
            fprintf(f, "%-13s %9s  ", "none ran", "-");
        sb_vcmp_not_run(e, status, n, r, gone, sizeof gone);
        if (r->vendor < 0) {
            fprintf(f, "no vendor ran (%s)\n", sb_text_inert(shown, sizeof shown, gone));
            continue;
        }
        sb_text_inert(ven, sizeof ven, sb_vcmp_name(v[r->vendor].kernel, nm, sizeof nm));
        fprintf(f, "%-22s %9.1f", ven, v[r->vendor].value);
        if (r->own >= 0)
            fprintf(f, " %9.2fx", v[r->own].value / v[r->vendor].value);
        else
            fprintf(f, " %10s", "-");
        if (r->other >= 0) {
            sb_vcmp_name(v[r->other].kernel, nm, sizeof nm);
            snprintf(oth, sizeof oth, "%s %.1f", nm, v[r->other].value);
        } else
            snprintf(oth, sizeof oth, "%s", gone[0] ? gone : "-");
        fprintf(f, "  %s\n", sb_text_inert(shown, sizeof shown, oth));
    }
    free(status);
    free(rows);
    free(e);
}

int sb_sweep_summary(const char *db_path, int64_t sweep_id, FILE *f, sb_err *e)
{
    sb_summary_row *v;
    int n;
    int rc = summary_rows(db_path, sweep_id, &v, &n, e);
    if (rc) return rc;
    fprintf(f, "\n%-13s %-20s %7s %4s %5s  %-9s %12s %-8s %7s %8s %6s\n", "kernel", "shape",
            "threads", "ppn", "nodes", "status", "median", "unit", "speedup", "eff", "%peak");
    for (int i = 0; i < n; i++) {
        const sb_summary_row *r = &v[i];
        char kern[200], shape[200], status[64], unit[64]; /* read from the database */
        fprintf(f, "%-13s %-20s %7d %4d %5d  %-9s", sb_text_inert(kern, sizeof kern, r->kernel),
                sb_text_inert(shape, sizeof shape, r->shape[0] ? r->shape : "-"), r->threads,
                r->ppn, r->nodes, sb_text_inert(status, sizeof status, r->status));
        if (r->has_value) {
            fprintf(f, " %12.1f %-8s", r->value, sb_text_inert(unit, sizeof unit, r->unit));
            if (r->has_base && r->base_value > 0 && r->value > 0) {
                double speedup = sb_metric_speedup(r->value, r->base_value, r->lower);
                fprintf(f, " %6.2fx %7.0f%%", speedup,
                        100.0 * speedup / ((double)r->threads / r->base_threads));
            } else
                fprintf(f, " %7s %8s", "-", "-");
            if (r->has_pct) fprintf(f, " %5.1f%%", r->pct_peak);
            fputc('\n', f);
        } else {
            char cell[300];
            fprintf(f, "  %s\n", sb_text_cell(cell, sizeof cell, r->reason, 70, 0));
        }
    }
    vendor_table(v, n, f);
    sb_summary_rows_free(v, n);
    return SB_OK;
}

/* Stored text as a JSON string, invalid UTF-8 repaired (U+FFFD); a missing
 * text as "". */
static json_t *jtext(const char *s) { return sb_text_json(s ? s : ""); }

/* {"kernel", "vendor", "median"} of an entry, null for none */
static json_t *vendor_side(const sb_summary_row *v, int i)
{
    if (i < 0) return json_null();
    const char *ven = sb_vendor_of_kernel(v[i].kernel);
    return json_pack("{s:o,s:o,s:f}", "kernel", jtext(v[i].kernel), "vendor",
                     ven ? json_string(ven) : json_null(), "median", v[i].value);
}

/* The closing table's rows, as vendor_table prints them */
static json_t *vendor_json(const sb_summary_row *v, int n)
{
    sb_vcmp_entry *e;
    sb_vcmp_row *rows;
    int nr;
    json_t *a = json_array();
    if (!a || vendor_rows(v, n, &e, &rows, &nr) || !e) return a;
    const char **status = calloc((size_t)n, sizeof *status);
    for (int i = 0; status && i < n; i++) status[i] = v[i].status;
    for (int i = 0; i < nr; i++) {
        const sb_vcmp_row *r = &rows[i];
        const sb_summary_row *p = &v[r->first];
        char gone[300];
        sb_vcmp_not_run(e, status, n, r, gone, sizeof gone);
        int both = r->own >= 0 && r->vendor >= 0;
        int ran = r->vendor >= 0 ? r->vendor : r->own >= 0 ? r->own : r->first; /* has a unit */
        json_array_append_new(
            a, json_pack("{s:o,s:o,s:i,s:i,s:i,s:o,s:o,s:o,s:o,s:o,s:o}", "precision",
                         jtext(p->dtype), "shape", jtext(p->shape), "threads", p->threads, "ppn",
                         p->ppn, "nodes", p->nodes, "unit", jtext(v[ran].unit), "own",
                         vendor_side(v, r->own), "vendor", vendor_side(v, r->vendor),
                         "own_vs_vendor",
                         both ? json_real(v[r->own].value / v[r->vendor].value) : json_null(),
                         "other_vendor", vendor_side(v, r->other), "not_run", jtext(gone)));
    }
    free(status);
    free(rows);
    free(e);
    return a;
}

int sb_sweep_summary_json(const char *db_path, int64_t sweep_id, json_t **out, sb_err *e)
{
    *out = NULL;
    sb_summary_row *v;
    int n;
    int rc = summary_rows(db_path, sweep_id, &v, &n, e);
    if (rc) return rc;
    json_t *rows = json_array();
    for (int i = 0; i < n; i++) {
        const sb_summary_row *r = &v[i];
        json_t *o = json_object();
        json_object_set_new(o, "kernel", jtext(r->kernel));
        json_object_set_new(o, "shape", jtext(r->shape));
        json_object_set_new(o, "threads", json_integer(r->threads));
        json_object_set_new(o, "ppn", json_integer(r->ppn));
        json_object_set_new(o, "nodes", json_integer(r->nodes));
        json_object_set_new(o, "status", jtext(r->status));
        json_object_set_new(o, "reason", r->has_value ? json_null() : jtext(r->reason));
        json_object_set_new(o, "median", r->has_value ? json_real(r->value) : json_null());
        json_object_set_new(o, "unit", r->has_value ? jtext(r->unit) : json_null());
        /* as the table: against the fewest threads of the same series */
        int base = r->has_value && r->has_base && r->base_value > 0 && r->value > 0;
        double speedup = !base ? 0 : sb_metric_speedup(r->value, r->base_value, r->lower);
        json_object_set_new(o, "speedup", base ? json_real(speedup) : json_null());
        json_object_set_new(o, "speedup_base_threads",
                            base ? json_integer(r->base_threads) : json_null());
        json_object_set_new(o, "efficiency",
                            base ? json_real(speedup / ((double)r->threads / r->base_threads))
                                 : json_null());
        json_object_set_new(o, "pct_peak",
                            r->has_value && r->has_pct ? json_real(r->pct_peak) : json_null());
        json_array_append_new(rows, o);
    }
    json_t *vs = vendor_json(v, n);
    sb_summary_rows_free(v, n);
    *out = json_pack("{s:I,s:o,s:o}", "sweep_id", (json_int_t)sweep_id, "rows", rows,
                     "vs_vendor", vs ? vs : json_array());
    return *out ? SB_OK : sb_errf(e, SB_EFAIL, "out of memory");
}
