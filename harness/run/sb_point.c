#include "sb_point.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sb_db_ingest.h"
#include "sb_db_sweep.h"
#include "sb_io.h"
#include "sb_pair_run.h"
#include "sb_peak_path.h"
#include "sb_slurm.h"
#include "sb_sysinfo.h"
#include "sb_text.h"
#include "sb_worker_log.h"
#include "sb_workload.h"

/* The path of sb_point_kernel_peak. */
static const char *kernel_path(sb_db *db, int64_t machine, const sb_kernel *k)
{
    if (strcmp(k->isa, "scalar") != 0) return k->isa;
    return sb_db_peak_per_core(db, machine, "f32") > 0 ? "f32" : "avx2_f32";
}

double sb_point_kernel_peak(sb_db *db, int64_t machine, const sb_kernel *k)
{
    return sb_db_peak_per_core(db, machine, kernel_path(db, machine, k));
}

/* A training, inference or allreduce point's series key: the options that
 * change the work (its workload's series: model, the point's batch, seq /
 * sizes), so plots, reports, gate and resume group like with like. */
static void config_key(const sb_plan *p, const sb_plan_point *pt, char *buf, size_t cap)
{
    const sb_workload *w = p->wl;
    const char *const *keys = w ? w->series : (const char *const[]){NULL};
    size_t off = 0;
    buf[0] = '\0';
    for (int k = 0; keys[k]; k++) {
        if (w && w->axis && !strcmp(keys[k], w->axis)) { /* the point's own value: its batch */
            if (pt->axis && pt->axis[0] && off < cap)
                off += (size_t)snprintf(buf + off, cap - off, "%s%s=%s", off ? " " : "", keys[k],
                                        pt->axis);
            continue;
        }
        for (int i = 0; i < p->nopts; i++)
            if (!strcmp(p->opt_keys[i], keys[k]) && off < cap)
                off += (size_t)snprintf(buf + off, cap - off, "%s%s=%s", off ? " " : "", keys[k],
                                        p->opt_values[i]);
    }
}

static const char *plan_opt(const sb_plan *p, const char *key)
{
    for (int i = 0; i < p->nopts; i++)
        if (!strcmp(p->opt_keys[i], key)) return p->opt_values[i];
    return NULL;
}

/* A point's config column: what sets it apart beyond its series key. An
 * int8 inference point's activation quantisation (row, tensor, row7...) changes
 * its work and answers, so it is part of the point's identity, stated even
 * when the plan leaves the default (row); "{}" for every other point. */
static void point_config(const sb_plan *p, const sb_plan_point *pt, char *buf, size_t cap)
{
    const sb_kernel *k = sb_kernel_find(pt->kernel);
    const sb_workload *w = p->wl;
    if (w && w->int8_opt && k && k->dtype == SB_DT_INT8) {
        const char *q = plan_opt(p, w->int8_opt);
        const char *x = w->int8_extra ? plan_opt(p, w->int8_extra) : NULL;
        if (x && w->int8_extra_default && !strcmp(x, w->int8_extra_default))
            x = NULL; /* the default: the same point as leaving it out */
        int n = snprintf(buf, cap, "{\"%s\":\"%s\"", w->int8_opt, q ? q : w->int8_default);
        if (x && n > 0 && (size_t)n < cap)
            n += snprintf(buf + n, cap - (size_t)n, ",\"%s\":\"%s\"", w->int8_extra, x);
        if (n > 0 && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, "}");
    } else
        snprintf(buf, cap, "{}");
}

void sb_point_keys(const sb_plan *p, const sb_plan_point *pt, char *shape, size_t scap,
                   char *config, size_t ccap)
{
    if (pt->axis && !sb_wl_axis_in_series(p->wl))
        sb_point_axis(p, pt, shape, scap); /* the value is the key: GEMM's shape */
    else
        config_key(p, pt, shape, scap);
    point_config(p, pt, config, ccap);
}

