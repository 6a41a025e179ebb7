#include "sb_pair_point.h"
#include <jansson.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_db_ingest.h"
#include "sb_db_sweep.h"
#include "sb_io.h"
#include "sb_launch.h"
#include "sb_pair_run.h"
#include "sb_paired.h"
#include "sb_progress.h"
#include "sb_sysinfo.h"
#include "sb_text.h"

/* One run of one binary: its status ("ok", "skipped", or why not in why),
 * its result document when it wrote a usable one. */
typedef struct side_run {
    char **argv;
    double timeout;  /* the point's, all its runs together (--point-timeout) */
    double deadline; /* when the point's time is up (sb_now) */
    const sb_todo_point *row;
    const char *tmpdir;
    char result[4096], outlog[4096], errlog[4096];
    const cpu_set_t *cpus; /* duet: where it runs (NULL: anywhere) */
    json_t *doc;
    const char *status; /* ok, skipped, failed, timeout, interrupted */
    int disk_full;      /* the run failed for want of space in tmpdir, not by its binary */
    long long out_bytes, err_bytes; /* what its worker wrote in all (-1: not counted) */
    char why[600];
} side_run;

/* The worker under sb_launch_run (sb_point_launch), within what is left of
 * the point's time. */
static int launch_side(side_run *s, sb_run_result *r, sb_err *pe)
{
    double left = s->deadline - sb_now();
    s->out_bytes = s->err_bytes = -1;
    if (left <= 0) {
        *r = (sb_run_result){.timed_out = 1};
        return SB_OK;
    }
    return sb_point_launch(s->argv, left, s->outlog, s->errlog, r, pe, &s->out_bytes,
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
        !sb_read_file_max(s->result, SB_POINT_RESULT_MAX, "result file", &text, &len, NULL))
        doc = json_loadb(text, len, 0, &je);
    free(text);
    const char *ds = doc ? json_string_value(json_object_get(doc, "status")) : NULL;
    if (!json_is_object(doc) || !ds) {
        json_decref(doc);
        char tail[320];
        sb_point_worker_error(s->errlog, tail, sizeof tail);
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
    const volatile sig_atomic_t *stop; /* the sweep's: SIGINT, SIGTERM, SIGHUP */
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
    for (int slot = 0; slot < 4 && !c->broke && !*c->stop; slot++) {
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
    for (int q = 0; 2 * q < po->max_pairs && !c->broke && !*c->stop; q++) {
        if (c->mode == SB_PAIR_DUET)
            quad_duet(c, q);
        else
            quad_order(c, q, &seed);
        if (c->broke || *c->stop) break;
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
    } else if (*c->stop) {
        *status = "interrupted";
        snprintf(reason, cap, "interrupted by SIGINT");
        json_decref(c->last);
        c->last = NULL;
    }
}

int sb_pair_point_run(const sb_point_ctx *ctx, const sb_todo_point *row, const sb_pair_opts *po,
                      double peak, char *summary, size_t sumcap, const char **status_out, sb_err *e)
{
    sb_db *db = ctx->db;
    const char *tmpdir = ctx->tmpdir;
    double timeout = ctx->timeout;
    sb_plan_point pt;
    char axis[sizeof row->shape];
    sb_point_of_row(row, &pt, axis, sizeof axis);
    /* each run is `reps` repetitions, exactly */
    sb_plan run_plan = *ctx->plan;
    run_plan.reps = po->reps;
    run_plan.min_seconds = 0;
    const char *const bins[2] = {po->baseline, po->candidate};
    int keep_side = 1; /* whose worker output the point keeps */
    paired_run c;
    memset(&c, 0, sizeof c);
    c.po = po;
    c.stop = ctx->stop;
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
        if (sb_point_argv(&run_plan, &pt, axis, bins[s], sr[s].result, peak, tmpdir, row->seq,
                          &sr[s].argv, &pe)) {
            snprintf(reason, sizeof reason, "cannot build command: %.*s",
                     sb_text_prefix(pe.msg, 400), pe.msg);
            goto store_status;
        }
    }
    if ((rc = sb_point_mark_running(db, row, sr[1].argv, e))) goto out;
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
        sb_point_repeak(db, ctx->machine, row, last);
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
        rc = sb_point_keep_output(db, row->id, sr[keep_side].outlog, sr[keep_side].errlog,
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
