/* sprbench model: projected epoch time for N nodes from a measured step time
 * and a measured all-reduce curve, with and without overlap, checked against
 * the original study's published points. The projection is
 * bench/sb_scaling_job's; a sweep's measured point comes from run/sb_sweep,
 * and the store keeps the projection. This parses, calls and prints. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_db.h"
#include "sb_db_project.h"
#include "sb_opts.h"
#include "sb_result.h"
#include "sb_scaling_job.h"
#include "sb_sweep.h"
#include "sb_sweep_project.h"

static void model_help(void)
{
    printf("usage: sprbench model --step-seconds S (--allreduce-file F | --busbw-gbs B)\n"
           "                      [--nodes 1,2,4,8,16,64] [--ppn P] [--features N] [--batch B]\n"
           "                      [--study FILE] [--result-file F]\n"
           "                      [--db F [--from-sweep ID]]\n\n"
           "Projects the epoch time of data-parallel DistilBERT training on N nodes from one\n"
           "measured step time and one measured MPI_Allreduce curve. Every figure it prints\n"
           "is PROJECTED, not measured.\n\n"
           "  steps(N)  = ceil(ceil(features / (ppn N)) / batch)\n"
           "  comm(N)   = ring all-reduce of the gradient over ppn N ranks:\n"
           "              2(R-1) alpha + 2(R-1)/R bytes beta, alpha/beta fitted to the curve\n"
           "  no overlap: epoch = steps (step + comm)\n"
           "  overlap:    epoch = steps (step + max(comm - share x step, comm(last bucket)))\n\n"
           "  --step-seconds S       compute per step and rank (forward, backward, optimizer)\n"
           "                         at the per-rank batch; with --study and without this,\n"
           "                         taken from the study's 1-node point\n"
           "  --allreduce-file F     result file of `sprbench allreduce` run on >= 2 ranks\n"
           "  --busbw-gbs B          or: the network as a bus bandwidth in GB/s\n"
           "  --alpha-us A           per-hop latency with --busbw-gbs (default 5)\n"
           "  --nodes LIST           node counts (default 1,2,4,8,16,64)\n"
           "  --ppn P                ranks per node (default 2)\n"
           "  --features N           features per epoch (default 88524: SQuAD v1.1 @384/128)\n"
           "  --batch B              per-rank batch (default 32)\n"
           "  --grad-bytes N         bytes all-reduced per step (default DistilBERT f32: %zu)\n"
           "  --last-bucket-bytes N  bucket that cannot be hidden (default: the embeddings, %.0f)\n"
           "  --overlap-share F      share of a step that can hide communication (default 0.67)\n"
           "  --study FILE           compare with published points (results/reference/study.csv)\n"
           "  --result-file F        write the projection as one JSON object (all 'projected')\n"
           "  --db F                 also store the projection in the database F: a new sweep\n"
           "                         (label 'scaling model', kernel scaling-model) whose points\n"
           "                         have status 'projected'; `sprbench plot --sweep ID` draws it\n"
           "  --from-sweep ID        with --db: take step time, batch, ppn and features from the\n"
           "                         sweep's measured 1-node training point instead of\n"
           "                         --step-seconds, and store the projection into that sweep\n"
           "                         beside the measured points (replacing an earlier projection\n"
           "                         of the series). Without --busbw-gbs / --allreduce-file the\n"
           "                         network is calibrated on the series' largest measured node\n"
           "                         count: an effective bandwidth with that run's overlap in\n"
           "                         it, so no overlap is applied on top unless --overlap-share\n\n"
           "Exit status: 0 ok, 1 failed, 2 bad usage or input.\n",
           sb_distilbert_grad_bytes(), sb_distilbert_last_bucket_bytes());
}

typedef struct model_opts {
    sb_scaling_job j;
    const char *result_file, *db;
    long from_sweep;
    int ppn_given;
} model_opts;

/* Every number's range, keyed by its option. */
static const struct {
    const char *key;
    double lo, hi;
} g_limits[] = {
    {"step-seconds", 1e-9, 1e6},    {"busbw-gbs", 1e-6, 1e6}, {"alpha-us", 0, 1e6},
    {"nodes", 1, 1 << 20},          {"ppn", 1, 4096},         {"from-sweep", 1, 1L << 40},
    {"features", 1, 1L << 40},      {"batch", 1, 1 << 20},    {"grad-bytes", 0, 1e15},
    {"last-bucket-bytes", 0, 1e15}, {"overlap-share", 0, 1}};
