#include "sb_sweep.h"
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
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
#include "sb_pair_point.h"
#include "sb_pair_run.h"
#include "sb_point.h"
#include "sb_query.h"
#include "sb_slurm.h"
#include "sb_sweep_project.h"
#include "sb_sweep_summary.h"
#include "sb_sysinfo.h"
#include "sb_text.h"
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
        sb_point_keys(p, &pt, shape, sizeof shape, config, sizeof config);
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
    int rc = sb_point_argv(&probe, &pt, "", o->self_exe, "RESULT.json", 0, "/tmp", 0, &argv, e);
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
    /* a batched plan's batches, as its points' names say them */
    for (int i = 0; sb_wl_axis_in_series(p->wl) && i < p->naxis; i++)
        fprintf(f, "%s%s", i ? "," : ", batch ", p->axis[i]);
    fprintf(f, "\n");
    int prc = dry_run_peak(o, f, e);
    if (prc) return prc;
    for (int i = 0; i < n; i++) {
        sb_plan_point pt;
        sb_plan_point_at(p, i, &pt);
        sb_plan run_plan = *p;
        if (o->pair.baseline) run_plan.reps = o->pair.reps, run_plan.min_seconds = 0;
        char axis[256];
        sb_point_axis(p, &pt, axis, sizeof axis);
        for (int s = 0; s < (o->pair.baseline ? 2 : 1); s++) {
            const char *bin = !o->pair.baseline ? o->self_exe
                : s                             ? o->pair.candidate
                                                : o->pair.baseline;
            char **argv = NULL;
            int rc = sb_point_argv(&run_plan, &pt, axis, bin, "RESULT.json", 0, "/tmp", i + 1,
                                   &argv, e);
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
    sb_todo_point *rows = NULL;
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
    sb_point_ctx ctx = {.db = db,
                        .machine = machine,
                        .plan = p,
                        .tmpdir = dir,
                        .timeout = p->point_timeout > 0 ? p->point_timeout : default_timeout(p->wl),
                        .stop = &g_interrupted};
    fprintf(f, "sweep %lld: %d point(s) to run, database %s\n", (long long)sweep, nrows,
            o->db_path);
    fflush(f);
    sb_progress bar;
    sb_progress_start(&bar, "sweep", nrows);
    for (int i = 0; i < nrows && !g_interrupted; i++) {
        sb_todo_point *r = &rows[i];
        double peak = 0;
        const sb_kernel *k = sb_kernel_find(r->kernel);
        if (k && sb_wl_is(r->wl, SB_WL_PEAK)) peak = sb_point_kernel_peak(db, machine, k);
        char summary[400] = "";
        const char *status = "failed";
        double t0 = sb_now();
        if (pair->baseline && !sb_wl_is(r->wl, SB_WL_PROBE))
            rc = sb_pair_point_run(&ctx, r, pair, peak, summary, sizeof summary, &status, e);
        else
            rc = sb_point_run(&ctx, r, o->self_exe, peak, summary, sizeof summary, &status, e);
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

