#include "sb_scaling_job.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_io.h"
#include "sb_result.h"

void sb_scaling_job_init(sb_scaling_job *j)
{
    *j = (sb_scaling_job){0};
    j->in.features = 88524;
    j->in.batch = 32;
    j->in.ppn = 2;
    sb_scaling_model_bytes(0, 0, 0, 0, &j->in); /* distilbert-base's */
    j->in.overlap_share = 0.67;
    j->alpha_us = 5;
    static const int nodes[] = {1, 2, 4, 8, 16, 64};
    j->nodes.n = (int)(sizeof nodes / sizeof nodes[0]);
    memcpy(j->nodes.v, nodes, sizeof nodes);
    snprintf(j->step_src, sizeof j->step_src, "given (--step-seconds)");
}

void sb_scaling_job_free(sb_scaling_job *j)
{
    free(j->sp);
    free(j->pts);
    free(j->checks);
    j->sp = NULL;
    j->pts = NULL;
    j->checks = NULL;
}

/* An allreduce result is a few hundred bytes per size (at most 4096 sizes)
 * plus rank 0's samples: 16 MiB holds any real one, and bounds what a wrong
 * path (/dev/zero, a huge file) can cost. */
#define ALLREDUCE_FILE_MAX (16 * SB_MIB)

static int load_curve(const char *path, sb_ab_fit *fit, char *what, size_t wcap, sb_err *e)
{
    char *text = NULL;
    size_t len = 0;
    int rrc = sb_read_file_max(path, ALLREDUCE_FILE_MAX, "sprbench allreduce result", &text, &len,
                               e);
    if (rrc) return rrc;
    json_error_t je;
    json_t *doc = json_loadb(text, len, 0, &je);
    free(text);
    if (!doc) return sb_errf(e, SB_EUSAGE, "%s:%d: %s", path, je.line, je.text);
    json_t *table = json_object_get(doc, "table");
    int ranks = (int)json_integer_value(json_object_get(doc, "ranks"));
    const char *wl = json_string_value(json_object_get(doc, "workload"));
    int rc = SB_OK;
    if (!wl || strcmp(wl, "allreduce") || !json_is_array(table) || json_array_size(table) < 2) {
        rc = sb_errf(e, SB_EUSAGE, "%s: not a `sprbench allreduce` result with a table of sizes",
                     path);
    } else if (ranks < 2) {
        rc = sb_errf(
            e, SB_EUSAGE,
            "%s: measured on %d rank; rerun it under mpirun with >= 2 ranks or give --busbw-gbs",
            path, ranks);
    } else {
        size_t n = json_array_size(table);
        size_t *bytes = calloc(n, sizeof *bytes);
        double *lat = calloc(n, sizeof *lat);
        for (size_t i = 0; i < n; i++) {
            json_t *row = json_array_get(table, i);
            bytes[i] = (size_t)json_integer_value(json_object_get(row, "bytes"));
            lat[i] = json_number_value(json_object_get(row, "lat_avg_us")) * 1e-6;
        }
        /* Bandwidth matters for the gradient: fit where messages are large. */
        rc = sb_scaling_fit(bytes, lat, (int)n, ranks, (size_t)1 << 20, fit, e);
        free(bytes);
        free(lat);
        if (!rc)
            snprintf(what, wcap, "fitted to %s (%d ranks, %d sizes >= 1 MiB)", path, ranks,
                     fit->points);
        else
            rc = sb_errf(e, SB_EUSAGE, "%s: %s", path, e->msg);
    }
    json_decref(doc);
    return rc;
}

/* The study's first measured 1-node point: the base of the step and the check. */
static const sb_study_point *study_base(const sb_scaling_job *j)
{
    for (int i = 0; i < j->nsp; i++)
        if (j->sp[i].nodes == 1 && !strcmp(j->sp[i].kind, "measured")) return &j->sp[i];
    return NULL;
}