void sb_point_axis(const sb_plan *p, const sb_plan_point *pt, char *buf, size_t cap)
{
    /* prepack (GEMM's alone, the plan refuses it elsewhere) is part of the
     * stored shape: MxNxK:XY+prepack */
    const char *v = pt->axis ? pt->axis : "";
    snprintf(buf, cap, "%s%s", v, v[0] && p->prepack ? "+prepack" : "");
}

static void av_push_cb(void *ctx, const char *arg) { sb_argv_push(ctx, arg); }

static int truthy(const char *v) { return !strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "true"); }

/* The worker's own argv (what runs on every rank), from its row alone: the
 * command of its name, --kernel, the point's axis value as the row writes
 * it (--shape, --batch), the plan's GEMM-only timing values (the
 * plan refuses them for other rows), the workload's options, --threads. */
static void worker_argv(const sb_plan *p, const sb_plan_point *pt, const char *axis,
                        const char *self, const char *result, double peak, sb_argv_builder *a)
{
    const sb_workload *w = p->wl;
    unsigned flags = w ? w->flags : 0;
    sb_argv_push(a, self);
    sb_argv_push(a, w ? w->name : "");
    if (flags & SB_WL_KERNEL) {
        sb_argv_push(a, "--kernel");
        sb_argv_push(a, pt->kernel);
    }
    if (axis && axis[0] && w && w->axis_argv) w->axis_argv(axis, av_push_cb, a);
    if (p->reps) {
        sb_argv_push(a, "--reps");
        sb_argv_pushf(a, "%d", p->reps);
    }
    if (p->min_seconds > 0) {
        sb_argv_push(a, "--min-seconds");
        sb_argv_pushf(a, "%g", p->min_seconds);
    }
    if (peak > 0) {
        sb_argv_push(a, "--peak-gflops");
        sb_argv_pushf(a, "%.3f", peak);
    }
    if (p->prepack) sb_argv_push(a, "--prepack");
    const sb_kernel *k = sb_kernel_find(pt->kernel);
    for (int i = 0; i < p->nopts; i++) {
        if (w && w->int8_extra && !strcmp(p->opt_keys[i], w->int8_extra) &&
            !(k && k->dtype == SB_DT_INT8))
            continue; /* an int8-only option: not for this point's kernel */
        /* flags without a value in the worker's CLI: there when on */
        const sb_wopt *o = sb_wopt_find(p->opt_keys[i]);
        if (o && o->kind == SB_WOPT_BOOL) {
            if (truthy(p->opt_values[i])) sb_argv_pushf(a, "--%s", p->opt_keys[i]);
            continue;
        }
        sb_argv_pushf(a, "--%s", p->opt_keys[i]);
        sb_argv_push(a, p->opt_values[i]);
    }
    /* latency is measured at batch 1 whatever the point's batch: once per
     * kernel x threads, on the smallest batch's point */
    if ((flags & SB_WL_LATENCY) && p->naxis > 1) {
        int minb = atoi(p->axis[0]), have = 0;
        for (int i = 1; i < p->naxis; i++)
            if (atoi(p->axis[i]) < minb) minb = atoi(p->axis[i]);
        for (int i = 0; i < a->n; i++) have |= !strcmp(a->v[i], "--no-latency");
        if ((pt->axis ? atoi(pt->axis) : 0) != minb && !have) sb_argv_push(a, "--no-latency");
    }
    if (flags & (SB_WL_THREADS | SB_WL_PROBE)) { /* the peak runs at the point's threads */
        sb_argv_push(a, "--threads");
        sb_argv_pushf(a, "%d", pt->threads);
    }
    sb_argv_push(a, "--result-file");
    sb_argv_push(a, result);
}