static int limit(const char *key)
{
    int i = 0;
    while (strcmp(g_limits[i].key, key)) i++;
    return i;
}
static int to_long(const char *key, const char *v, const char *what, long *out, sb_err *e)
{
    int i = limit(key);
    return sb_parse_long(v, (long)g_limits[i].lo, (long)g_limits[i].hi, what, out, e);
}
static int to_double(const char *key, const char *v, const char *what, double *out, sb_err *e)
{
    int i = limit(key);
    return sb_parse_double(v, g_limits[i].lo, g_limits[i].hi, what, out, e);
}
static int to_ints(const char *key, const char *v, const char *what, sb_opt_ints *out, sb_err *e)
{
    int i = limit(key);
    return sb_parse_int_list(v, (long)g_limits[i].lo, (long)g_limits[i].hi, what, out->v,
                             SB_OPT_INTS_MAX, &out->n, e);
}
static const sb_opt_ranges g_ranges = {to_long, to_double, to_ints, NULL};

#define O(f) offsetof(model_opts, f)
static const sb_opt g_model_opts[] = {
    {"step-seconds", SB_OPT_DOUBLE, O(j.step), SB_OPT_NOSET, "step-seconds"},
    {"allreduce-file", SB_OPT_STR, O(j.curve), SB_OPT_NOSET, NULL},
    {"busbw-gbs", SB_OPT_DOUBLE, O(j.busbw_gbs), SB_OPT_NOSET, "busbw-gbs"},
    {"alpha-us", SB_OPT_DOUBLE, O(j.alpha_us), SB_OPT_NOSET, "alpha-us"},
    {"nodes", SB_OPT_INTS, O(j.nodes), SB_OPT_NOSET, "nodes"},
    {"ppn", SB_OPT_INT, O(j.in.ppn), O(ppn_given), "ppn"},
    {"features", SB_OPT_LONG, O(j.in.features), SB_OPT_NOSET, "features"},
    {"batch", SB_OPT_INT, O(j.in.batch), SB_OPT_NOSET, "batch"},
    {"grad-bytes", SB_OPT_DOUBLE, O(j.in.grad_bytes), SB_OPT_NOSET, "grad-bytes"},
    {"last-bucket-bytes", SB_OPT_DOUBLE, O(j.in.last_bucket_bytes), SB_OPT_NOSET,
     "last-bucket-bytes"},
    {"overlap-share", SB_OPT_DOUBLE, O(j.in.overlap_share), O(j.share_given), "overlap-share"},
    {"study", SB_OPT_STR, O(j.study), SB_OPT_NOSET, NULL},
    {"result-file", SB_OPT_STR, O(result_file), SB_OPT_NOSET, NULL},
    {"db", SB_OPT_STR, O(db), SB_OPT_NOSET, NULL},
    {"from-sweep", SB_OPT_LONG, O(from_sweep), SB_OPT_NOSET, "from-sweep"},
    {NULL, 0, 0, 0, NULL}};
#undef O

/* --from-sweep: step time, batch, ppn and features from the sweep's measured
 * 1-node training point, and, with no network given, an effective bandwidth
 * calibrated on its largest measured node count; everything is read and
 * checked before anything is written. 0, or the exit code. */