int sb_scaling_job_inputs(sb_scaling_job *j, sb_err *e)
{
    sb_scaling_input *in = &j->in;
    int rc = j->study ? sb_study_load(j->study, &j->sp, &j->nsp, e) : SB_OK;
    if (rc) return rc;
    const sb_study_point *base = study_base(j);
    if (j->step <= 0) {
        if (!base)
            return sb_errf(e, SB_EUSAGE,
                           "--step-seconds is missing (or give --study with a 1-node point)");
        /* The study's 1-node epoch divided by its steps; that time already
         * holds its intra-node all-reduce, so this slightly overstates compute. */
        in->ppn = base->ppn;
        in->batch = base->batch;
        long steps = sb_scaling_steps(in->features, in->batch, in->ppn);
        j->step = base->epoch_s / (double)steps;
        snprintf(j->step_src, sizeof j->step_src, "%s: %s, %.0f s / %ld steps", j->study,
                 base->label, base->epoch_s, steps);
    }
    in->step_compute_s = j->step;
    if (j->curve) return load_curve(j->curve, &in->net, j->net_src, sizeof j->net_src, e);
    if (j->calib_busbw_gbs > 0) {
        sb_scaling_fit_from_busbw(j->calib_busbw_gbs, 0, &in->net);
        /* effective bandwidth: the measured run's overlap is in it already */
        if (!j->share_given) in->overlap_share = 0;
    } else {
        sb_scaling_fit_from_busbw(j->busbw_gbs, j->alpha_us, &in->net);
        snprintf(j->net_src, sizeof j->net_src, "given: bus bandwidth %g GB/s, alpha %g us",
                 j->busbw_gbs, j->alpha_us);
    }
    return SB_OK;
}

static void check_point(const sb_scaling_job *j, const sb_study_point *base, sb_scaling_check *c)
{
    const sb_study_point *s = c->s;
    const sb_scaling_input *in = &j->in;
    if (s->ppn != in->ppn || s->batch != in->batch) {
        c->status = SB_CHECK_OTHER_RUN;
        return;
    }
    if (base && strcmp(s->machine, base->machine)) {
        c->status = SB_CHECK_OTHER_MACHINE;
        return;
    }
    sb_scaling_point p;
    sb_err e;
    if (sb_scaling_project(in, &s->nodes, 1, &p, &e)) {
        c->status = SB_CHECK_NONE;
        return;
    }
    c->status = SB_CHECK_COMPARED;
    c->projected_s = !strcmp(s->kind, "ideal") ? p.ideal_s : p.epoch_overlap_s;
    c->no_overlap_s = p.epoch_no_overlap_s;
    c->gap_pct = 100.0 * (c->projected_s - s->epoch_s) / s->epoch_s;
    if (s->nodes > 1 && !strcmp(s->kind, "measured") && base)
        c->implied_busbw_gbs = sb_scaling_implied_busbw(in, base->epoch_s, s->nodes, s->epoch_s);
}

int sb_scaling_job_project(sb_scaling_job *j, sb_err *e)
{
    j->pts = calloc((size_t)j->nodes.n, sizeof *j->pts);
    j->checks = calloc((size_t)j->nsp + 1, sizeof *j->checks);
    if (!j->pts || !j->checks) return sb_errf(e, SB_EUSAGE, "out of memory");
    int rc = sb_scaling_project(&j->in, j->nodes.v, j->nodes.n, j->pts, e);
    if (rc) return rc;
    const sb_ab_fit *net = &j->in.net;
    j->busbw_eff = net->beta_s_per_byte > 0 ? 1e-9 / net->beta_s_per_byte : 0;
    const sb_study_point *base = study_base(j);
    for (int i = 0; i < j->nsp; i++) {
        j->checks[i].s = &j->sp[i];
        check_point(j, base, &j->checks[i]);
    }
    return SB_OK;
}