int sb_point_argv(const sb_plan *p, const sb_plan_point *pt, const char *axis, const char *bin,
                  const char *result, double peak, const char *tmpdir, int seq, char ***out,
                  sb_err *e)
{
    sb_argv_builder w = {0};
    worker_argv(p, pt, axis, bin, result, peak, &w);
    if (w.oom) {
        sb_argv_free(w.v);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    int ranks = pt->ppn * pt->nodes;
    /* under Slurm every point runs on the allocation's nodes, one rank too */
    int slurm = sb_slurm_plan_uses(p);
    if (ranks == 1 && !p->hostfile && !slurm) {
        *out = w.v;
        return SB_OK;
    }
    sb_launch_spec s = SB_LAUNCH_SPEC_INIT;
    char hostpath[4096];
    sb_hostfile hf = {0};
    int rc = SB_OK;
    char **extra = NULL;
    int nextra = 0;
    if (p->hostfile) {
        if ((rc = sb_hostfile_parse(p->hostfile, &hf, e))) goto out;
        snprintf(hostpath, sizeof hostpath, "%s/hosts.%d", tmpdir, seq);
        if ((rc = sb_hostfile_write_first(&hf, pt->nodes, hostpath, e))) goto out;
        s.hostfile = hostpath;
        s.slots_per_node = sb_hostfile_min_slots(&hf, pt->nodes);
    } else if (slurm) {
        snprintf(hostpath, sizeof hostpath, "%s/hosts.%d", tmpdir, seq);
        if ((rc = sb_slurm_point_hosts(pt->nodes, hostpath, &s.slots_per_node, e))) goto out;
        s.hostfile = hostpath;
    }
    if (p->mpirun_args && (rc = sb_launch_split_args(p->mpirun_args, &extra, &nextra, e))) goto out;
    if (slurm) {
        /* said in the command, so that its repro line launches through Slurm
         * too; --leave-session-attached keeps the stderr of mpirun's srun,
         * where Slurm says why it ended a step (mpirun drops it otherwise) */
        sb_argv_builder x = {0};
        sb_argv_push(&x, "--mca");
        sb_argv_push(&x, "plm");
        sb_argv_push(&x, "slurm");
        sb_argv_push(&x, "--leave-session-attached");
        for (int i = 0; i < nextra; i++) sb_argv_push(&x, extra[i]);
        sb_argv_free(extra);
        extra = x.v;
        if (x.oom) {
            rc = sb_errf(e, SB_EFAIL, "out of memory");
            goto out;
        }
    }
    const sb_sysinfo *si = sb_sysinfo_cached();
    s.nodes = pt->nodes;
    s.ppn = pt->ppn;
    s.threads = pt->threads;
    s.bind = p->bind ? p->bind : "core";
    s.cores_per_node = si ? si->cores : 0;
    s.extra = (const char *const *)extra;
    s.worker = (const char *const *)w.v;
    s.forward_env = 1; /* remote ranks run with the environment recorded here */
    rc = sb_launch_mpirun_argv(&s, out, e);
out:
    sb_hostfile_free(&hf);
    sb_argv_free(extra);
    sb_argv_free(w.v);
    return rc;
}

void sb_point_worker_error(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    char *data = NULL;
    if (sb_read_file_max(path, 16 * SB_MIB, "worker log", &data, NULL, NULL)) return;
    const char *own = NULL, *any = NULL;
    for (char *line = strtok(data, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "sprbench ", 9)) own = line;
        for (const char *c = line; *c; c++)
            if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')) {
                any = line;
                break;
            }
    }
    const char *line = own ? own : any ? any : "";
    snprintf(buf, cap, "%.*s", sb_text_prefix(line, 300), line);
    free(data);
}

/* A stored point's axis value: a value of its series key where the row's
 * axis is one (its batch), else its shape column as it is stored (GEMM's,
 * passed on as it is); none where the row has no axis. */
void sb_point_of_row(const sb_todo_point *row, sb_plan_point *pt, char *axis, size_t cap)
{
    const sb_workload *w = row->wl;
    *pt = (sb_plan_point){row->kernel, axis, row->threads, row->ppn, row->nodes};
    if (cap) axis[0] = '\0';
    if (!w || !w->axis) return;
    if (!sb_wl_axis_in_series(w))
        snprintf(axis, cap, "%s", row->shape);
    else if (!sb_db_shape_value(row->shape, w->axis, axis, cap) && cap)
        axis[0] = '\0';
}

