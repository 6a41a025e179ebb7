#include "sb_sweep.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sb_progress.h"
#include "sb_db.h"
#include "sb_db_ingest.h"
#include "sb_db_project.h"
#include "sb_db_sweep.h"
#include "sb_guard.h"
#include "sb_holder.h"
#include "sb_io.h"
#include "sb_kernel.h"
#include "sb_launch.h"
#include "sb_pair_run.h"
#include "sb_worker_log.h"
#include "sb_paired.h"
#include "sb_query.h"
#include "sb_slurm.h"
#include "sb_sysinfo.h"
#include "sb_text.h"
#include "sb_vendor.h"
#include "sb_vendor_cmp.h"
#include "sb_workload.h"

/* The sweep's own temporary directory (mkdtemp, 0700) and what points left
 * in it (a --hostfile or Slurm point's hosts.N, result files). */
/* This process as a sweep's holder (sb_holder), described at each call. */
static const sb_db_holder *this_process(void)
{
    static sb_db_holder me;
    sb_holder_self(&me);
    return &me;
}

static void remove_tmpdir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        char path[4400];
        while ((de = readdir(d)))
            if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
                snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
                unlink(path);
            }
        closedir(d);
    }
    rmdir(dir);
}

static volatile sig_atomic_t g_interrupted;
static void on_sigint(int sig)
{
    (void)sig;
    g_interrupted = 1;
}

/* A growable NULL-terminated argv of malloc'd strings (freed by sb_argv_free). */
typedef struct {
    char **v;
    int n, cap;
} argvec;

static void av_push(argvec *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? a->cap * 2 : 32;
        a->v = realloc(a->v, sizeof *a->v * (size_t)a->cap);
    }
    a->v[a->n++] = strdup(s);
    a->v[a->n] = NULL;
}

