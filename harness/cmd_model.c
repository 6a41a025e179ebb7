/* sprbench model: projected epoch time for N nodes from a measured step time
 * and a measured all-reduce curve, with and without overlap, checked against
 * the original study's published points. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sb_result.h"
#include "sb_allreduce.h"
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_db.h"
#include "sb_io.h"
#include "sb_query.h"
#include "sb_scaling.h"
#include "sb_sweep.h"
#include "sb_sysinfo.h"

#define MAX_NODES 64

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
           sb_distilbert_grad_bytes(), (30522.0 + 512.0) * 768.0 * 4 + 2 * 768 * 4);
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

static void fmt_time(double s, char *buf, size_t cap)
{
    if (s >= 3600)
        snprintf(buf, cap, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
    else if (s >= 60)
        snprintf(buf, cap, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, cap, "%.1fs", s);
}

/* What one run of the model worked from and projected. */
typedef struct model_ctx {
    const sb_scaling_input *in;
    double step, busbw_eff;
    const char *step_src, *net_src;
    const int *nodes;
    int nn;
    const sb_scaling_point *pts;
    long from_sweep;
    const sb_train_obs *one; /* the measured point (from_sweep) */
    json_t *checks;          /* the study check, taken by the result document */
} model_ctx;

/* The result document: every projected figure, labelled projected with its source. */
static int write_result(model_ctx *x, const char *result_file, int argc, char **argv)
{
    sb_scaling_input in = *x->in;
    const sb_scaling_point *pts = x->pts;
    const int *nodes = x->nodes;
    int nn = x->nn, rc = 0;
    double step = x->step, busbw_eff = x->busbw_eff;
    const char *step_src = x->step_src, *net_src = x->net_src;
    json_t *checks = x->checks;
    sb_err e = {0};
    json_t *metrics = json_object(), *units = json_object(), *proj = json_object(),
           *table = json_array(), *nodesj = json_array();
    char from[1024];
    snprintf(from, sizeof from, "scaling model: step %s; network %s", step_src, net_src);
    for (int i = 0; i < nn; i++) {
        const sb_scaling_point *p = &pts[i];
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
            json_object_set_new(metrics, name, json_real(m[k].v));
            json_object_set_new(units, name, json_string(m[k].unit));
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
    json_t *cfg = json_pack("{s:s, s:o, s:i, s:i, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:s}",
                            "model", "distilbert-base-uncased", "nodes", nodesj, "ppn", in.ppn,
                            "batch", in.batch, "features", (json_int_t)in.features, "step_seconds",
                            step, "grad_bytes", in.grad_bytes, "last_bucket_bytes",
                            in.last_bucket_bytes, "overlap_share", in.overlap_share, "busbw_gbs",
                            busbw_eff, "alpha_us", in.net.alpha_s * 1e6, "step_source", step_src,
                            "network_source", net_src);
    json_object_set_new(cfg, "study_check", checks);
    x->checks = NULL;
    json_t *doc = sb_result_new(&(sb_result_head){"train", "scaling-model", "f32", 0, in.ppn,
                                                  in.ppn, nodes[nn - 1], "ok", ""});
    json_object_set_new(doc, "config", cfg);
    json_object_set_new(doc, "metrics", metrics);
    json_object_set_new(doc, "units", units);
    json_object_set_new(doc, "projected", proj);
    json_object_set_new(doc, "table", table);
    sb_result_seal(doc, argc, argv, NULL, NULL);
    if (sb_result_write(result_file, doc, &e)) rc = sb_cli_report("model", &e);
    json_decref(doc);
    return rc;
}

/* The projection as 'projected' points in the database (a sweep's, or a new one). */
static int store_projection(const model_ctx *x, sb_db *db, const char *db_path)
{
    sb_scaling_input in = *x->in;
    const sb_scaling_point *pts = x->pts;
    int nn = x->nn, rc = 0;
    double step = x->step, busbw_eff = x->busbw_eff;
    const char *step_src = x->step_src, *net_src = x->net_src;
    long from_sweep = x->from_sweep;
    const sb_train_obs one = *x->one;
    sb_err e = {0};
    sb_projection_point *pp = calloc((size_t)nn, sizeof *pp);
    char source[1400], cfg[600], reason[200];
    snprintf(source, sizeof source,
             "scaling model: step %s; network %s; %ld features, batch %d,"
             " %d rank(s)/node, gradient %.0f B, overlap share %.2f",
             step_src, net_src, in.features, in.batch, in.ppn, in.grad_bytes, in.overlap_share);
    snprintf(cfg, sizeof cfg,
             "{\"model\":\"scaling\",\"step_seconds\":%.17g,\"features\":%ld,\"batch\":%d,"
             "\"ppn\":%d,\"grad_bytes\":%.17g,\"last_bucket_bytes\":%.17g,"
             "\"overlap_share\":%.17g,\"busbw_gbs\":%.17g,\"alpha_us\":%.17g}",
             step, in.features, in.batch, in.ppn, in.grad_bytes, in.last_bucket_bytes,
             in.overlap_share, busbw_eff, in.net.alpha_s * 1e6);
    snprintf(reason, sizeof reason, "projected (not measured) by `sprbench model`%s",
             from_sweep ? " from the measured 1-node step" : "");
    for (int i = 0; pp && i < nn; i++)
        pp[i] = (sb_projection_point){
            pts[i].nodes,           pts[i].epoch_overlap_s,    pts[i].epoch_no_overlap_s,
            pts[i].speedup_overlap, pts[i].efficiency_overlap, pts[i].comm_s,
            pts[i].exposed_s};
    sb_projection pr = {.sweep_id = from_sweep,
                        .new_sweep_label = "scaling model",
                        .kernel = from_sweep ? one.kernel : "scaling-model",
                        .dtype = from_sweep ? one.dtype : "f32",
                        .shape = from_sweep ? one.shape : "model=distilbert-base",
                        .threads = from_sweep ? one.threads : 0,
                        .ppn = in.ppn,
                        .reason = reason,
                        .config = cfg,
                        .source = source,
                        .pts = pp,
                        .n = nn};
    int64_t sid = 0;
    if (!pp)
        rc = sb_cli_usage_error("model", "out of memory");
    else if (sb_db_add_projection(db, &pr, &sid, &e))
        rc = sb_cli_report("model", &e);
    else
        printf("# stored as status 'projected' points in sweep %lld of %s (not measured)\n",
               (long long)sid, db_path);
    free(pp);
    return rc;
}

int sb_cmd_model(int argc, char **argv)
{
    static const struct option opts[] = {{"step-seconds", required_argument, 0, 's'},
                                         {"allreduce-file", required_argument, 0, 'a'},
                                         {"busbw-gbs", required_argument, 0, 'b'},
                                         {"alpha-us", required_argument, 0, 'l'},
                                         {"nodes", required_argument, 0, 'n'},
                                         {"ppn", required_argument, 0, 'p'},
                                         {"features", required_argument, 0, 'f'},
                                         {"batch", required_argument, 0, 'B'},
                                         {"grad-bytes", required_argument, 0, 'g'},
                                         {"last-bucket-bytes", required_argument, 0, 'L'},
                                         {"overlap-share", required_argument, 0, 'o'},
                                         {"study", required_argument, 0, 'S'},
                                         {"result-file", required_argument, 0, 'r'},
                                         {"help", no_argument, 0, 'h'},
                                         {"db", required_argument, 0, 'D'},
                                         {"from-sweep", required_argument, 0, 'W'},
                                         {0, 0, 0, 0}};
    sb_scaling_input in = {0};
    in.features = 88524;
    in.batch = 32;
    in.ppn = 2;
    in.grad_bytes = (double)sb_distilbert_grad_bytes();
    in.last_bucket_bytes = ((30522.0 + 512.0) * 768.0 + 2 * 768.0) * 4;
    in.overlap_share = 0.67;
    int share_given = 0;
    double step = 0, busbw = 0, alpha_us = 5;
    const char *curve = NULL, *study = NULL, *result_file = NULL, *db_path = NULL;
    long from_sweep = 0;
    int ppn_given = 0;
    int nodes[MAX_NODES] = {1, 2, 4, 8, 16, 64}, nn = 6, c;
    long lv;
    sb_err e = {0};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int rc = SB_OK;
        switch (c) {
        case 's': rc = sb_parse_double(optarg, 1e-9, 1e6, "--step-seconds", &step, &e); break;
        case 'a': curve = optarg; break;
        case 'b': rc = sb_parse_double(optarg, 1e-6, 1e6, "--busbw-gbs", &busbw, &e); break;
        case 'l': rc = sb_parse_double(optarg, 0, 1e6, "--alpha-us", &alpha_us, &e); break;
        case 'n':
            rc = sb_parse_int_list(optarg, 1, 1 << 20, "--nodes", nodes, MAX_NODES, &nn, &e);
            break;
        case 'p':
            rc = sb_parse_long(optarg, 1, 4096, "--ppn", &lv, &e);
            in.ppn = (int)lv;
            ppn_given = 1;
            break;
        case 'D': db_path = optarg; break;
        case 'W': rc = sb_parse_long(optarg, 1, 1L << 40, "--from-sweep", &from_sweep, &e); break;
        case 'f': rc = sb_parse_long(optarg, 1, 1L << 40, "--features", &in.features, &e); break;
        case 'B':
            rc = sb_parse_long(optarg, 1, 1 << 20, "--batch", &lv, &e);
            in.batch = (int)lv;
            break;
        case 'g': rc = sb_parse_double(optarg, 0, 1e15, "--grad-bytes", &in.grad_bytes, &e); break;
        case 'L':
            rc = sb_parse_double(optarg, 0, 1e15, "--last-bucket-bytes", &in.last_bucket_bytes, &e);
            break;
        case 'o':
            rc = sb_parse_double(optarg, 0, 1, "--overlap-share", &in.overlap_share, &e);
            share_given = 1;
            break;
        case 'S': study = optarg; break;
        case 'r': result_file = optarg; break;
        case 'h': model_help(); return 0;
        default:
            return sb_cli_usage_error("model", "unknown or incomplete option '%s' (see --help)",
                                      argv[optind - 1]);
        }
        if (rc) return sb_cli_report("model", &e);
    }
    if (optind < argc) return sb_cli_usage_error("model", "unexpected argument '%s'", argv[optind]);
    if (in.last_bucket_bytes > in.grad_bytes) in.last_bucket_bytes = in.grad_bytes;
    if (curve && busbw > 0)
        return sb_cli_usage_error("model", "give --allreduce-file or --busbw-gbs, not both");
    if (from_sweep && !db_path) return sb_cli_usage_error("model", "--from-sweep needs --db F");
    if (from_sweep && step > 0)
        return sb_cli_usage_error(
            "model", "--from-sweep takes the step time from the sweep; give no --step-seconds");
    if (!curve && !(busbw > 0) && !from_sweep)
        return sb_cli_usage_error(
            "model", "the network is missing: give --allreduce-file F or --busbw-gbs B");
    /* every path before anything is read or written */
    if ((curve && sb_cli_check_path("--allreduce-file", curve, &e)) ||
        (study && sb_cli_check_path("--study", study, &e)) ||
        (result_file && sb_cli_check_out_file("--result-file", result_file, &e)) ||
        (db_path && sb_cli_check_out_file("--db", db_path, &e)))
        return sb_cli_report("model", &e);

    /* --from-sweep: everything is read and checked before anything is written */
    sb_db *db = NULL;
    sb_train_obs one = {0}, calib = {0};
    double calib_busbw = 0;
    if (from_sweep) {
        struct stat sst;
        if (stat(db_path, &sst) != 0)
            return sb_cli_usage_error("model", "%s: no such database", db_path);
        if (sb_db_open(db_path, &db, &e)) return sb_cli_report("model", &e);
        sb_sweep_model_src src;
        if (sb_sweep_model_source(db, from_sweep, ppn_given ? in.ppn : 0, &src, &e)) {
            sb_db_close(db);
            if (e.code == SB_EUSAGE) return sb_cli_usage_error("model", "%s: %s", db_path, e.msg);
            return sb_cli_report("model", &e);
        }
        one = src.one;
        calib = src.calib;
        in.features = src.in.features;
        in.batch = src.in.batch;
        in.ppn = src.in.ppn;
        in.grad_bytes = src.in.grad_bytes;
        in.last_bucket_bytes = src.in.last_bucket_bytes;
        step = one.step_s;
        if (!curve && !(busbw > 0)) {
            if (calib.nodes > 1) sb_sweep_calibrate(&one, &calib, &in, &calib_busbw);
            if (!(calib_busbw > 0)) {
                sb_db_close(db);
                return sb_cli_usage_error(
                    "model", "sweep %ld: %s; give --busbw-gbs B or --allreduce-file F", from_sweep,
                    calib.nodes > 1
                        ? "its larger-node point implies no network cost"
                        : "no measured point on more than 1 node to calibrate the network on");
            }
        }
    }

    sb_study_point *sp = NULL;
    int nsp = 0;
    if (study && sb_study_load(study, &sp, &nsp, &e)) {
        sb_db_close(db);
        return sb_cli_report("model", &e);
    }
    const sb_study_point *base = NULL;
    for (int i = 0; i < nsp; i++)
        if (sp[i].nodes == 1 && !strcmp(sp[i].kind, "measured") && !base) base = &sp[i];
    char step_src[256] = "given (--step-seconds)";
    if (from_sweep)
        snprintf(step_src, sizeof step_src,
                 "measured: sweep %ld point %lld, %s, 1 node x %d rank(s),"
                 " %d threads, median step",
                 from_sweep, (long long)one.point_id, one.kernel, one.ppn, one.threads);
    if (step <= 0) {
        if (!base) {
            free(sp);
            return sb_cli_usage_error(
                "model", "--step-seconds is missing (or give --study with a 1-node point)");
        }
        /* The study's 1-node epoch divided by its steps; that time already
         * holds its intra-node all-reduce, so this slightly overstates compute. */
        in.ppn = base->ppn;
        in.batch = base->batch;
        long steps = sb_scaling_steps(in.features, in.batch, in.ppn);
        step = base->epoch_s / (double)steps;
        snprintf(step_src, sizeof step_src, "%s: %s, %.0f s / %ld steps", study, base->label,
                 base->epoch_s, steps);
    }
    in.step_compute_s = step;
    char net_src[512];
    if (curve) {
        if (load_curve(curve, &in.net, net_src, sizeof net_src, &e)) {
            free(sp);
            sb_db_close(db);
            return sb_cli_report("model", &e);
        }
    } else if (calib_busbw > 0) {
        sb_scaling_fit_from_busbw(calib_busbw, 0, &in.net);
        /* effective bandwidth: the measured run's overlap is in it already */
        if (!share_given) in.overlap_share = 0;
        snprintf(
            net_src, sizeof net_src,
            "effective bus bandwidth %.4g GB/s calibrated on the measured %d-node point %lld of"
            " sweep %ld (its overlap folded in)",
            calib_busbw, calib.nodes, (long long)calib.point_id, from_sweep);
    } else {
        sb_scaling_fit_from_busbw(busbw, alpha_us, &in.net);
        snprintf(net_src, sizeof net_src, "given: bus bandwidth %g GB/s, alpha %g us", busbw,
                 alpha_us);
    }
    if (db_path && !db && sb_db_open(db_path, &db, &e)) {
        free(sp);
        return sb_cli_report("model", &e);
    }
    sb_scaling_point *pts = calloc((size_t)nn, sizeof *pts);
    if (!pts || sb_scaling_project(&in, nodes, nn, pts, &e)) {
        free(sp);
        free(pts);
        sb_db_close(db);
        return pts ? sb_cli_report("model", &e) : sb_cli_usage_error("model", "out of memory");
    }

    double busbw_eff = in.net.beta_s_per_byte > 0 ? 1e-9 / in.net.beta_s_per_byte : 0;
    printf("# sprbench model: PROJECTED epoch times (computed, not measured)\n");
    printf("# step %.4f s per rank (%s)\n", step, step_src);
    printf("# network: bus bandwidth %.3f GB/s, alpha %.2f us (%s)\n", busbw_eff,
           in.net.alpha_s * 1e6, net_src);
    printf(
        "# %.0f features, per-rank batch %d, %d rank(s)/node, gradient %.0f B, last bucket %.0f B, "
        "overlap share %.2f\n",
        (double)in.features, in.batch, in.ppn, in.grad_bytes, in.last_bucket_bytes,
        in.overlap_share);
    printf("# %5s %6s %7s %9s %9s %12s %12s %12s %8s %6s\n", "nodes", "ranks", "steps", "comm_s",
           "exposed_s", "no_overlap", "overlap", "ideal", "speedup", "eff");
    for (int i = 0; i < nn; i++) {
        char a[32], b[32], d[32];
        fmt_time(pts[i].epoch_no_overlap_s, a, sizeof a);
        fmt_time(pts[i].epoch_overlap_s, b, sizeof b);
        fmt_time(pts[i].ideal_s, d, sizeof d);
        printf("  %5d %6d %7ld %9.4f %9.4f %12s %12s %12s %8.2f %5.0f%%\n", pts[i].nodes,
               pts[i].ranks, pts[i].steps, pts[i].comm_s, pts[i].exposed_s, a, b, d,
               pts[i].speedup_overlap, 100 * pts[i].efficiency_overlap);
    }

    json_t *checks = json_array();
    model_ctx ctx = {.in = &in,
                     .step = step,
                     .busbw_eff = busbw_eff,
                     .step_src = step_src,
                     .net_src = net_src,
                     .nodes = nodes,
                     .nn = nn,
                     .pts = pts,
                     .from_sweep = from_sweep,
                     .one = &one};
    if (nsp) {
        printf("# check against %s:\n", study);
        for (int i = 0; i < nsp; i++) {
            const sb_study_point *s = &sp[i];
            if (s->ppn != in.ppn || s->batch != in.batch) {
                printf("#   %-18s %-5s skipped: ppn %d batch %d differ from the model's %d/%d\n",
                       s->label, s->kind, s->ppn, s->batch, in.ppn, in.batch);
                continue;
            }
            if (base && strcmp(s->machine, base->machine)) {
                printf("#   %-18s skipped: another machine (%s)\n", s->label, s->machine);
                continue;
            }
            sb_scaling_point p;
            if (sb_scaling_project(&in, &s->nodes, 1, &p, &e)) continue;
            double proj = !strcmp(s->kind, "ideal") ? p.ideal_s : p.epoch_overlap_s;
            double gap = 100.0 * (proj - s->epoch_s) / s->epoch_s;
            char pub[32], pr[32], pno[32];
            fmt_time(s->epoch_s, pub, sizeof pub);
            fmt_time(proj, pr, sizeof pr);
            fmt_time(p.epoch_no_overlap_s, pno, sizeof pno);
            printf("#   %-18s %d node(s) %-8s published %8s, projected %8s (%+.1f%%)", s->label,
                   s->nodes, s->kind, pub, pr, gap);
            if (strcmp(s->kind, "ideal")) printf(", without overlap %s", pno);
            json_t *cj = json_pack("{s:s, s:i, s:s, s:f, s:f, s:f, s:f}", "label", s->label,
                                   "nodes", s->nodes, "kind", s->kind, "published_s", s->epoch_s,
                                   "projected_s", proj, "projected_no_overlap_s",
                                   p.epoch_no_overlap_s, "gap_pct", gap);
            if (s->nodes > 1 && !strcmp(s->kind, "measured") && base) {
                double imp = sb_scaling_implied_busbw(&in, base->epoch_s, s->nodes, s->epoch_s);
                if (imp > 0) {
                    printf("; its time implies %.2f GB/s bus bandwidth with no overlap", imp);
                    json_object_set_new(cj, "implied_busbw_gbs", json_real(imp));
                }
            }
            printf("\n");
            json_array_append_new(checks, cj);
        }
    }

    ctx.checks = checks;
    int rc = 0;
    if (result_file) rc = write_result(&ctx, result_file, argc, argv);
    json_decref(ctx.checks); /* NULL when the result document took it */
    if (!rc && db_path) rc = store_projection(&ctx, db, db_path);
    sb_db_close(db);
    free(pts);
    free(sp);
    return rc;
}