/* The last `max` bytes of a file (what a worker wrote to a stream) and its
 * size. A missing file is empty. */
static int read_tail(const char *path, size_t max, char **buf, size_t *len, long long *total)
{
    *buf = NULL;
    *len = 0;
    *total = 0;
    int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK); /* never waits on a FIFO */
    if (fd < 0) return errno == ENOENT ? 0 : -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    *total = (long long)st.st_size;
    off_t from = st.st_size > (off_t)max ? st.st_size - (off_t)max : 0;
    *buf = malloc(max + 1);
    ssize_t n = *buf ? pread(fd, *buf, max, from) : -1;
    close(fd);
    if (n < 0) {
        free(*buf);
        *buf = NULL;
        return -1;
    }
    *len = (size_t)n;
    return 0;
}

int sb_point_keep_output(sb_db *db, int64_t point_id, const char *outlog, const char *errlog,
                         long long out_all, long long err_all, sb_err *e)
{
    char *o = NULL, *r = NULL;
    size_t ol = 0, rl = 0;
    long long ot = 0, rt = 0;
    /* a few bytes more than kept, so that the tail can start at a character */
    int bad = read_tail(outlog, SB_DB_LOG_BYTES + 3, &o, &ol, &ot) |
        read_tail(errlog, SB_DB_LOG_BYTES + 3, &r, &rl, &rt);
    if (out_all > ot) ot = out_all;
    if (err_all > rt) rt = err_all;
    int rc = bad ? SB_OK : sb_db_point_log_set(db, point_id, o, ol, ot, r, rl, rt, e);
    free(o);
    free(r);
    return rc;
}

int sb_point_launch(char *const *argv, double timeout, const char *outlog, const char *errlog,
                    sb_run_result *r, sb_err *pe, long long *out_bytes, long long *err_bytes,
                    int *nospace)
{
    sb_worker_log lo, le;
    sb_err le_err = {0};
    int logged = !sb_worker_log_start(&lo, outlog, SB_WORKER_LOG_CAP, &le_err);
    if (logged && sb_worker_log_start(&le, errlog, SB_WORKER_LOG_CAP, &le_err)) {
        sb_worker_log_finish(&lo);
        logged = 0;
    }
    int rc = sb_launch_run(argv, NULL, timeout, logged ? lo.fifo : outlog,
                           logged ? le.fifo : errlog, r, pe);
    if (logged) {
        sb_worker_log_finish(&lo);
        sb_worker_log_finish(&le);
        *nospace = lo.nospace || le.nospace;
        *out_bytes = lo.bytes;
        *err_bytes = le.bytes;
    }
    return rc;
}

void sb_point_repeak(sb_db *db, int64_t machine, const sb_todo_point *row, json_t *doc)
{
    const sb_kernel *k = sb_kernel_find(row->kernel);
    json_t *metrics = json_object_get(doc, "metrics"), *units = json_object_get(doc, "units");
    double gf = json_number_value(json_object_get(metrics, "gflops"));
    if (!k || !sb_wl_is(row->wl, SB_WL_PEAK) || !json_is_object(metrics) ||
        !(gf > 0))
        return;
    const char *ran = json_string_value(json_object_get(doc, "peak_path"));
    const char *path = ran && strcmp(ran, k->isa) ? ran : kernel_path(db, machine, k);
    double peak = sb_db_peak_per_core(db, machine, path);
    char u[80];
    double pct = sb_pct_peak(gf, peak, row->threads, path, u, sizeof u);
    if (!(peak > 0)) {
        json_object_del(metrics, "pct_peak");
        return;
    }
    json_object_set_new(metrics, "pct_peak", json_real(pct));
    if (json_is_object(units)) json_object_set_new(units, "pct_peak", json_string(u));
}