static int from_sweep(model_opts *o, sb_db **db, sb_train_obs *one, sb_err *e)
{
    sb_scaling_job *j = &o->j;
    struct stat sst;
    if (stat(o->db, &sst) != 0) return sb_cli_usage_error("model", "%s: no such database", o->db);
    if (sb_db_open(o->db, db, e)) return sb_cli_report("model", e);
    sb_sweep_model_src src;
    if (sb_sweep_model_source(*db, o->from_sweep, o->ppn_given ? j->in.ppn : 0, &src, e)) {
        if (e->code == SB_EUSAGE) return sb_cli_usage_error("model", "%s: %s", o->db, e->msg);
        return sb_cli_report("model", e);
    }
    *one = src.one;
    j->in.features = src.in.features;
    j->in.batch = src.in.batch;
    j->in.ppn = src.in.ppn;
    j->in.grad_bytes = src.in.grad_bytes;
    j->in.last_bucket_bytes = src.in.last_bucket_bytes;
    j->step = one->step_s;
    snprintf(j->step_src, sizeof j->step_src,
             "measured: sweep %ld point %lld, %s, 1 node x %d rank(s), %d threads, median step",
             o->from_sweep, (long long)one->point_id, one->kernel, one->ppn, one->threads);
    if (j->curve || j->busbw_gbs > 0) return 0;
    const sb_train_obs *calib = &src.calib;
    if (calib->nodes > 1) sb_sweep_calibrate(one, calib, &j->in, &j->calib_busbw_gbs);
    if (!(j->calib_busbw_gbs > 0))
        return sb_cli_usage_error(
            "model", "sweep %ld: %s; give --busbw-gbs B or --allreduce-file F", o->from_sweep,
            calib->nodes > 1 ? "its larger-node point implies no network cost"
                             : "no measured point on more than 1 node to calibrate the network on");
    snprintf(j->net_src, sizeof j->net_src,
             "effective bus bandwidth %.4g GB/s calibrated on the measured %d-node point %lld of"
             " sweep %ld (its overlap folded in)",
             j->calib_busbw_gbs, calib->nodes, (long long)calib->point_id, o->from_sweep);
    return 0;
}

