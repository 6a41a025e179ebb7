#include "sb_sweep_project.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "sb_query.h"
#include "sb_scaling.h"

int sb_sweep_model_input(const sb_train_obs *one, sb_scaling_input *in, sb_err *e)
{
    memset(in, 0, sizeof *in);
    if (!(one->step_s > 0))
        return sb_errf(e, SB_EUSAGE, "point %lld has no step time", (long long)one->point_id);
    if (one->features < 1 || one->batch < 1)
        return sb_errf(e, SB_EUSAGE, "point %lld does not record features and batch in its config",
                       (long long)one->point_id);
    in->step_compute_s = one->step_s;
    in->features = one->features;
    in->batch = one->batch;
    in->ppn = one->ppn > 0 ? one->ppn : 1;
    /* the point's model sizes where it records them, else distilbert-base's */
    sb_scaling_model_bytes(one->vocab, one->dim, one->layers, one->ffn, in);
    in->overlap_share = 0.67;
    return SB_OK;
}

void sb_sweep_calibrate(const sb_train_obs *one, const sb_train_obs *calib,
                        const sb_scaling_input *in, double *busbw_gbs)
{
    /* Epochs from the model's own step counts, so that only the measured
     * step times differ between the two points. */
    double epoch1 = one->step_s * (double)sb_scaling_steps(in->features, in->batch, in->ppn);
    double epochn = calib->step_s *
        (double)sb_scaling_steps(in->features, in->batch, in->ppn * calib->nodes);
    *busbw_gbs = sb_scaling_implied_busbw(in, epoch1, calib->nodes, epochn);
}

static int same_series(const sb_train_obs *a, const sb_train_obs *b)
{
    return !strcmp(a->kernel, b->kernel) && !strcmp(a->shape, b->shape) && a->ppn == b->ppn &&
        a->threads == b->threads;
}