int sb_point_mark_running(sb_db *db, const sb_todo_point *row, char *const *argv, sb_err *e)
{
    char *cmd = sb_argv_render(argv);
    int rc = sb_db_point_set_command(db, row->id, cmd, e);
    free(cmd);
    if (rc || (rc = sb_db_point_set_status(db, row->id, "running", "", e))) return rc;
    char threads[16];
    snprintf(threads, sizeof threads, "%d", row->threads);
    setenv("OMP_NUM_THREADS", threads, 1);
    return SB_OK;
}

/* The worker's result, read with a limit like every input: the document
 * when there is a usable one, else NULL with why in bad ("" when it wrote
 * none). */
static json_t *read_result(const char *path, char *bad, size_t cap)
{
    json_t *doc = NULL;
    bad[0] = '\0';
    if (access(path, F_OK) != 0) return NULL;
    char *text = NULL;
    size_t len = 0;
    sb_err re = {0};
    json_error_t je;
    if (sb_read_file_max(path, SB_POINT_RESULT_MAX, "result file", &text, &len, &re))
        snprintf(bad, cap, "%.*s", sb_text_prefix(re.msg, 300), re.msg);
    else if (!(doc = json_loadb(text, len, 0, &je)))
        snprintf(bad, cap, "invalid JSON at line %d: %.*s", je.line, sb_text_prefix(je.text, 200),
                 je.text);
    else if (!json_is_object(doc)) {
        snprintf(bad, cap, "not a JSON object");
        json_decref(doc);
        doc = NULL;
    }
    free(text);
    return doc;
}

/* Why a worker that ended left no usable result: its result file's fault
 * (bad), else its own last words, or a full TMPDIR. */
static void no_result_reason(const char *how, const char *bad, const char *errlog, int nospace,
                             const char *tmpdir, char *reason, size_t cap)
{
    char tail[320];
    sb_point_worker_error(errlog, tail, sizeof tail);
    if (bad[0])
        snprintf(reason, cap, "worker ended with %s, its result file unusable: %s", how, bad);
    else
        snprintf(reason, cap, "worker ended with %s without a result%s%s", how,
                 tail[0] ? ": " : "", tail);
    if (nospace || sb_pair_dir_full(tmpdir)) {
        char was[600];
        snprintf(was, sizeof was, "%s", reason);
        snprintf(reason, cap,
                 "no space left in TMPDIR (%.200s): the worker could not write its output or "
                 "result there (%.300s)",
                 tmpdir, was);
    }
}

/* A worker's usable result stored as its point: failed where the worker
 * ended badly after writing it. *stored 1 when it was (status_out and
 * summary then say how it went); 0 with reason when the store refused it
 * as malformed. SB_EFAIL only when the store failed. */
static int store_result(const sb_point_ctx *c, const sb_plan *use, const sb_todo_point *row,
                        json_t *doc, const sb_run_result *r, const char *how, char *reason,
                        size_t cap, int *stored, char *summary, size_t sumcap,
                        const char **status_out, sb_err *e)
{
    sb_err pe = {0};
    const char *ds = json_string_value(json_object_get(doc, "status"));
    *stored = 0;
    if (!sb_run_ok(r) && ds && !strcmp(ds, "ok")) {
        json_object_set_new(doc, "status", json_string("failed"));
        snprintf(reason, cap, "worker ended with %s after writing its result", how);
        json_object_set_new(doc, "reason", json_string(reason));
    }
    if (!json_object_get(doc, "workload"))
        json_object_set_new(doc, "workload", json_string(row->workload));
    if (sb_slurm_plan_uses(use)) sb_slurm_point_annotate(doc, row->nodes);
    sb_point_repeak(c->db, c->machine, row, doc);
    int rc = sb_db_point_ingest(c->db, row->id, doc, &pe);
    if (rc == SB_EUSAGE) { /* a malformed result is the point's failure */
        snprintf(reason, cap, "bad result file: %.*s", sb_text_prefix(pe.msg, 400), pe.msg);
        return SB_OK;
    }
    if (rc) return sb_errf(e, rc, "%s", pe.msg);
    const char *status = ds && !strcmp(json_string_value(json_object_get(doc, "status")), "ok")
        ? "ok"
        : json_string_value(json_object_get(doc, "status"));
    const char *why = json_string_value(json_object_get(doc, "reason"));
    if (!strcmp(status, "ok") && row->wl) sb_workload_describe(row->wl, doc, summary, sumcap);
    if (!summary[0])
        snprintf(summary, sumcap, "%.*s", sb_text_prefix(why ? why : "", 200), why ? why : "");
    *status_out = !strcmp(status, "ok") ? "ok" : !strcmp(status, "skipped") ? "skipped" : "failed";
    *stored = 1;
    return SB_OK;
}