static json_t *checks_json(const sb_scaling_job *j)
{
    json_t *checks = json_array();
    for (int i = 0; i < j->nsp; i++) {
        const sb_scaling_check *c = &j->checks[i];
        const sb_study_point *s = c->s;
        if (c->status != SB_CHECK_COMPARED) continue;
        json_t *cj = json_pack("{s:s, s:i, s:s, s:f, s:f, s:f, s:f}", "label", s->label, "nodes",
                               s->nodes, "kind", s->kind, "published_s", s->epoch_s, "projected_s",
                               c->projected_s, "projected_no_overlap_s", c->no_overlap_s, "gap_pct",
                               c->gap_pct);
        if (c->implied_busbw_gbs > 0)
            json_object_set_new(cj, "implied_busbw_gbs", json_real(c->implied_busbw_gbs));
        json_array_append_new(checks, cj);
    }
    return checks;
}

json_t *sb_scaling_result_json(const sb_scaling_job *j, int argc, char *const argv[])
{
    const sb_scaling_input *in = &j->in;
    json_t *metrics = json_object(), *units = json_object(), *proj = json_object(),
           *table = json_array(), *nodesj = json_array();
    char from[1024];
    snprintf(from, sizeof from, "scaling model: step %s; network %s", j->step_src, j->net_src);
    for (int i = 0; i < j->nodes.n; i++) {
        const sb_scaling_point *p = &j->pts[i];
        json_array_append_new(nodesj, json_integer(p->nodes));
        struct {
            const char *name, *unit;
            double v;
        } m[] = {
            {"epoch_seconds_overlap", "s", p->epoch_overlap_s},
            {"epoch_seconds_no_overlap", "s", p->epoch_no_overlap_s},
            {"epoch_seconds_ideal", "s", p->ideal_s},
            {"speedup", "x", p->speedup_overlap},
            {"efficiency", "fraction", p->efficiency_overlap},
            {"comm_seconds_per_step", "s", p->comm_s},
            {"exposed_seconds_per_step", "s", p->exposed_s},
        };
        for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
            char name[96];
            snprintf(name, sizeof name, "%s_n%d", m[k].name, p->nodes);
            sb_result_metric(metrics, units, name, m[k].v, m[k].unit);
            json_object_set_new(proj, name, json_string(from));
        }
        json_array_append_new(
            table,
            json_pack("{s:i, s:i, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "nodes", p->nodes,
                      "ranks", p->ranks, "steps", (json_int_t)p->steps, "comm_s", p->comm_s,
                      "exposed_s", p->exposed_s, "epoch_no_overlap_s", p->epoch_no_overlap_s,
                      "epoch_overlap_s", p->epoch_overlap_s, "ideal_s", p->ideal_s, "speedup",
                      p->speedup_overlap, "efficiency", p->efficiency_overlap));
    }
    json_t *cfg = json_pack(
        "{s:s, s:o, s:i, s:i, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:s}", "model",
        "distilbert-base-uncased", "nodes", nodesj, "ppn", in->ppn, "batch", in->batch, "features",
        (json_int_t)in->features, "step_seconds", j->step, "grad_bytes", in->grad_bytes,
        "last_bucket_bytes", in->last_bucket_bytes, "overlap_share", in->overlap_share, "busbw_gbs",
        j->busbw_eff, "alpha_us", in->net.alpha_s * 1e6, "step_source", j->step_src,
        "network_source", j->net_src);
    json_object_set_new(cfg, "study_check", checks_json(j));
    json_t *doc = sb_result_new(&(sb_result_head){"train", "scaling-model", "f32", 0, in->ppn,
                                                  in->ppn, j->nodes.v[j->nodes.n - 1], "ok", ""});
    json_object_set_new(doc, "config", cfg);
    json_object_set_new(doc, "metrics", metrics);
    json_object_set_new(doc, "units", units);
    json_object_set_new(doc, "projected", proj);
    json_object_set_new(doc, "table", table);
    sb_result_seal(doc, argc, argv, NULL, NULL);
    return doc;
}