int sb_sweep_project(sb_db *db, int64_t sweep_id, const int *nodes, int n, FILE *out, int *series,
                     sb_err *e)
{
    *series = 0;
    sb_train_obs *v = NULL;
    int nv = 0, rc = sb_db_train_points(db, sweep_id, &v, &nv, e);
    if (rc) return rc;
    for (int i = 0; i < nv && !rc;) {
        int j = i;
        while (j < nv && same_series(&v[i], &v[j])) j++;
        /* newest 1-node point, newest point at the largest node count */
        const sb_train_obs *one = NULL, *big = NULL;
        for (int q = i; q < j; q++) {
            if (v[q].nodes == 1) one = &v[q];
            if (v[q].nodes > 1 && (!big || v[q].nodes >= big->nodes)) big = &v[q];
        }
        char name[300];
        snprintf(name, sizeof name, "%s%s%s ppn=%d threads=%d", v[i].kernel,
                 v[i].shape[0] ? " " : "", v[i].shape, v[i].ppn, v[i].threads);
        i = j;
        if (!one || !big) continue;
        sb_scaling_input in;
        sb_err me = {0};
        if (sb_sweep_model_input(one, &in, &me)) {
            if (out) fprintf(out, "not projected: %s: %s\n", name, me.msg);
            continue;
        }
        double busbw = 0;
        sb_sweep_calibrate(one, big, &in, &busbw);
        if (!(busbw > 0)) {
            if (out)
                fprintf(out,
                        "not projected: %s: the measured %d-node step (%.4g s) is no slower than"
                        " the 1-node step (%.4g s), so it implies no network cost to project"
                        " with\n",
                        name, big->nodes, big->step_s, one->step_s);
            continue;
        }
        sb_scaling_fit_from_busbw(busbw, 0, &in.net);
        /* An effective bandwidth: whatever overlap the measured run achieved
         * is already in it, so none is applied on top (the projection then
         * passes through the calibration point). */
        in.overlap_share = 0;
        int auto_nodes[32], nn = n;
        const int *use = nodes;
        if (n <= 0) {
            nn = 0;
            for (int k = 1; k <= 4 * big->nodes && nn < 32; k *= 2) auto_nodes[nn++] = k;
            use = auto_nodes;
        }
        sb_scaling_point *sp = calloc((size_t)nn, sizeof *sp);
        sb_projection_point *pp = calloc((size_t)nn, sizeof *pp);
        if (!sp || !pp) {
            free(sp);
            free(pp);
            rc = sb_errf(e, SB_EFAIL, "out of memory");
            break;
        }
        if (sb_scaling_project(&in, use, nn, sp, &me)) {
            if (out) fprintf(out, "not projected: %s: %s\n", name, me.msg);
            free(sp);
            free(pp);
            continue;
        }
        for (int k = 0; k < nn; k++)
            pp[k] = (sb_projection_point){
                sp[k].nodes,           sp[k].epoch_overlap_s,    sp[k].epoch_no_overlap_s,
                sp[k].speedup_overlap, sp[k].efficiency_overlap, sp[k].comm_s,
                sp[k].exposed_s};
        char source[700], reason[300], list[200] = "";
        for (int k = 0, off = 0; k < nn && off < (int)sizeof list - 12; k++)
            off += snprintf(list + off, sizeof list - (size_t)off, "%s%d", k ? "," : "", use[k]);
        snprintf(
            source, sizeof source,
            "scaling model: step %.6g s measured on 1 node (point %lld), %ld features, batch %d,"
            " %d rank(s)/node, gradient %.0f B, overlap share %.2f; network: effective bus"
            " bandwidth %.4g GB/s calibrated on the measured %d-node point (point %lld), the"
            " overlap that run achieved folded in",
            one->step_s, (long long)one->point_id, in.features, in.batch, in.ppn, in.grad_bytes,
            in.overlap_share, busbw, big->nodes, (long long)big->point_id);
        snprintf(reason, sizeof reason,
                 "projected (not measured): scaling model from the measured 1-node step and the"
                 " %d-node point",
                 big->nodes);
        json_t *cfg = json_pack("{s:s, s:I, s:I, s:f, s:I, s:i, s:i, s:f, s:f, s:f, s:f, s:i}",
                                "model", "scaling", "from_point", (json_int_t)one->point_id,
                                "calibrated_on_point", (json_int_t)big->point_id, "step_seconds",
                                one->step_s, "features", (json_int_t)in.features, "batch", in.batch,
                                "ppn", in.ppn, "grad_bytes", in.grad_bytes, "last_bucket_bytes",
                                in.last_bucket_bytes, "overlap_share", in.overlap_share,
                                "busbw_gbs", busbw, "calibrated_on_nodes", big->nodes);
        char *cfg_s = cfg ? json_dumps(cfg, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
        json_decref(cfg);
        sb_projection pr = {.sweep_id = sweep_id,
                            .kernel = one->kernel,
                            .dtype = one->dtype,
                            .shape = one->shape,
                            .threads = one->threads,
                            .ppn = one->ppn,
                            .reason = reason,
                            .config = cfg_s,
                            .source = source,
                            .pts = pp,
                            .n = nn};
        rc = sb_db_add_projection(db, &pr, NULL, e);
        free(cfg_s);
        if (!rc) {
            (*series)++;
            if (out)
                fprintf(out,
                        "projected %s at nodes %s (not measured): epoch %.4g s at %d node(s),"
                        " %.4g s without overlap; network %.3g GB/s calibrated on the measured"
                        " %d-node point\n",
                        name, list, pp[nn - 1].epoch_s, pp[nn - 1].nodes,
                        pp[nn - 1].epoch_no_overlap_s, busbw, big->nodes);
        }
        free(sp);
        free(pp);
    }
    free(v);
    return rc;
}


int sb_sweep_model_source(sb_db *db, int64_t sweep_id, int ppn, sb_sweep_model_src *src, sb_err *e)
{
    memset(src, 0, sizeof *src);
    int have = 0;
    int rc = sb_db_sweep_exists(db, sweep_id, &have, e);
    if (rc) return rc;
    if (!have) return sb_errf(e, SB_EUSAGE, "no sweep %lld", (long long)sweep_id);
    sb_train_obs *v = NULL;
    int nv = 0;
    if ((rc = sb_db_train_points(db, sweep_id, &v, &nv, e))) return rc;
    int found = 0;
    for (int i = 0; i < nv && !found; i++)
        if (v[i].nodes == 1 && (ppn <= 0 || v[i].ppn == ppn)) src->one = v[i], found = 1;
    for (int i = 0; found && i < nv; i++)
        if (v[i].nodes > 1 && !strcmp(v[i].kernel, src->one.kernel) &&
            !strcmp(v[i].shape, src->one.shape) && v[i].ppn == src->one.ppn &&
            v[i].threads == src->one.threads && v[i].nodes >= src->calib.nodes)
            src->calib = v[i];
    free(v);
    if (!found)
        return sb_errf(e, SB_EUSAGE,
                       "sweep %lld has no measured 1-node training point (status ok, with "
                       "step_seconds)%s",
                       (long long)sweep_id, ppn > 0 ? " at that --ppn" : "");
    return sb_sweep_model_input(&src->one, &src->in, e);
}

int sb_sweep_store_projection(sb_db *db, const sb_scaling_job *j, int64_t from_sweep,
                              const sb_train_obs *one, int64_t *sweep_out, sb_err *e)
{
    const sb_scaling_input *in = &j->in;
    const sb_scaling_point *pts = j->pts;
    int nn = j->nodes.n;
    sb_projection_point *pp = calloc((size_t)nn, sizeof *pp);
    char source[1400], cfg[600], reason[200];
    snprintf(source, sizeof source,
             "scaling model: step %s; network %s; %ld features, batch %d,"
             " %d rank(s)/node, gradient %.0f B, overlap share %.2f",
             j->step_src, j->net_src, in->features, in->batch, in->ppn, in->grad_bytes,
             in->overlap_share);
    snprintf(cfg, sizeof cfg,
             "{\"model\":\"scaling\",\"step_seconds\":%.17g,\"features\":%ld,\"batch\":%d,"
             "\"ppn\":%d,\"grad_bytes\":%.17g,\"last_bucket_bytes\":%.17g,"
             "\"overlap_share\":%.17g,\"busbw_gbs\":%.17g,\"alpha_us\":%.17g}",
             j->step, in->features, in->batch, in->ppn, in->grad_bytes, in->last_bucket_bytes,
             in->overlap_share, j->busbw_eff, in->net.alpha_s * 1e6);
    snprintf(reason, sizeof reason, "projected (not measured) by `sprbench model`%s",
             from_sweep ? " from the measured 1-node step" : "");
    for (int i = 0; pp && i < nn; i++)
        pp[i] = (sb_projection_point){
            pts[i].nodes,           pts[i].epoch_overlap_s,    pts[i].epoch_no_overlap_s,
            pts[i].speedup_overlap, pts[i].efficiency_overlap, pts[i].comm_s,
            pts[i].exposed_s};
    sb_projection pr = {.sweep_id = from_sweep,
                        .new_sweep_label = "scaling model",
                        .kernel = from_sweep ? one->kernel : "scaling-model",
                        .dtype = from_sweep ? one->dtype : "f32",
                        .shape = from_sweep ? one->shape : "model=distilbert-base",
                        .threads = from_sweep ? one->threads : 0,
                        .ppn = in->ppn,
                        .reason = reason,
                        .config = cfg,
                        .source = source,
                        .pts = pp,
                        .n = nn};
    int rc = pp ? sb_db_add_projection(db, &pr, sweep_out, e)
                : sb_errf(e, SB_EUSAGE, "out of memory");
    free(pp);
    return rc;
}