int sb_point_run(const sb_point_ctx *c, const sb_todo_point *row, const char *self, double peak,
                 char *summary, size_t sumcap, const char **status_out, sb_err *e)
{
    sb_plan_point pt;
    char axis[sizeof row->shape];
    sb_point_of_row(row, &pt, axis, sizeof axis);
    char result[4096], outlog[4096], errlog[4096];
    snprintf(result, sizeof result, "%s/point-%d.json", c->tmpdir, row->seq);
    snprintf(outlog, sizeof outlog, "%s/point-%d.out", c->tmpdir, row->seq);
    snprintf(errlog, sizeof errlog, "%s/point-%d.err", c->tmpdir, row->seq);
    unlink(result);
    char **argv = NULL;
    sb_err pe = {0};
    const char *status = "failed";
    char reason[600] = "";
    int rc = SB_OK, stored = 0;
    sb_plan probe_plan;
    const sb_plan *use = c->plan;
    if (sb_wl_is(row->wl, SB_WL_PROBE)) {
        /* A probe (the peak) is a point of its own, ahead of the plan's. */
        sb_plan_init(&probe_plan);
        probe_plan.wl = row->wl;
        use = &probe_plan;
    }
    int ran = 0, nospace = 0;
    long long out_all = -1, err_all = -1;
    sb_run_result r;
    if (sb_point_argv(use, &pt, axis, self, result, peak, c->tmpdir, row->seq, &argv, &pe)) {
        snprintf(reason, sizeof reason, "cannot build command: %.*s", sb_text_prefix(pe.msg, 400),
                 pe.msg);
    } else if ((rc = sb_point_mark_running(c->db, row, argv, e))) {
        goto out;
    } else if (sb_point_launch(argv, c->timeout, outlog, errlog, &r, &pe, &out_all, &err_all,
                               &nospace)) {
        snprintf(reason, sizeof reason, "%.*s", sb_text_prefix(pe.msg, 500), pe.msg);
    } else if ((ran = 1), r.cancelled) { /* it ran: its output is kept below */
        status = "interrupted";
        snprintf(reason, sizeof reason, "interrupted by SIGINT");
    } else if (r.timed_out) {
        status = "timeout";
        snprintf(reason, sizeof reason, "timeout after %g s (--point-timeout)", c->timeout);
    } else {
        /* a document that does not parse says why in the reason */
        char bad[400], how[128];
        json_t *doc = read_result(result, bad, sizeof bad);
        sb_run_describe(&r, c->timeout, how, sizeof how);
        if (doc) {
            rc = store_result(c, use, row, doc, &r, how, reason, sizeof reason, &stored, summary,
                              sumcap, status_out, e);
            json_decref(doc);
            if (rc || stored) goto out;
        } else
            no_result_reason(how, bad, errlog, nospace, c->tmpdir, reason, sizeof reason);
    }
    if (ran && sb_slurm_plan_uses(use))
        sb_slurm_point_reason(errlog, row->nodes, reason, sizeof reason);
    if ((rc = sb_db_point_set_status(c->db, row->id, status, reason, e))) goto out;
    *status_out = status;
    snprintf(summary, sumcap, "%.*s", sb_text_prefix(reason, 300), reason);
out:
    /* the worker's own words stay with its point: the tails of its output */
    if (!rc && ran) rc = sb_point_keep_output(c->db, row->id, outlog, errlog, out_all, err_all, e);
    sb_argv_free(argv);
    unlink(result);
    unlink(outlog);
    unlink(errlog);
    return rc;
}