static void fmt_time(double s, char *buf, size_t cap)
{
    if (s >= 3600)
        snprintf(buf, cap, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
    else if (s >= 60)
        snprintf(buf, cap, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, cap, "%.1fs", s);
}

static void print_projection(const sb_scaling_job *j)
{
    const sb_scaling_input *in = &j->in;
    printf("# sprbench model: PROJECTED epoch times (computed, not measured)\n");
    printf("# step %.4f s per rank (%s)\n", j->step, j->step_src);
    printf("# network: bus bandwidth %.3f GB/s, alpha %.2f us (%s)\n", j->busbw_eff,
           in->net.alpha_s * 1e6, j->net_src);
    printf(
        "# %.0f features, per-rank batch %d, %d rank(s)/node, gradient %.0f B, last bucket %.0f B, "
        "overlap share %.2f\n",
        (double)in->features, in->batch, in->ppn, in->grad_bytes, in->last_bucket_bytes,
        in->overlap_share);
    printf("# %5s %6s %7s %9s %9s %12s %12s %12s %8s %6s\n", "nodes", "ranks", "steps", "comm_s",
           "exposed_s", "no_overlap", "overlap", "ideal", "speedup", "eff");
    for (int i = 0; i < j->nodes.n; i++) {
        const sb_scaling_point *p = &j->pts[i];
        char a[32], b[32], d[32];
        fmt_time(p->epoch_no_overlap_s, a, sizeof a);
        fmt_time(p->epoch_overlap_s, b, sizeof b);
        fmt_time(p->ideal_s, d, sizeof d);
        printf("  %5d %6d %7ld %9.4f %9.4f %12s %12s %12s %8.2f %5.0f%%\n", p->nodes, p->ranks,
               p->steps, p->comm_s, p->exposed_s, a, b, d, p->speedup_overlap,
               100 * p->efficiency_overlap);
    }
}

static void print_checks(const sb_scaling_job *j)
{
    if (!j->nsp) return;
    printf("# check against %s:\n", j->study);
    for (int i = 0; i < j->nsp; i++) {
        const sb_scaling_check *c = &j->checks[i];
        const sb_study_point *s = c->s;
        if (c->status == SB_CHECK_OTHER_RUN)
            printf("#   %-18s %-5s skipped: ppn %d batch %d differ from the model's %d/%d\n",
                   s->label, s->kind, s->ppn, s->batch, j->in.ppn, j->in.batch);
        else if (c->status == SB_CHECK_OTHER_MACHINE)
            printf("#   %-18s skipped: another machine (%s)\n", s->label, s->machine);
        if (c->status != SB_CHECK_COMPARED) continue;
        char pub[32], pr[32], pno[32];
        fmt_time(s->epoch_s, pub, sizeof pub);
        fmt_time(c->projected_s, pr, sizeof pr);
        fmt_time(c->no_overlap_s, pno, sizeof pno);
        printf("#   %-18s %d node(s) %-8s published %8s, projected %8s (%+.1f%%)", s->label,
               s->nodes, s->kind, pub, pr, c->gap_pct);
        if (strcmp(s->kind, "ideal")) printf(", without overlap %s", pno);
        if (c->implied_busbw_gbs > 0)
            printf("; its time implies %.2f GB/s bus bandwidth with no overlap",
                   c->implied_busbw_gbs);
        printf("\n");
    }
}

int sb_cmd_model(int argc, char **argv)
{
    model_opts o = {0};
    sb_scaling_job *j = &o.j;
    sb_scaling_job_init(j);
    sb_err e = {0};
    int help = 0;
    if (sb_opts_parse(argc, argv, g_model_opts, &o, &g_ranges, &help, &e))
        return sb_cli_report("model", &e);
    if (help) {
        model_help();
        return 0;
    }
    sb_scaling_input *in = &j->in;
    if (in->last_bucket_bytes > in->grad_bytes) in->last_bucket_bytes = in->grad_bytes;
    if (j->curve && j->busbw_gbs > 0)
        return sb_cli_usage_error("model", "give --allreduce-file or --busbw-gbs, not both");
    if (o.from_sweep && !o.db) return sb_cli_usage_error("model", "--from-sweep needs --db F");
    if (o.from_sweep && j->step > 0)
        return sb_cli_usage_error(
            "model", "--from-sweep takes the step time from the sweep; give no --step-seconds");
    if (!j->curve && !(j->busbw_gbs > 0) && !o.from_sweep)
        return sb_cli_usage_error(
            "model", "the network is missing: give --allreduce-file F or --busbw-gbs B");
    /* every path before anything is read or written */
    if ((j->curve && sb_cli_check_path("--allreduce-file", j->curve, &e)) ||
        (j->study && sb_cli_check_path("--study", j->study, &e)) ||
        (o.result_file && sb_cli_check_out_file("--result-file", o.result_file, &e)) ||
        (o.db && sb_cli_check_out_file("--db", o.db, &e)))
        return sb_cli_report("model", &e);

    sb_db *db = NULL;
    sb_train_obs one = {0};
    int rc = o.from_sweep ? from_sweep(&o, &db, &one, &e) : 0;
    if (!rc) {
        int lrc = sb_scaling_job_inputs(j, &e);
        if (!lrc && o.db && !db) lrc = sb_db_open(o.db, &db, &e);
        if (!lrc) lrc = sb_scaling_job_project(j, &e);
        if (lrc) rc = sb_cli_report("model", &e);
    }
    if (!rc) {
        print_projection(j);
        print_checks(j);
    }
    if (!rc && o.result_file) {
        json_t *doc = sb_scaling_result_json(j, argc, argv);
        if (!doc) sb_errf(&e, SB_EFAIL, "out of memory for the result document");
        if (!doc || sb_result_write(o.result_file, doc, &e)) rc = sb_cli_report("model", &e);
        json_decref(doc);
    }
    int64_t sid = 0;
    if (!rc && o.db) {
        if (sb_sweep_store_projection(db, j, o.from_sweep, &one, &sid, &e))
            rc = sb_cli_report("model", &e);
        else
            printf("# stored as status 'projected' points in sweep %lld of %s (not measured)\n",
                   (long long)sid, o.db);
    }
    sb_db_close(db);
    sb_scaling_job_free(j);
    return rc;
}