static void av_pushf(argvec *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void av_pushf(argvec *a, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    av_push(a, buf);
}

/* The peak a kernel's %peak is taken against: its own instruction path's; for
 * scalar code the machine's widest f32 FMA path (AVX-512, else AVX2). */
static const char *kernel_path(sb_db *db, int64_t machine, const sb_kernel *k)
{
    if (strcmp(k->isa, "scalar") != 0) return k->isa;
    return sb_db_peak_per_core(db, machine, "f32") > 0 ? "f32" : "avx2_f32";
}

static double kernel_peak(sb_db *db, int64_t machine, const sb_kernel *k)
{
    return sb_db_peak_per_core(db, machine, kernel_path(db, machine, k));
}

static void shape_key(const sb_plan *p, const sb_plan_shape *s, char *buf, size_t cap)
{
    if (s)
        snprintf(buf, cap, "%dx%dx%d:%c%c%s", s->m, s->n, s->k, s->transa, s->transb,
                 p->prepack ? "+prepack" : "");
    else
        buf[0] = '\0';
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
        if (!strcmp(keys[k], "batch")) {
            if (pt->batch > 0 && off < cap)
                off += (size_t)snprintf(buf + off, cap - off, "%sbatch=%d", off ? " " : "",
                                        pt->batch);
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

static void av_push_cb(void *ctx, const char *arg) { av_push(ctx, arg); }

static int truthy(const char *v) { return !strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "true"); }

/* The worker's own argv (what runs on every rank), from its row alone: the
 * command of its name, --kernel, the point's axis value as the row writes
 * it (--m .. --trans, --batch), the plan's GEMM-only timing values (the
 * plan refuses them for other rows), the workload's options, --threads. */
static void worker_argv(const sb_plan *p, const sb_plan_point *pt, const char *self,
                        const char *result, double peak, argvec *a)
{
    const sb_workload *w = p->wl;
    unsigned flags = w ? w->flags : 0;
    av_push(a, self);
    av_push(a, w ? w->name : "");
    if (flags & SB_WL_KERNEL) {
        av_push(a, "--kernel");
        av_push(a, pt->kernel);
    }
    char axis[64];
    sb_plan_point_axis(pt, axis, sizeof axis);
    if (axis[0] && w && w->axis_argv) w->axis_argv(axis, av_push_cb, a);
    if (p->reps) {
        av_push(a, "--reps");
        av_pushf(a, "%d", p->reps);
    }
    if (p->min_seconds > 0) {
        av_push(a, "--min-seconds");
        av_pushf(a, "%g", p->min_seconds);
    }
    if (peak > 0) {
        av_push(a, "--peak-gflops");
        av_pushf(a, "%.3f", peak);
    }
    if (p->prepack) av_push(a, "--prepack");
    const sb_kernel *k = sb_kernel_find(pt->kernel);
    for (int i = 0; i < p->nopts; i++) {
        if (w && w->int8_extra && !strcmp(p->opt_keys[i], w->int8_extra) &&
            !(k && k->dtype == SB_DT_INT8))
            continue; /* an int8-only option: not for this point's kernel */
        /* flags without a value in the worker's CLI: there when on */
        const sb_wopt *o = sb_wopt_find(p->opt_keys[i]);
        if (o && o->kind == SB_WOPT_BOOL) {
            if (truthy(p->opt_values[i])) av_pushf(a, "--%s", p->opt_keys[i]);
            continue;
        }
        av_pushf(a, "--%s", p->opt_keys[i]);
        av_push(a, p->opt_values[i]);
    }
    /* latency is measured at batch 1 whatever the point's batch: once per
     * kernel x threads, on the smallest batch's point */
    if ((flags & SB_WL_LATENCY) && p->nbatches > 1) {
        int minb = p->batches[0], have = 0;
        for (int i = 1; i < p->nbatches; i++)
            if (p->batches[i] < minb) minb = p->batches[i];
        for (int i = 0; i < a->n; i++) have |= !strcmp(a->v[i], "--no-latency");
        if (pt->batch != minb && !have) av_push(a, "--no-latency");
    }
    if (flags & (SB_WL_THREADS | SB_WL_PROBE)) { /* the peak runs at the point's threads */
        av_push(a, "--threads");
        av_pushf(a, "%d", pt->threads);
    }
    av_push(a, "--result-file");
    av_push(a, result);
}

/* The full argv of a point: the worker alone, or under mpirun. */
static int point_argv(const sb_plan *p, const sb_plan_point *pt, const char *self,
                      const char *result, double peak, const char *tmpdir, int seq, char ***out,
                      sb_err *e)
{
    argvec w = {0};
    worker_argv(p, pt, self, result, peak, &w);
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
        argvec x = {0};
        av_push(&x, "--mca");
        av_push(&x, "plm");
        av_push(&x, "slurm");
        av_push(&x, "--leave-session-attached");
        for (int i = 0; i < nextra; i++) av_push(&x, extra[i]);
        sb_argv_free(extra);
        extra = x.v;
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

/* The worker's own complaint from its stderr: the last "sprbench ..." line
 * (mpirun wraps it in banners), else the last line with any letter in it. */
static void worker_error(const char *path, char *buf, size_t cap)
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

/* A point left to run: the store's (sb_db_sweep_unfinished). */
typedef sb_todo_point point_row;

static int parse_shape_key(const char *key, sb_plan_shape *s)
{
    char ta = 'N', tb = 'N';
    if (sscanf(key, "%dx%dx%d:%c%c", &s->m, &s->n, &s->k, &ta, &tb) < 3) return -1;
    s->transa = ta;
    s->transb = tb;
    return 0;
}

/* A stored point as the plan's point: its shape (the row's SB_WL_SHAPES
 * axis, from its shape column), or its batch (a value of its series key). */
static void row_point(const point_row *row, sb_plan_point *pt, sb_plan_shape *shape)
{
    *pt = (sb_plan_point){row->kernel, NULL, 0, row->threads, row->ppn, row->nodes};
    if (sb_wl_is(row->wl, SB_WL_SHAPES) && row->shape[0] && parse_shape_key(row->shape, shape) == 0)
        pt->shape = shape;
    char batch[16];
    if (sb_db_shape_value(row->shape, "batch", batch, sizeof batch)) pt->batch = atoi(batch);
}

/* The worker's result document: far larger than any real one, small enough to parse. */
#define RESULT_MAX (64 * SB_MIB)

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

/* out_all, err_all: what the worker wrote in all where its log was kept
 * to a bounded size (sb_worker_log; -1: the file holds it all). */
static int keep_output_counted(sb_db *db, int64_t point_id, const char *outlog, const char *errlog,
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

/* argv under sb_launch_run, its stdout and stderr kept to a bounded size
 * (sb_worker_log) in outlog and errlog. out_bytes, err_bytes: what it wrote
 * in all (left at -1 where no FIFO could be made and the files hold it
 * all); nospace: keeping a log met a full disk. */
static int launch_bounded(char *const *argv, double timeout, const char *outlog,
                          const char *errlog, sb_run_result *r, sb_err *pe, long long *out_bytes,
                          long long *err_bytes, int *nospace)
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

/* A GEMM result's pct_peak against the path the kernel really ran (a vendor
 * kernel names the ISA it dispatched: AMX where it ran AMX, not the dtype's
 * AVX-512 path), with that path in its unit ("% of amx_bf16 peak"); none
 * where no peak of that path is stored. */
static void repeak(sb_db *db, int64_t machine, const point_row *row, json_t *doc)
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
    int t = row->threads > 0 ? row->threads : 1;
    if (!(peak > 0)) {
        json_object_del(metrics, "pct_peak");
        return;
    }
    char u[64];
    snprintf(u, sizeof u, "%% of %s peak", path);
    json_object_set_new(metrics, "pct_peak", json_real(100.0 * gf / (peak * t)));
    if (json_is_object(units)) json_object_set_new(units, "pct_peak", json_string(u));
}

/* Runs one point to its end and stores what happened. Returns SB_EFAIL only
 * when the store failed; the point's own failure is data. */
/* The point is about to run argv: its command stored, its status running,
 * and its workers' OpenMP team sized to the point's threads. */
static int mark_running(sb_db *db, const point_row *row, char *const *argv, sb_err *e)
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

static int run_point(sb_db *db, int64_t machine, const sb_plan *p, const point_row *row,
                     const char *self, const char *tmpdir, double peak, double timeout,
                     char *summary, size_t sumcap, const char **status_out, sb_err *e)
{
    sb_plan_shape shape;
    sb_plan_point pt;
    row_point(row, &pt, &shape);
    char result[4096], outlog[4096], errlog[4096];
    snprintf(result, sizeof result, "%s/point-%d.json", tmpdir, row->seq);
    snprintf(outlog, sizeof outlog, "%s/point-%d.out", tmpdir, row->seq);
    snprintf(errlog, sizeof errlog, "%s/point-%d.err", tmpdir, row->seq);
    unlink(result);
    char **argv = NULL;
    sb_err pe = {0};
    const char *status = "failed";
    char reason[600] = "";
    int rc = SB_OK;
    sb_plan probe_plan;
    const sb_plan *use = p;
    if (sb_wl_is(row->wl, SB_WL_PROBE)) {
        /* A probe (the peak) is a point of its own, ahead of the plan's. */
        sb_plan_init(&probe_plan);
        probe_plan.wl = row->wl;
        use = &probe_plan;
    }
    int ran = 0, nospace = 0;
    long long out_all = -1, err_all = -1;
    if (point_argv(use, &pt, self, result, peak, tmpdir, row->seq, &argv, &pe)) {
        snprintf(reason, sizeof reason, "cannot build command: %.*s", sb_text_prefix(pe.msg, 400),
                 pe.msg);
    } else {
        if ((rc = mark_running(db, row, argv, e))) goto out;
        sb_run_result r;
        if (launch_bounded(argv, timeout, outlog, errlog, &r, &pe, &out_all, &err_all,
                           &nospace)) {
            snprintf(reason, sizeof reason, "%.*s", sb_text_prefix(pe.msg, 500), pe.msg);
        } else if ((ran = 1), r.cancelled) { /* it ran: its output is kept below */
            status = "interrupted";
            snprintf(reason, sizeof reason, "interrupted by SIGINT");
        } else if (r.timed_out) {
            status = "timeout";
            snprintf(reason, sizeof reason, "timeout after %g s (--point-timeout)", timeout);
        } else {
            /* the worker's result is read with a limit like every input, and
             * a document that does not parse says why in the reason */
            json_t *doc = NULL;
            char bad[400] = "";
            if (access(result, F_OK) == 0) {
                char *text = NULL;
                size_t len = 0;
                sb_err re = {0};
                json_error_t je;
                if (sb_read_file_max(result, RESULT_MAX, "result file", &text, &len, &re))
                    snprintf(bad, sizeof bad, "%.*s", sb_text_prefix(re.msg, 300), re.msg);
                else if (!(doc = json_loadb(text, len, 0, &je)))
                    snprintf(bad, sizeof bad, "invalid JSON at line %d: %.*s", je.line,
                             sb_text_prefix(je.text, 200), je.text);
                else if (!json_is_object(doc))
                    snprintf(bad, sizeof bad, "not a JSON object");
                free(text);
            }
            char how[128];
            sb_run_describe(&r, timeout, how, sizeof how);
            if (doc && json_is_object(doc)) {
                const char *ds = json_string_value(json_object_get(doc, "status"));
                if (!sb_run_ok(&r) && ds && !strcmp(ds, "ok")) {
                    json_object_set_new(doc, "status", json_string("failed"));
                    snprintf(reason, sizeof reason, "worker ended with %s after writing its result",
                             how);
                    json_object_set_new(doc, "reason", json_string(reason));
                }
                if (!json_object_get(doc, "workload"))
                    json_object_set_new(doc, "workload", json_string(row->workload));
                if (sb_slurm_plan_uses(use)) sb_slurm_point_annotate(doc, row->nodes);
                repeak(db, machine, row, doc);
                if ((rc = sb_db_point_ingest(db, row->id, doc, &pe))) {
                    if (rc == SB_EUSAGE) { /* a malformed result is the point's failure */
                        snprintf(reason, sizeof reason, "bad result file: %.*s",
                                 sb_text_prefix(pe.msg, 400), pe.msg);
                        rc = SB_OK;
                    } else {
                        sb_errf(e, rc, "%s", pe.msg);
                        json_decref(doc);
                        goto out;
                    }
                } else {
                    status = ds && !strcmp(json_string_value(json_object_get(doc, "status")), "ok")
                        ? "ok"
                        : json_string_value(json_object_get(doc, "status"));
                    const char *why = json_string_value(json_object_get(doc, "reason"));
                    if (!strcmp(status, "ok") && row->wl)
                        sb_workload_describe(row->wl, doc, summary, sumcap);
                    if (!summary[0])
                        snprintf(summary, sumcap, "%.*s", sb_text_prefix(why ? why : "", 200),
                                 why ? why : "");
                    *status_out = !strcmp(status, "ok") ? "ok"
                        : !strcmp(status, "skipped")    ? "skipped"
                                                        : "failed";
                    json_decref(doc);
                    goto out;
                }
                json_decref(doc);
            } else {
                json_decref(doc);
                char tail[320];
                worker_error(errlog, tail, sizeof tail);
                if (bad[0])
                    snprintf(reason, sizeof reason,
                             "worker ended with %s, its result file unusable:"
                             " %s",
                             how, bad);
                else
                    snprintf(reason, sizeof reason, "worker ended with %s without a result%s%s",
                             how, tail[0] ? ": " : "", tail);
                if (nospace || sb_pair_dir_full(tmpdir)) {
                    char was[sizeof reason];
                    snprintf(was, sizeof was, "%s", reason);
                    snprintf(reason, sizeof reason,
                             "no space left in TMPDIR (%.200s): the worker could not write its "
                             "output or result there (%.300s)",
                             tmpdir, was);
                }
            }
        }
    }
    if (ran && sb_slurm_plan_uses(use))
        sb_slurm_point_reason(errlog, row->nodes, reason, sizeof reason);
    if ((rc = sb_db_point_set_status(db, row->id, status, reason, e))) goto out;
    *status_out = status;
    snprintf(summary, sumcap, "%.*s", sb_text_prefix(reason, 300), reason);
out:
    /* the worker's own words stay with its point: the tails of its output */
    if (!rc && ran) rc = keep_output_counted(db, row->id, outlog, errlog, out_all, err_all, e);
    sb_argv_free(argv);
    unlink(result);
    unlink(outlog);
    unlink(errlog);
    return rc;
}

/* ---- paired A/B points ---- */

const char *sb_pair_mode_name(sb_pair_mode m)
{
    return m == SB_PAIR_DUET ? "duet" : m == SB_PAIR_RANDOM ? "random" : "abba";
}

/* One run of one binary: its status ("ok", "skipped", or why not in why),
 * its result document when it wrote a usable one. */
typedef struct side_run {
    char **argv;
    double timeout;  /* the point's, all its runs together (--point-timeout) */
    double deadline; /* when the point's time is up (sb_now) */
    const point_row *row;
    const char *tmpdir;
    char result[4096], outlog[4096], errlog[4096];
    const cpu_set_t *cpus; /* duet: where it runs (NULL: anywhere) */
    json_t *doc;
    const char *status; /* ok, skipped, failed, timeout, interrupted */
    int disk_full;      /* the run failed for want of space in tmpdir, not by its binary */
    long long out_bytes, err_bytes; /* what its worker wrote in all (-1: not counted) */
    char why[600];
} side_run;

/* The worker under sb_launch_run (launch_bounded), within what is left of
 * the point's time. */
static int launch_side(side_run *s, sb_run_result *r, sb_err *pe)
{
    double left = s->deadline - sb_now();
    s->out_bytes = s->err_bytes = -1;
    if (left <= 0) {
        *r = (sb_run_result){.timed_out = 1};
        return SB_OK;
    }
    return launch_bounded(s->argv, left, s->outlog, s->errlog, r, pe, &s->out_bytes,
                          &s->err_bytes, &s->disk_full);
}

static void run_side(side_run *s)
{
    s->doc = NULL;
    s->status = "failed";
    s->why[0] = '\0';
    s->disk_full = 0;
    unlink(s->result);
    sb_run_result r;
    sb_err pe = {0};
    if (s->cpus) pthread_setaffinity_np(pthread_self(), sizeof *s->cpus, s->cpus);
    if (launch_side(s, &r, &pe)) {
        snprintf(s->why, sizeof s->why, "%.*s", sb_text_prefix(pe.msg, 500), pe.msg);
        return;
    }
    if (r.cancelled) {
        s->status = "interrupted";
        snprintf(s->why, sizeof s->why, "interrupted by SIGINT");
        return;
    }
    if (r.timed_out) {
        s->status = "timeout";
        snprintf(s->why, sizeof s->why,
                 "timeout after %g s (--point-timeout: the point's runs together)", s->timeout);
        return;
    }
    char how[128];
    sb_run_describe(&r, s->timeout, how, sizeof how);
    char *text = NULL;
    size_t len = 0;
    json_error_t je;
    json_t *doc = NULL;
    if (access(s->result, F_OK) == 0 &&
        !sb_read_file_max(s->result, RESULT_MAX, "result file", &text, &len, NULL))
        doc = json_loadb(text, len, 0, &je);
    free(text);
    const char *ds = doc ? json_string_value(json_object_get(doc, "status")) : NULL;
    if (!json_is_object(doc) || !ds) {
        json_decref(doc);
        char tail[320];
        worker_error(s->errlog, tail, sizeof tail);
        /* a full disk is the machine's, whichever binary met it */
        if (s->disk_full || sb_pair_dir_full(s->tmpdir)) s->disk_full = 1;
        snprintf(s->why, sizeof s->why, "worker ended with %s without a usable result%s%s", how,
                 tail[0] ? ": " : "", tail);
        return;
    }
    if (!strcmp(ds, "ok") && !sb_run_ok(&r)) {
        json_decref(doc);
        snprintf(s->why, sizeof s->why, "worker ended with %s after writing its result", how);
        return;
    }
    if (strcmp(ds, "ok") && strcmp(ds, "skipped")) {
        const char *why = json_string_value(json_object_get(doc, "reason"));
        snprintf(s->why, sizeof s->why, "%.*s", sb_text_prefix(why ? why : ds, 500),
                 why ? why : ds);
        json_decref(doc);
        return;
    }
    /* the plan row says what the point is; its values must be measurements */
    char bad[400];
    if (!strcmp(ds, "ok") && sb_pair_check_result(doc, s->row, bad, sizeof bad)) {
        json_decref(doc);
        snprintf(s->why, sizeof s->why, "result refused: %s", bad);
        return;
    }
    s->status = !strcmp(ds, "ok") ? "ok" : "skipped";
    if (!strcmp(ds, "skipped")) {
        const char *why = json_string_value(json_object_get(doc, "reason"));
        snprintf(s->why, sizeof s->why, "skipped: %.*s", sb_text_prefix(why ? why : "", 500),
                 why ? why : "");
    }
    s->doc = doc;
}

static void *run_side_thread(void *arg)
{
    run_side(arg);
    return NULL;
}

/* duet: the first 2 x threads CPUs this process may use, split in two
 * (0 when there are not that many, or not as many physical cores) */
static int duet_cpus(int threads, cpu_set_t *x, cpu_set_t *y)
{
    cpu_set_t all;
    const sb_sysinfo *si = sb_sysinfo_cached();
    if (threads < 1 || sched_getaffinity(0, sizeof all, &all) ||
        (si && si->cores > 0 && 2 * threads > si->cores))
        return 0;
    CPU_ZERO(x);
    CPU_ZERO(y);
    int got = 0;
    for (int c = 0; c < CPU_SETSIZE && got < 2 * threads; c++) {
        if (!CPU_ISSET(c, &all)) continue;
        CPU_SET(c, got < threads ? x : y);
        got++;
    }
    return got == 2 * threads;
}

static unsigned pair_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

/* Appends a run's samples to the pairing arrays (and the candidate's to cand). */
static void keep_samples(json_t *doc, int side, int pair, json_t *all, json_t *sides, json_t *pairs,
                         json_t *cand)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(doc, "samples"), i, v)
    {
        if (!json_is_number(v)) continue; /* the store refuses the document below */
        json_array_append_new(all, json_real(json_number_value(v)));
        json_array_append_new(sides, json_integer(side));
        json_array_append_new(pairs, json_integer(pair));
        if (side == 1) json_array_append_new(cand, json_real(json_number_value(v)));
    }
}

/* The pairs so far, judged as the gate judges them. */
static sb_paired_outcome judge_so_far(json_t *all, json_t *sides, json_t *pairs,
                                      const sb_pair_opts *po, sb_paired_stats *st)
{
    size_t n = json_array_size(all);
    double *sec = malloc(sizeof *sec * (n + 1));
    int *sd = malloc(sizeof *sd * (n + 1)), *pr = malloc(sizeof *pr * (n + 1));
    sb_paired_outcome out = SB_PAIRED_UNSURE;
    memset(st, 0, sizeof *st);
    if (sec && sd && pr) {
        for (size_t i = 0; i < n; i++) {
            sec[i] = json_number_value(json_array_get(all, i));
            sd[i] = (int)json_integer_value(json_array_get(sides, i));
            pr[i] = (int)json_integer_value(json_array_get(pairs, i));
        }
        if (sb_paired_judge(sec, sd, pr, (int)n, po->tolerance, po->alpha, po->min_pairs, st) == 0)
            out = st->outcome;
    }
    free(sec);
    free(sd);
    free(pr);
    return out;
}

/* One paired point's runs: its two sides, the samples so far (all with
 * their side and pair; the candidate's alone in cand), the candidate's
 * last document, and which side broke the point (1 baseline, 2 candidate). */
typedef struct paired_run {
    const sb_pair_opts *po;
    side_run sr[2];
    sb_pair_mode mode;
    cpu_set_t cx, cy, mine; /* duet: the two sides' CPUs; this thread's own */
    json_t *all, *sides, *pairs, *cand;
    json_t *last;
    int broke;
} paired_run;

/* duet: both at once, the CPUs swapped between the quad's two pairs */
static void quad_duet(paired_run *c, int q)
{
    side_run *sr = c->sr;
    for (int half = 0; half < 2 && !c->broke; half++) {
        sr[0].cpus = half ? &c->cy : &c->cx;
        sr[1].cpus = half ? &c->cx : &c->cy;
        pthread_t th;
        int threaded = pthread_create(&th, NULL, run_side_thread, &sr[0]) == 0;
        if (!threaded) run_side(&sr[0]);
        run_side(&sr[1]);
        if (threaded) pthread_join(th, NULL);
        /* this thread is the sweep's own: back to every CPU it had */
        pthread_setaffinity_np(pthread_self(), sizeof c->mine, &c->mine);
        for (int s = 0; s < 2 && !c->broke; s++)
            if (strcmp(sr[s].status, "ok")) c->broke = s + 1;
        if (c->broke) {
            /* the broken side's document (a skip) is read below */
            json_decref(sr[2 - c->broke].doc);
            sr[2 - c->broke].doc = NULL;
            break;
        }
        for (int s = 0; s < 2; s++)
            keep_samples(sr[s].doc, s, 2 * q + half, c->all, c->sides, c->pairs, c->cand);
        json_decref(c->last);
        c->last = sr[1].doc;
        json_decref(sr[0].doc);
        sr[0].doc = sr[1].doc = NULL;
    }
}

/* A B B A, or A A B B shuffled: a side's first run in the quad is in pair
 * 2q, its second in pair 2q+1 */
static void quad_order(paired_run *c, int q, unsigned *seed)
{
    int order[4] = {0, 1, 1, 0};
    if (c->mode == SB_PAIR_RANDOM)
        for (int i = 3; i > 0; i--) {
            int j = (int)(pair_rand(seed) % (unsigned)(i + 1)), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    int seen[2] = {0, 0};
    for (int slot = 0; slot < 4 && !c->broke && !g_interrupted; slot++) {
        int s = order[slot];
        side_run *sr = &c->sr[s];
        sr->cpus = NULL;
        run_side(sr);
        if (strcmp(sr->status, "ok")) {
            c->broke = s + 1;
            break;
        }
        keep_samples(sr->doc, s, 2 * q + seen[s]++, c->all, c->sides, c->pairs, c->cand);
        if (s == 1) {
            json_decref(c->last);
            c->last = sr->doc;
        } else {
            json_decref(sr->doc);
        }
        sr->doc = NULL;
    }
}

/* Quads until the pairs decide (after min_pairs), max_pairs, a side
 * breaks, or SIGINT. */
static void run_quads(paired_run *c, int seq)
{
    const sb_pair_opts *po = c->po;
    unsigned seed = po->seed + (unsigned)seq * 7919u;
    sb_paired_stats st;
    for (int q = 0; 2 * q < po->max_pairs && !c->broke && !g_interrupted; q++) {
        if (c->mode == SB_PAIR_DUET)
            quad_duet(c, q);
        else
            quad_order(c, q, &seed);
        if (c->broke || g_interrupted) break;
        if (2 * (q + 1) >= po->min_pairs) {
            sb_paired_outcome verdict = judge_so_far(c->all, c->sides, c->pairs, po, &st);
            if (verdict == SB_PAIRED_PASS || verdict == SB_PAIRED_FAIL) break;
        }
    }
}

/* After the quads: a broken side decides the status and reason (a skip
 * is the machine's when the baseline skips before anything ran; a
 * candidate that skips what the baseline ran fails), as does SIGINT;
 * c->last is then the document to store (NULL: none). */
static void settle_broken(paired_run *c, const char *const bins[2], const char **status,
                          char *reason, size_t cap)
{
    side_run *sr = c->sr;
    if (c->broke == 2 && !strcmp(sr[1].status, "skipped") && json_array_size(c->all) == 0) {
        /* the candidate went first (random order) and skipped: the point is
         * the machine's skip only if the baseline skips it too */
        sr[0].cpus = NULL;
        run_side(&sr[0]);
        if (!strcmp(sr[0].status, "skipped")) {
            json_decref(sr[1].doc);
            sr[1].doc = NULL;
            c->broke = 1;
        } else {
            json_decref(sr[0].doc);
            sr[0].doc = NULL;
        }
    }
    if (c->broke) {
        side_run *b = &sr[c->broke - 1];
        *status = b->status;
        if (!strcmp(*status, "skipped") && b->doc && c->broke == 1 &&
            json_array_size(c->all) == 0) {
            /* the machine cannot run it: stored as the worker said */
            json_decref(c->last);
            c->last = b->doc;
            b->doc = NULL;
        } else {
            json_decref(b->doc);
            b->doc = NULL;
            if (!strcmp(*status, "skipped")) *status = "failed";
            if (b->disk_full)
                snprintf(reason, cap,
                         "no space left in TMPDIR (%.200s): the run could not write its "
                         "output or result there, whichever binary ran (%.300s)",
                         b->tmpdir, b->why);
            else
                snprintf(reason, cap, "%s binary %.200s: %.400s",
                         c->broke == 1 ? "baseline" : "candidate", bins[c->broke - 1], b->why);
            json_decref(c->last);
            c->last = NULL;
        }
    } else if (g_interrupted) {
        *status = "interrupted";
        snprintf(reason, cap, "interrupted by SIGINT");
        json_decref(c->last);
        c->last = NULL;
    }
}

/* Runs one GEMM point as pairs of the two binaries and stores it (see
 * sb_pair_opts). Returns SB_EFAIL only when the store failed. */
static int run_point_paired(sb_db *db, int64_t machine, const sb_plan *p, const point_row *row,
                            const sb_pair_opts *po, const char *tmpdir, double peak, double timeout,
                            char *summary, size_t sumcap, const char **status_out, sb_err *e)
{
    sb_plan_shape shape;
    sb_plan_point pt;
    row_point(row, &pt, &shape);
    /* each run is `reps` repetitions, exactly */
    sb_plan run_plan = *p;
    run_plan.reps = po->reps;
    run_plan.min_seconds = 0;
    const char *const bins[2] = {po->baseline, po->candidate};
    int keep_side = 1; /* whose worker output the point keeps */
    paired_run c;
    memset(&c, 0, sizeof c);
    c.po = po;
    side_run *sr = c.sr;
    sb_err pe = {0};
    int rc = SB_OK;
    const char *status = "failed";
    char reason[700] = "";
    for (int s = 0; s < 2; s++) {
        snprintf(sr[s].result, sizeof sr[s].result, "%s/point-%d-%c.json", tmpdir, row->seq,
                 "ab"[s]);
        snprintf(sr[s].outlog, sizeof sr[s].outlog, "%s/point-%d-%c.out", tmpdir, row->seq,
                 "ab"[s]);
        snprintf(sr[s].errlog, sizeof sr[s].errlog, "%s/point-%d-%c.err", tmpdir, row->seq,
                 "ab"[s]);
        sr[s].timeout = timeout;
        sr[s].deadline = s ? sr[0].deadline : sb_now() + timeout;
        sr[s].row = row;
        sr[s].tmpdir = tmpdir;
        if (point_argv(&run_plan, &pt, bins[s], sr[s].result, peak, tmpdir, row->seq, &sr[s].argv,
                       &pe)) {
            snprintf(reason, sizeof reason, "cannot build command: %.*s",
                     sb_text_prefix(pe.msg, 400), pe.msg);
            goto store_status;
        }
    }
    if ((rc = mark_running(db, row, sr[1].argv, e))) goto out;
    c.mode = po->mode;
    if (c.mode == SB_PAIR_DUET && (sched_getaffinity(0, sizeof c.mine, &c.mine) ||
                                   !duet_cpus(row->threads, &c.cx, &c.cy)))
        c.mode = SB_PAIR_ABBA;
    c.all = json_array(), c.sides = json_array(), c.pairs = json_array(), c.cand = json_array();
    run_quads(&c, row->seq);
    settle_broken(&c, bins, &status, reason, sizeof reason);
    if (c.broke) keep_side = c.broke - 1; /* its output explains it */
    json_t *last = c.last;
    c.last = NULL;
    if (last && !strcmp(json_string_value(json_object_get(last, "status")), "ok")) {
        json_object_set(last, "samples", c.cand);
        json_t *pr = json_pack("{s:s,s:s,s:s,s:O,s:O,s:O}", "mode", sb_pair_mode_name(c.mode),
                               "baseline", po->baseline, "candidate", po->candidate, "samples",
                               c.all, "side", c.sides, "pair", c.pairs);
        json_object_set_new(last, "pairing", pr);
        if (!json_object_get(last, "workload"))
            json_object_set_new(last, "workload", json_string(row->workload));
        repeak(db, machine, row, last);
    }
    if (last) {
        if ((rc = sb_db_point_ingest(db, row->id, last, &pe))) {
            if (rc != SB_EUSAGE) {
                sb_errf(e, rc, "%s", pe.msg);
                json_decref(last);
                goto free_arrays;
            }
            snprintf(reason, sizeof reason, "bad result file: %.*s", sb_text_prefix(pe.msg, 400),
                     pe.msg);
            rc = SB_OK;
            status = "failed";
        } else {
            status = !strcmp(json_string_value(json_object_get(last, "status")), "ok") ? "ok"
                                                                                       : "skipped";
            if (!strcmp(status, "ok")) {
                sb_paired_stats st;
                judge_so_far(c.all, c.sides, c.pairs, po, &st);
                snprintf(summary, sumcap, "%s after %d pair(s) (%s): ratio %.3f, A/A %.1f%%",
                         sb_paired_outcome_name(st.outcome), st.npairs, sb_pair_mode_name(c.mode),
                         st.ratio, 100 * st.aa);
            } else {
                const char *why = json_string_value(json_object_get(last, "reason"));
                snprintf(summary, sumcap, "%.*s", sb_text_prefix(why ? why : "", 200),
                         why ? why : "");
            }
            *status_out = status;
            json_decref(last);
            goto free_arrays;
        }
        json_decref(last);
    }
    json_decref(c.all), json_decref(c.sides), json_decref(c.pairs), json_decref(c.cand);
store_status:
    if ((rc = sb_db_point_set_status(db, row->id, status, reason, e))) goto out;
    *status_out = !strcmp(status, "interrupted") ? "interrupted"
        : !strcmp(status, "timeout")             ? "timeout"
                                                 : "failed";
    snprintf(summary, sumcap, "%.*s", sb_text_prefix(reason, 300), reason);
    goto out;
free_arrays:
    json_decref(c.all), json_decref(c.sides), json_decref(c.pairs), json_decref(c.cand);
out:
    if (!rc && access(sr[keep_side].outlog, F_OK) == 0)
        rc = keep_output_counted(db, row->id, sr[keep_side].outlog, sr[keep_side].errlog,
                                 sr[keep_side].out_bytes, sr[keep_side].err_bytes, e);
    for (int s = 0; s < 2; s++) {
        json_decref(sr[s].doc);
        sb_argv_free(sr[s].argv);
        unlink(sr[s].result);
        unlink(sr[s].outlog);
        unlink(sr[s].errlog);
    }
    return rc;
}

static double default_timeout(const sb_workload *w) { return w ? w->timeout_s : 1800.0; }

/* Before anything is written: the hostfile parses, holds enough hosts, and
 * every host a point will use answers through the launcher's agent (the one
 * named by --mca plm_rsh_agent in --mpirun-args, ssh otherwise). */
static int preflight_hosts(const sb_plan *p, sb_err *e)
{
    if (!p->hostfile) return SB_OK;
    sb_hostfile hf = {0};
    int rc = sb_hostfile_parse(p->hostfile, &hf, e);
    if (rc) return rc;
    int maxn = 1;
    for (int i = 0; i < p->nnodes; i++)
        if (p->nodes[i] > maxn) maxn = p->nodes[i];
    char **tok = NULL;
    int ntok = 0;
    const char *agent = NULL;
    if (maxn > hf.n)
        rc = sb_errf(e, SB_EUSAGE, "%s: %d host(s), but the plan asks for %d nodes", p->hostfile,
                     hf.n, maxn);
    if (!rc && p->mpirun_args && !(rc = sb_launch_split_args(p->mpirun_args, &tok, &ntok, e)))
        for (int i = 0; i + 2 < ntok; i++)
            if (!strcmp(tok[i], "--mca") && !strcmp(tok[i + 1], "plm_rsh_agent"))
                agent = tok[i + 2];
    /* One host alone runs locally under mpirun; several go through the agent. */
    for (int i = 0; !rc && maxn > 1 && i < maxn; i++)
        rc = sb_launch_probe_host(agent, hf.hosts[i].name, 10.0, e);
    sb_argv_free(tok);
    sb_hostfile_free(&hf);
    return rc;
}

/* The threads the peak probe runs on: the sweep's largest thread count (its
 * worker gets them as --threads, and its result and point store them). */
static int peak_threads(const sb_plan *p)
{
    int maxt = 1;
    for (int i = 0; i < p->nthreads; i++)
        if (p->threads[i] > maxt) maxt = p->threads[i];
    return maxt;
}

/* Whether a sweep of p measures the peak first: a GEMM sweep (unless
 * no_peak) of a machine with no stored peak (db NULL: nothing stored). A
 * machine without AVX-512 never stores the f32 path's peak: AVX2's counts. */
static int want_peak(sb_db *db, const sb_plan *p, int64_t machine, int no_peak)
{
    if (no_peak || !sb_workload_flagged(SB_WL_PROBE) || !sb_wl_is(p->wl, SB_WL_PEAK)) return 0;
    return !db || (sb_db_peak_per_core(db, machine, "f32") <= 0 &&
                   sb_db_peak_per_core(db, machine, "avx2_f32") <= 0);
}

/* Adds a plan's points to a sweep, pending, inside the caller's
 * transaction: the peak probe first for a GEMM sweep of a machine with no
 * stored peak (unless no_peak), then the plan's points in order. */
static int add_plan_points(sb_db *db, int64_t sweep, const sb_plan *p, int64_t machine, int no_peak,
                           sb_err *e)
{
    int seq = 0, rc;
    const sb_workload *probe = sb_workload_flagged(SB_WL_PROBE);
    if (want_peak(db, p, machine, no_peak)) {
        sb_point_desc d = {.seq = seq++,
                           .workload = probe->name,
                           .kernel = probe->name,
                           .dtype = "",
                           .shape = "",
                           .config = "{}",
                           .threads = peak_threads(p),
                           .ppn = 1,
                           .nodes = 1};
        int64_t id;
        if ((rc = sb_db_point_add(db, sweep, &d, machine, &id, e))) return rc;
    }
    int n = sb_plan_npoints(p);
    for (int i = 0; i < n; i++) {
        sb_plan_point pt;
        sb_plan_point_at(p, i, &pt);
        char shape[256], config[64];
        if (pt.shape)
            shape_key(p, pt.shape, shape, sizeof shape);
        else
            config_key(p, &pt, shape, sizeof shape);
        point_config(p, &pt, config, sizeof config);
        const sb_kernel *k = sb_kernel_find(pt.kernel);
        sb_point_desc d = {.seq = seq++,
                           .workload = p->wl->name,
                           .kernel = pt.kernel,
                           .dtype = k ? sb_dtype_name(k->dtype) : "",
                           .shape = shape,
                           .config = config,
                           .threads = pt.threads,
                           .ppn = pt.ppn,
                           .nodes = pt.nodes};
        int64_t id;
        if ((rc = sb_db_point_add(db, sweep, &d, machine, &id, e))) return rc;
    }
    return SB_OK;
}

/* --dry-run's peak probe, when the sweep would measure it first: its
 * command at the threads it runs on. The database is only read (an absent
 * one or an unknown machine has no stored peak). */
static int dry_run_peak(const sb_sweep_opts *o, FILE *f, sb_err *e)
{
    const sb_plan *p = o->plan;
    if (!want_peak(NULL, p, 0, o->no_peak)) return SB_OK;
    sb_db *db = NULL;
    sb_err ie = {0};
    int64_t machine = 0;
    const sb_sysinfo *si = sb_sysinfo_cached();
    struct stat st;
    if (si && o->db_path && stat(o->db_path, &st) == 0 && !sb_db_open_readonly(o->db_path, &db, &ie))
        sb_db_machine_by_fingerprint(db, si->fingerprint, &machine, &ie);
    int want = want_peak(machine > 0 ? db : NULL, p, machine, 0);
    sb_db_close(db);
    if (!want) {
        fprintf(f, "# the peak is stored for this machine: no peak probe\n");
        return SB_OK;
    }
    sb_plan probe;
    sb_plan_init(&probe);
    probe.wl = sb_workload_flagged(SB_WL_PROBE);
    sb_plan_point pt = {.kernel = probe.wl->name, .threads = peak_threads(p), .ppn = 1, .nodes = 1};
    char **argv = NULL;
    int rc = point_argv(&probe, &pt, o->self_exe, "RESULT.json", 0, "/tmp", 0, &argv, e);
    if (rc) return rc;
    char *cmd = sb_argv_render(argv);
    fprintf(f, "# first the machine's peak, on %d thread(s) (--no-peak skips it)\n%s\n",
            pt.threads, cmd);
    free(cmd);
    sb_argv_free(argv);
    return SB_OK;
}

/* --dry-run: the peak probe when it would run, then the points and their
 * exact commands (both binaries' for a paired sweep, each run R
 * repetitions); nothing is touched. */
static int dry_run(const sb_sweep_opts *o, sb_sweep_outcome *out, sb_err *e)
{
    const sb_plan *p = o->plan;
    FILE *f = o->out ? o->out : stdout;
    int n = sb_plan_npoints(p);
    fprintf(f, "# %d point(s), workload %s", n, p->wl ? p->wl->name : "");
    for (int i = 0; i < p->nbatches; i++) fprintf(f, "%s%d", i ? "," : ", batch ", p->batches[i]);
    fprintf(f, "\n");
    int prc = dry_run_peak(o, f, e);
    if (prc) return prc;
    for (int i = 0; i < n; i++) {
        sb_plan_point pt;
        sb_plan_point_at(p, i, &pt);
        sb_plan run_plan = *p;
        if (o->pair.baseline) run_plan.reps = o->pair.reps, run_plan.min_seconds = 0;
        for (int s = 0; s < (o->pair.baseline ? 2 : 1); s++) {
            const char *bin = !o->pair.baseline ? o->self_exe
                : s                             ? o->pair.candidate
                                                : o->pair.baseline;
            char **argv = NULL;
            int rc = point_argv(&run_plan, &pt, bin, "RESULT.json", 0, "/tmp", i + 1, &argv, e);
            if (rc) return rc;
            char *cmd = sb_argv_render(argv);
            fprintf(f, "%s%s\n",
                    !o->pair.baseline ? ""
                        : s           ? "candidate: "
                                      : "baseline:  ",
                    cmd);
            free(cmd);
            sb_argv_free(argv);
        }
    }
    out->points = n;
    return SB_OK;
}

/* A resumed paired sweep runs the rest in pairs, with the binaries its plan
 * keeps; both must still be the files it ran. A sweep with paired points whose plan
 * keeps no pairing (stored before plans kept it) is refused: run alone, the
 * rest would be points the gate cannot judge. */
static int resume_pairing(const sb_sweep_opts *o, sb_db *db, int64_t sweep, int paired,
                          sb_pair_stored *rp, sb_err *e)
{
    if (!paired) {
        int n = 0, rc = sb_db_sweep_paired_count(db, sweep, &n, e);
        if (rc) return rc;
        if (n > 0)
            return sb_errf(e, SB_EUSAGE,
                           "%s: sweep %lld was measured in pairs, but its stored plan does not "
                           "keep the two binaries (an older sprbench stored it): run a new "
                           "paired sweep",
                           o->db_path, (long long)sweep);
        return SB_OK;
    }
    for (int s = 0; s < 2; s++) {
        char why[200];
        if (sb_pair_still(rp, s, why, sizeof why))
            return sb_errf(e, SB_EUSAGE,
                           "%s: sweep %lld runs in pairs, and its %s binary %s %s: put it back, "
                           "or run a new paired sweep",
                           o->db_path, (long long)sweep, s ? "candidate" : "baseline",
                           s ? rp->cand : rp->base, why);
    }
    return SB_OK;
}

/* A resumed sweep: its stored plan read back and finished (*p points at
 * it) with its pairing (rp), checked for Slurm, and claimed (*claimed once
 * the claim is held). */
static int resume_sweep(const sb_sweep_opts *o, sb_db *db, int64_t sweep, sb_plan *resumed,
                        const sb_plan **p, sb_pair_stored *rp, int *claimed, sb_err *e)
{
    const sb_sysinfo *si = sb_sysinfo_cached();
    char *plan_text = NULL;
    int found = 0, paired = 0, rc;
    if ((rc = sb_db_sweep_plan(db, sweep, &plan_text, &found, e))) return rc;
    if (!plan_text)
        return sb_errf(e, SB_EUSAGE,
                       found ? "%s: sweep %lld has no stored plan to resume"
                             : "%s: no sweep %lld to resume",
                       o->db_path, (long long)sweep);
    rc = sb_pair_take(plan_text, rp, &paired, e);
    if (!rc) rc = sb_plan_parse(resumed, plan_text, "stored plan", e);
    free(plan_text);
    if (rc || (rc = sb_plan_finish(resumed, si ? si->cores : 1, e))) return rc;
    if ((rc = resume_pairing(o, db, sweep, paired, rp, e))) return rc;
    *p = resumed;
    if ((rc = sb_slurm_plan_preflight(*p, e))) return rc;
    /* one run of a sweep at a time: a second resume is refused here,
     * naming the holder, before it runs anything */
    if ((rc = sb_db_sweep_claim(db, sweep, this_process(), e))) return rc;
    *claimed = 1;
    return SB_OK;
}

/* What a resume adds once the machine is known: points that were never
 * stored (the transaction that adds them failed: a full disk) are derived
 * again from the stored plan, so that a resume does not call a sweep done
 * with nothing run; the sweep reopened. */
static int reopen_sweep(const sb_sweep_opts *o, sb_db *db, int64_t sweep, const sb_plan *p,
                        int64_t machine, sb_err *e)
{
    FILE *f = o->out ? o->out : stdout;
    int stored = 0, rc;
    if ((rc = sb_db_sweep_point_count(db, sweep, &stored, e))) return rc;
    if ((rc = sb_db_begin(db, e))) return rc;
    if ((!stored && (rc = add_plan_points(db, sweep, p, machine, o->no_peak, e))) ||
        (rc = sb_db_sweep_reopen(db, sweep, e))) {
        sb_db_rollback(db);
        return rc;
    }
    if ((rc = sb_db_commit(db, e))) return rc;
    if (!stored)
        fprintf(f, "sweep %lld: its points were never stored; derived again from its plan\n",
                (long long)sweep);
    return SB_OK;
}

/* The plan as the sweep stores it: a paired sweep's pairing (its two
 * binaries, absolute) after the plan's own lines, so that --resume runs
 * the rest in pairs too (sb_pair_take). */
static char *stored_plan_text(const sb_plan *p, const sb_pair_opts *pair)
{
    char *plan = sb_plan_render(p), *pr = pair->baseline ? sb_pair_render(pair) : NULL;
    if (!pr || !plan) {
        free(pr);
        return plan;
    }
    size_t a = strlen(plan), b = strlen(pr);
    char *both = realloc(plan, a + b + 1);
    if (both) memcpy(both + a, pr, b + 1);
    free(pr);
    return both ? both : plan;
}

/* A new sweep: the sweep, all its points (pending: a resume knows what is
 * left) and this process's claim on it, in one transaction, so a sweep is
 * never stored without its points. *sweep 0 when it was not stored. */
static int create_sweep(const sb_sweep_opts *o, sb_db *db, const sb_plan *p, int64_t machine,
                        int64_t *sweep, sb_err *e)
{
    char *plan_text = stored_plan_text(p, &o->pair);
    int rc = sb_db_begin(db, e);
    if (rc) {
        free(plan_text);
        return rc;
    }
    rc = sb_db_sweep_create(db, p->label[0] ? p->label : NULL, p->wl->name, plan_text, machine,
                            sweep, e);
    free(plan_text);
    if (rc || (rc = add_plan_points(db, *sweep, p, machine, o->no_peak, e)) ||
        (rc = sb_db_sweep_claim(db, *sweep, this_process(), e))) {
        sb_db_rollback(db);
        *sweep = 0;
        return rc;
    }
    if ((rc = sb_db_commit(db, e))) *sweep = 0;
    return rc;
}

static void count_status(sb_sweep_outcome *out, const char *status)
{
    if (!strcmp(status, "ok"))
        out->ok++;
    else if (!strcmp(status, "skipped"))
        out->skipped++;
    else if (!strcmp(status, "timeout"))
        out->timeout++;
    else if (!strcmp(status, "interrupted"))
        out->interrupted++;
    else
        out->failed++;
    out->points++;
}

/* Runs the sweep's unfinished points in order, each stored as it ends, a
 * progress line each, in the sweep's own temporary directory; SIGINT,
 * SIGTERM and SIGHUP stop it between points (g_interrupted). */
static int run_points(const sb_sweep_opts *o, sb_db *db, int64_t sweep, const sb_plan *p,
                      const sb_pair_opts *pair, int64_t machine, sb_sweep_outcome *out, sb_err *e)
{
    FILE *f = o->out ? o->out : stdout;
    point_row *rows = NULL;
    int nrows = 0, rc;
    if ((rc = sb_db_sweep_unfinished(db, sweep, &rows, &nrows, e))) return rc;
    char tmpdir[] = "/tmp/sprbench-sweep-XXXXXX";
    const char *tmpbase = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/sprbench-sweep-XXXXXX", tmpbase && *tmpbase ? tmpbase : "/tmp");
    char *dir = mkdtemp(tmpl);
    if (!dir) dir = mkdtemp(tmpdir);
    if (!dir) {
        free(rows);
        return sb_errf(e, SB_EFAIL, "cannot make a temporary directory: %s", strerror(errno));
    }
    /* every run's guard joins one process group, recorded with the claim:
     * a resume or an unlock waits for what a killed sweep's runs left */
    int group = sb_guard_group_open();
    if (group && (rc = sb_db_sweep_set_group(db, sweep, this_process(), group, e))) {
        sb_guard_group_close();
        free(rows);
        remove_tmpdir(dir);
        return rc;
    }
    g_interrupted = 0;
    /* a hang-up (the terminal or the ssh session closed) ends a sweep as
     * SIGTERM does: its worker stopped, its points marked interrupted */
    struct sigaction sa = {0}, old_int, old_term, old_hup;
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    sb_launch_cancel = &g_interrupted;
    double timeout = p->point_timeout > 0 ? p->point_timeout : default_timeout(p->wl);
    fprintf(f, "sweep %lld: %d point(s) to run, database %s\n", (long long)sweep, nrows,
            o->db_path);
    fflush(f);
    sb_progress bar;
    sb_progress_start(&bar, "sweep", nrows);
    for (int i = 0; i < nrows && !g_interrupted; i++) {
        point_row *r = &rows[i];
        double peak = 0;
        const sb_kernel *k = sb_kernel_find(r->kernel);
        if (k && sb_wl_is(r->wl, SB_WL_PEAK)) peak = kernel_peak(db, machine, k);
        char summary[400] = "";
        const char *status = "failed";
        double t0 = sb_now();
        if (pair->baseline && !sb_wl_is(r->wl, SB_WL_PROBE))
            rc = run_point_paired(db, machine, p, r, pair, dir, peak, timeout, summary,
                                  sizeof summary, &status, e);
        else
            rc = run_point(db, machine, p, r, o->self_exe, dir, peak, timeout, summary,
                           sizeof summary, &status, e);
        if (rc) break;
        count_status(out, status);
        sb_progress_end(&bar);
        char shown[1300]; /* a worker's words, shown on one line */
        char wl[100], kern[200], shape[200]; /* a resumed sweep's come from the database */
        fprintf(f, "[%d/%d] %s %s %s threads=%d ppn=%d nodes=%d: %s %s (%.1f s)\n", i + 1, nrows,
                sb_text_inert(wl, sizeof wl, r->workload), sb_text_inert(kern, sizeof kern, r->kernel),
                sb_text_inert(shape, sizeof shape, r->shape), r->threads, r->ppn, r->nodes,
                status, sb_text_cell(shown, sizeof shown, summary, 300, 0), sb_now() - t0);
        fflush(f);
        sb_progress_update(&bar, i + 1, "");
    }
    sb_progress_end(&bar);
    sb_guard_group_close();
    sb_launch_cancel = NULL;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    free(rows);
    remove_tmpdir(dir);
    return rc;
}

int sb_sweep_run(const sb_sweep_opts *o, sb_sweep_outcome *out, sb_err *e)
{
    memset(out, 0, sizeof *out);
    if (o->dry_run) return dry_run(o, out, e);
    sb_plan resumed;
    sb_plan_init(&resumed);
    const sb_plan *p = o->plan;
    FILE *f = o->out ? o->out : stdout;

    int rc = o->resume_id > 0 ? SB_OK : preflight_hosts(p, e);
    if (!rc && o->resume_id <= 0) rc = sb_slurm_plan_preflight(p, e);
    if (rc) return rc;
    sb_db *db = NULL;
    int64_t sweep = o->resume_id;
    int claimed = 0;
    sb_pair_stored rp = {.po = o->pair}; /* a resumed sweep's, from its stored plan */
    if (sweep > 0) {
        /* a resume reads a database that must exist: none is created */
        struct stat dst;
        if (stat(o->db_path, &dst) != 0)
            return sb_errf(e, SB_EUSAGE, "%s: no such database (nothing to resume)", o->db_path);
    } else {
        /* refused before the database is opened, so nothing is written */
        char *plan_text = stored_plan_text(p, &o->pair);
        rc = sb_db_check_sweep_text(p->label[0] ? p->label : NULL, plan_text, e);
        free(plan_text);
        if (rc) return rc;
    }
    if ((rc = sb_db_open(o->db_path, &db, e))) return rc;
    const sb_sysinfo *si = sb_sysinfo_cached();
    json_t *info = NULL;
    int64_t machine = 0;
    if (sweep > 0 && (rc = resume_sweep(o, db, sweep, &resumed, &p, &rp, &claimed, e)))
        goto done;
    if (o->resume_id > 0 && rp.po.baseline)
        fprintf(f, "sweep %lld: resumed in pairs (%s): baseline %s, candidate %s\n",
                (long long)sweep, sb_pair_mode_name(rp.po.mode), rp.po.baseline, rp.po.candidate);
    info = si ? sb_sysinfo_json(si) : NULL;
    if (info && (rc = sb_db_machine_upsert(db, info, &machine, e))) goto done;
    if (sweep > 0)
        rc = reopen_sweep(o, db, sweep, p, machine, e);
    else if (!(rc = create_sweep(o, db, p, machine, &sweep, e)))
        claimed = 1;
    if (rc) goto done;
    out->sweep_id = sweep;
    if ((rc = run_points(o, db, sweep, p, &rp.po, machine, out, e))) goto done;
    if (!g_interrupted && sb_wl_is(p->wl, SB_WL_PROJECT) && !p->project_off)
        rc = sb_sweep_project(db, sweep, p->project_nodes, p->nproject_nodes, f,
                              &out->projected_series, e);
    if (!rc) {
        int interrupted = g_interrupted != 0;
        if (interrupted)
            rc = sb_errf(e, SB_EFAIL,
                         "interrupted; finished points are stored, resume with "
                         "--resume %lld",
                         (long long)sweep);
        sb_err fe = {0};
        sb_db_sweep_finish(db, sweep, interrupted ? "interrupted" : "done", &fe);
    }
done:
    if (claimed) {
        sb_err re = {0};
        if (sb_db_sweep_release(db, sweep, this_process(), &re) && !rc)
            rc = sb_errf(e, re.code, "%s", re.msg);
    }
    json_decref(info);
    sb_db_close(db);
    sb_plan_free(&resumed);
    return rc;
}

/* ---- the scaling model's projection of measured series ---- */

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
    long vocab = 30522, dim = 768, layers = 6, ffn = 3072;
    if (one->vocab > 0 && one->dim > 0 && one->layers > 0 && one->ffn > 0)
        vocab = one->vocab, dim = one->dim, layers = one->layers, ffn = one->ffn;
    /* gradients are all-reduced in f32 whatever the kernel computes in */
    in->grad_bytes = (double)sb_distilbert_param_count(vocab, dim, layers, ffn, 512) * 4;
    in->last_bucket_bytes = ((double)(vocab + 512) * dim + 2.0 * dim) * 4;
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
                double speedup = r->lower ? r->base_value / r->value : r->value / r->base_value;
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
        double speedup = !base ? 0 : r->lower ? r->base_value / r->value : r->value / r->base_value;
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

void sb_sweep_show(const char *db_path, const sb_sweep_outcome *out, FILE *f, json_t **doc,
                   sb_err *e)
{
    if (doc) {
        *doc = NULL;
        if (sb_sweep_summary_json(db_path, out->sweep_id, doc, e)) return;
        /* a path need not be UTF-8: repaired (U+FFFD), never dropped */
        json_object_update_new(*doc, json_pack("{s:o,s:i,s:i,s:i,s:i,s:i,s:i,s:[]}", "database",
                                               sb_text_json(db_path), "ok", out->ok, "skipped", out->skipped,
                                               "failed", out->failed, "timeout", out->timeout,
                                               "interrupted", out->interrupted,
                                               "projected_series", out->projected_series,
                                               "plots"));
        return;
    }
    sb_sweep_summary(db_path, out->sweep_id, f, e);
    fprintf(f, "\nsweep %lld: %d ok, %d skipped, %d failed, %d timeout, %d interrupted; database %s\n",
            (long long)out->sweep_id, out->ok, out->skipped, out->failed, out->timeout,
            out->interrupted, db_path);
    if (out->projected_series)
        fprintf(f,
                "sweep %lld: %d series projected by the scaling model (status 'projected', not"
                " measured)\n",
                (long long)out->sweep_id, out->projected_series);
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
