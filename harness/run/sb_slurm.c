#include "sb_slurm.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_io.h"
#include "sb_plan.h"
#include "sb_text.h"
#include "sb_workload.h"

/* ---- host lists ---- */

typedef struct {
    char **v;
    int n, cap;
} namevec;

static int nv_push(namevec *a, const char *s, size_t len)
{
    if (a->n + 2 > a->cap) {
        int cap = a->cap ? a->cap * 2 : 16;
        char **v = realloc(a->v, sizeof *v * (size_t)cap);
        if (!v) return -1;
        a->v = v;
        a->cap = cap;
    }
    char *c = malloc(len + 1);
    if (!c) return -1;
    memcpy(c, s, len);
    c[len] = '\0';
    a->v[a->n++] = c;
    a->v[a->n] = NULL;
    return 0;
}

/* A quoted, shortened copy of a hostile value for messages. */
static const char *shown(const char *s, char *buf, size_t cap)
{
    return sb_text_cell(buf, cap, s, 60, 0);
}

/* Expands `item` (no top-level commas; may hold several [...] groups),
 * appending each name after `prefix` to out. */
static int expand_item(const char *prefix, size_t plen, const char *item, const char *what,
                       const char *whole, namevec *out, sb_err *e)
{
    char q[200];
    const char *open = strchr(item, '[');
    const char *stray = strchr(item, ']');
    if (stray && (!open || stray < open))
        return sb_errf(e, SB_EUSAGE, "%s: unbalanced ']' in '%s'", what, shown(whole, q, sizeof q));
    if (!open) {
        size_t ilen = strlen(item);
        char *name = malloc(plen + ilen + 1);
        if (!name) return sb_errf(e, SB_EFAIL, "out of memory");
        memcpy(name, prefix, plen);
        memcpy(name + plen, item, ilen);
        if (plen + ilen == 0) {
            free(name);
            return sb_errf(e, SB_EUSAGE, "%s: empty host name in '%s'", what,
                           shown(whole, q, sizeof q));
        }
        if (out->n >= SB_SLURM_MAX_NODES) {
            free(name);
            return sb_errf(e, SB_EUSAGE, "%s: more than %d hosts", what, SB_SLURM_MAX_NODES);
        }
        int bad = nv_push(out, name, plen + ilen);
        free(name);
        return bad ? sb_errf(e, SB_EFAIL, "out of memory") : SB_OK;
    }
    const char *close = strchr(open, ']');
    if (!close)
        return sb_errf(e, SB_EUSAGE, "%s: unbalanced '[' in '%s'", what, shown(whole, q, sizeof q));
    if (memchr(open + 1, '[', (size_t)(close - open - 1)))
        return sb_errf(e, SB_EUSAGE, "%s: nested '[' in '%s'", what, shown(whole, q, sizeof q));
    /* the text before the bracket joins the prefix */
    size_t head = (size_t)(open - item);
    char *pre = malloc(plen + head + 32);
    if (!pre) return sb_errf(e, SB_EFAIL, "out of memory");
    memcpy(pre, prefix, plen);
    memcpy(pre + plen, item, head);
    const char *p = open + 1;
    int rc = SB_OK;
    if (p == close)
        rc = sb_errf(e, SB_EUSAGE, "%s: empty range '[]' in '%s'", what, shown(whole, q, sizeof q));
    while (!rc && p < close) {
        const char *end = memchr(p, ',', (size_t)(close - p));
        if (!end) end = close;
        const char *dash = memchr(p, '-', (size_t)(end - p));
        const char *lo_end = dash ? dash : end;
        size_t wlo = (size_t)(lo_end - p), whi = dash ? (size_t)(end - dash - 1) : wlo;
        const char *hi_s = dash ? dash + 1 : p;
        int digits = wlo > 0 && whi > 0 && wlo <= 9 && whi <= 9;
        for (const char *c = p; digits && c < lo_end; c++) digits = isdigit((unsigned char)*c);
        for (const char *c = hi_s; digits && c < end; c++) digits = isdigit((unsigned char)*c);
        if (!digits) {
            rc = sb_errf(e, SB_EUSAGE, "%s: bad range '%.*s' in '%s' (numbers or a-b)", what,
                         (int)(end - p > 40 ? 40 : end - p), p, shown(whole, q, sizeof q));
            break;
        }
        long lo = strtol(p, NULL, 10), hi = strtol(hi_s, NULL, 10);
        if (hi < lo) {
            rc = sb_errf(e, SB_EUSAGE, "%s: range '%.*s' runs backwards in '%s'", what,
                         (int)(end - p), p, shown(whole, q, sizeof q));
            break;
        }
        if (hi - lo >= SB_SLURM_MAX_NODES) {
            rc = sb_errf(e, SB_EUSAGE, "%s: more than %d hosts", what, SB_SLURM_MAX_NODES);
            break;
        }
        /* "01-10" pads to the width of its first number, as Slurm does */
        int width = (int)wlo;
        for (long v = lo; !rc && v <= hi; v++) {
            int n = snprintf(pre + plen + head, 32, "%0*ld", width, v);
            rc = expand_item(pre, plen + head + (size_t)n, close + 1, what, whole, out, e);
        }
        p = end < close ? end + 1 : close;
        if (!rc && end < close && p == close)
            rc = sb_errf(e, SB_EUSAGE, "%s: empty range item in '%s'", what,
                         shown(whole, q, sizeof q));
    }
    free(pre);
    return rc;
}

int sb_slurm_hostlist_expand(const char *list, const char *what, char ***names, int *n, sb_err *e)
{
    *names = NULL;
    *n = 0;
    char q[200];
    if (!list || !*list) return sb_errf(e, SB_EUSAGE, "%s: empty host list", what);
    for (const char *c = list; *c; c++)
        if (isspace((unsigned char)*c) || !isprint((unsigned char)*c))
            return sb_errf(e, SB_EUSAGE, "%s: unexpected character in host list '%s'", what,
                           shown(list, q, sizeof q));
    namevec out = {0};
    int rc = SB_OK;
    const char *p = list;
    while (!rc) {
        /* the next top-level comma: commas inside [...] separate ranges */
        const char *end = p;
        int depth = 0;
        while (*end && (depth || *end != ',')) {
            if (*end == '[')
                depth++;
            else if (*end == ']' && depth)
                depth--;
            end++;
        }
        size_t len = (size_t)(end - p);
        char *item = malloc(len + 1);
        if (!item) {
            rc = sb_errf(e, SB_EFAIL, "out of memory");
            break;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        rc = len ? expand_item("", 0, item, what, list, &out, e)
                 : sb_errf(e, SB_EUSAGE, "%s: empty item in host list '%s'", what,
                           shown(list, q, sizeof q));
        free(item);
        if (!*end) break;
        p = end + 1;
    }
    if (rc) {
        sb_argv_free(out.v);
        return rc;
    }
    *names = out.v;
    *n = out.n;
    return SB_OK;
}

int sb_slurm_counts_expand(const char *spec, const char *what, int n, int *out, sb_err *e)
{
    char q[200];
    if (!spec || !*spec) return sb_errf(e, SB_EUSAGE, "%s: empty", what);
    int k = 0;
    const char *p = spec;
    for (;;) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        long rep = 1;
        if (end == p || !isdigit((unsigned char)*p) || errno || v < 0 || v > 1 << 20)
            return sb_errf(e, SB_EUSAGE, "%s: bad count list '%s'", what, shown(spec, q, sizeof q));
        p = end;
        if (!strncmp(p, "(x", 2)) {
            errno = 0;
            rep = strtol(p + 2, &end, 10);
            if (end == p + 2 || *end != ')' || errno || rep < 1 || rep > SB_SLURM_MAX_NODES)
                return sb_errf(e, SB_EUSAGE, "%s: bad count list '%s'", what,
                               shown(spec, q, sizeof q));
            p = end + 1;
        }
        if (rep > n - k)
            return sb_errf(e, SB_EUSAGE, "%s: '%s' counts more than the %d node(s)", what,
                           shown(spec, q, sizeof q), n);
        for (long r = 0; r < rep; r++) out[k++] = (int)v;
        if (!*p) break;
        if (*p != ',')
            return sb_errf(e, SB_EUSAGE, "%s: bad count list '%s'", what, shown(spec, q, sizeof q));
        p++;
    }
    if (k != n)
        return sb_errf(e, SB_EUSAGE, "%s: '%s' counts %d node(s), the node list has %d", what,
                       shown(spec, q, sizeof q), k, n);
    return SB_OK;
}

/* ---- the allocation ---- */

int sb_slurm_alloc_parse(const char *job_id, const char *nodelist, const char *tasks,
                         const char *cpus, sb_slurm_alloc *a, sb_err *e)
{
    memset(a, 0, sizeof *a);
    char q[200];
    if (!job_id || !*job_id)
        return sb_errf(e, SB_EUSAGE, "not inside a Slurm allocation (SLURM_JOB_ID is not set)");
    for (const char *c = job_id; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.')
            return sb_errf(e, SB_EUSAGE, "SLURM_JOB_ID: unexpected value '%s'",
                           shown(job_id, q, sizeof q));
    if (strlen(job_id) >= sizeof a->job_id) return sb_errf(e, SB_EUSAGE, "SLURM_JOB_ID: too long");
    snprintf(a->job_id, sizeof a->job_id, "%s", job_id);
    if (!nodelist || !*nodelist)
        return sb_errf(e, SB_EUSAGE, "inside Slurm job %s but SLURM_JOB_NODELIST is not set",
                       job_id);
    int rc = sb_slurm_hostlist_expand(nodelist, "SLURM_JOB_NODELIST", &a->nodes, &a->nnodes, e);
    if (rc) return rc;
    a->tasks = calloc((size_t)a->nnodes, sizeof *a->tasks);
    a->cpus = calloc((size_t)a->nnodes, sizeof *a->cpus);
    if (!a->tasks || !a->cpus) {
        sb_slurm_alloc_free(a);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    for (int i = 0; i < a->nnodes; i++) a->tasks[i] = 1;
    if ((tasks && *tasks &&
         (rc = sb_slurm_counts_expand(tasks, "SLURM_TASKS_PER_NODE", a->nnodes, a->tasks, e))) ||
        (cpus && *cpus &&
         (rc = sb_slurm_counts_expand(cpus, "SLURM_JOB_CPUS_PER_NODE", a->nnodes, a->cpus, e)))) {
        sb_slurm_alloc_free(a);
        return rc;
    }
    return SB_OK;
}

int sb_slurm_alloc_from_env(sb_slurm_alloc *a, sb_err *e)
{
    const char *nl = getenv("SLURM_JOB_NODELIST");
    if (!nl || !*nl) nl = getenv("SLURM_NODELIST");
    return sb_slurm_alloc_parse(getenv("SLURM_JOB_ID"), nl, getenv("SLURM_TASKS_PER_NODE"),
                                getenv("SLURM_JOB_CPUS_PER_NODE"), a, e);
}

void sb_slurm_alloc_free(sb_slurm_alloc *a)
{
    sb_argv_free(a->nodes);
    free(a->tasks);
    free(a->cpus);
    memset(a, 0, sizeof *a);
}

int sb_slurm_check_fit(const sb_slurm_alloc *a, int nodes, int ppn, int threads, sb_err *e)
{
    if (nodes > a->nnodes)
        return sb_errf(e, SB_EUSAGE, "the plan asks for %d nodes, Slurm job %s holds %d (%s...)",
                       nodes, a->job_id, a->nnodes, a->nodes[0]);
    for (int i = 0; i < nodes; i++) {
        if (ppn > a->tasks[i])
            return sb_errf(e, SB_EUSAGE,
                           "the plan runs %d rank(s) per node, Slurm job %s has %d"
                           " task(s) on %s (allocate with --ntasks-per-node=%d)",
                           ppn, a->job_id, a->tasks[i], a->nodes[i], ppn);
        if (a->cpus[i] > 0 && (long)ppn * threads > a->cpus[i])
            return sb_errf(e, SB_EUSAGE,
                           "the plan needs %d CPU(s) per node (%d rank(s) x %d"
                           " thread(s)), Slurm job %s has %d on %s (allocate with"
                           " --cpus-per-task=%d)",
                           ppn * threads, ppn, threads, a->job_id, a->cpus[i], a->nodes[i],
                           threads);
    }
    return SB_OK;
}

void sb_slurm_alloc_hostfile(const sb_slurm_alloc *a, sb_hostfile *hf)
{
    hf->n = 0;
    hf->hosts = calloc((size_t)(a->nnodes ? a->nnodes : 1), sizeof *hf->hosts);
    if (!hf->hosts) return;
    for (int i = 0; i < a->nnodes; i++) {
        hf->hosts[i].name = strdup(a->nodes[i]);
        hf->hosts[i].slots = a->tasks[i];
        hf->hosts[i].line = i + 1;
        if (hf->hosts[i].name)
            hf->n++;
        else
            break;
    }
}

void sb_slurm_nodes_joined(const sb_slurm_alloc *a, int n, char *buf, size_t cap)
{
    size_t off = 0;
    if (cap) buf[0] = '\0';
    for (int i = 0; i < n && i < a->nnodes && off < cap; i++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%s", i ? "," : "", a->nodes[i]);
}

int sb_slurm_require(const char *program, sb_err *e)
{
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/bin:/bin";
    char buf[4096];
    for (const char *p = path; *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len) {
            snprintf(buf, sizeof buf, "%.*s/%s", (int)len, p, program);
            if (access(buf, X_OK) == 0) return SB_OK;
        }
        if (!end) break;
        p = end + 1;
    }
    return sb_errf(e, SB_EUSAGE,
                   "%s not found in PATH: install Slurm's client commands (Debian"
                   " and Ubuntu: apt-get install slurm-client)",
                   program);
}

/* ---- what Slurm said ---- */

int sb_slurm_kill_reason(const char *text, char *buf, size_t cap)
{
    if (cap) buf[0] = '\0';
    if (!text) return 0;
    const char *best = NULL, *other = NULL;
    size_t best_len = 0, other_len = 0;
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        /* slurmstepd's banner: "*** STEP 5.1 ON n1 CANCELLED AT <time> DUE TO TIME LIMIT ***" */
        const char *a = memmem(line, len, "*** ", 4);
        const char *z = a ? memmem(a + 4, len - (size_t)(a + 4 - line), " ***", 4) : NULL;
        if (a && z && (!strncmp(a + 4, "STEP ", 5) || !strncmp(a + 4, "JOB ", 4))) {
            best = a;
            best_len = (size_t)(z + 4 - a);
        } else if (!strncmp(line, "srun: ", 6) &&
                   (memmem(line, len, "Node failure", 12) || memmem(line, len, "NODE_FAIL", 9) ||
                    memmem(line, len, "CANCELLED", 9) ||
                    memmem(line, len, "Job step aborted", 16) ||
                    memmem(line, len, "time limit", 10))) {
            other = line;
            other_len = len;
        }
        if (!nl) break;
        line = nl + 1;
    }
    const char *s = best ? best : other;
    size_t len = best ? best_len : other_len;
    if (!s) return 0;
    while (len && isspace((unsigned char)s[len - 1])) len--;
    char *copy = strndup(s, len);
    if (!copy) return 0;
    snprintf(buf, cap, "%.*s", sb_text_prefix(copy, cap ? cap - 1 : 0), copy);
    free(copy);
    return 1;
}

/* ---- a sweep's points ---- */

int sb_slurm_plan_uses(const sb_plan *p) { return p->launcher && !strcmp(p->launcher, "slurm"); }

int sb_slurm_plan_preflight(const sb_plan *p, sb_err *e)
{
    if (!sb_slurm_plan_uses(p)) return SB_OK;
    sb_slurm_alloc a;
    int rc = sb_slurm_alloc_from_env(&a, e);
    if (rc) {
        if (!getenv("SLURM_JOB_ID"))
            return sb_errf(e, SB_EUSAGE,
                           "--launcher slurm: not inside a Slurm allocation"
                           " (SLURM_JOB_ID is not set); run the sweep under salloc or sbatch, or"
                           " write a batch script with --sbatch FILE");
        return rc;
    }
    /* mpirun inside an allocation starts its daemons with srun */
    rc = sb_slurm_require("srun", e);
    int maxn, maxp, maxt;
    sb_plan_max_dims(p, &maxn, &maxp, &maxt);
    if (!rc) rc = sb_slurm_check_fit(&a, maxn, maxp, maxt, e);
    sb_slurm_alloc_free(&a);
    return rc;
}

int sb_slurm_point_hosts(int nodes, const char *path, int *slots, sb_err *e)
{
    sb_slurm_alloc a;
    int rc = sb_slurm_alloc_from_env(&a, e);
    if (rc) return rc;
    sb_hostfile hf;
    sb_slurm_alloc_hostfile(&a, &hf);
    rc = hf.n == a.nnodes ? sb_hostfile_write_first(&hf, nodes, path, e)
                          : sb_errf(e, SB_EFAIL, "out of memory");
    if (!rc) *slots = sb_hostfile_min_slots(&hf, nodes);
    sb_hostfile_free(&hf);
    sb_slurm_alloc_free(&a);
    return rc;
}

void sb_slurm_point_annotate(json_t *doc, int nodes)
{
    sb_slurm_alloc a;
    sb_err e = {0};
    if (sb_slurm_alloc_from_env(&a, &e)) return;
    json_t *names = json_array();
    for (int i = 0; i < nodes && i < a.nnodes; i++)
        json_array_append_new(names, json_string(a.nodes[i]));
    json_t *step = json_object_get(json_object_get(doc, "slurm_step"), "step_id");
    json_object_set_new(doc, "slurm",
                        json_pack("{s:s, s:O, s:o}", "job_id", a.job_id, "step_id",
                                  step ? step : json_null(), "nodes", names));
    sb_slurm_alloc_free(&a);
}

/* The job's state when it is no longer running ("JobState=TIMEOUT
 * Reason=TimeLimit"), from `scontrol show job -o`: mpirun drops the stderr
 * of the srun that runs its daemons, so when Slurm ends the whole job (time
 * limit, node failure) this is where its reason is. */
static int job_state(const char *job, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (sb_slurm_require("scontrol", NULL)) return 0;
    const char *tmp = getenv("TMPDIR");
    char outp[4096];
    snprintf(outp, sizeof outp, "%s/sprbench-scontrol-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(outp);
    if (fd < 0) return 0;
    close(fd);
    char *argv[] = {"scontrol", "show", "job", "-o", (char *)job, NULL};
    sb_run_result r;
    sb_err e = {0};
    char *text = NULL;
    int found = 0;
    if (!sb_launch_run(argv, NULL, 20, outp, "/dev/null", &r, &e) && sb_run_ok(&r) &&
        !sb_read_file_max(outp, 1 << 20, "scontrol output", &text, NULL, NULL)) {
        char state[64] = "", why[200] = "";
        const char *st = strstr(text, "JobState="), *re = strstr(text, " Reason=");
        if (st) sscanf(st + 9, "%63[A-Z_]", state);
        if (re) sscanf(re + 8, "%199[^ \n]", why);
        if (state[0] && strcmp(state, "RUNNING") && strcmp(state, "COMPLETING")) {
            snprintf(buf, cap, "job %s JobState=%s Reason=%s", job, state, why[0] ? why : "None");
            found = 1;
        }
    }
    free(text);
    unlink(outp);
    return found;
}

void sb_slurm_point_reason(const char *errlog, int nodes, char *reason, size_t cap)
{
    sb_slurm_alloc a;
    sb_err e = {0};
    if (sb_slurm_alloc_from_env(&a, &e)) return;
    char *text = NULL, why[400] = "", where[300];
    if (!sb_read_file_max(errlog, 16 << 20, "worker log", &text, NULL, NULL))
        sb_slurm_kill_reason(text, why, sizeof why);
    free(text);
    if (!why[0]) job_state(a.job_id, why, sizeof why);
    sb_slurm_nodes_joined(&a, nodes, where, sizeof where);
    char *old = strdup(reason);
    if (old) {
        if (why[0])
            snprintf(reason, cap, "Slurm: %s; %s (job %s on %s)", why, old, a.job_id, where);
        else
            snprintf(reason, cap, "%s (Slurm job %s on %s)", old, a.job_id, where);
        free(old);
    }
    sb_slurm_alloc_free(&a);
}

/* ---- batch submission ---- */

void sb_slurm_time_format(double seconds, char *buf, size_t cap)
{
    double m = seconds / 60.0;
    long minutes = (long)m;
    if ((double)minutes < m) minutes++;
    if (minutes < 1) minutes = 1;
    long days = minutes / 1440, hours = minutes % 1440 / 60, mins = minutes % 60;
    if (days)
        snprintf(buf, cap, "%ld-%02ld:%02ld:00", days, hours, mins);
    else
        snprintf(buf, cap, "%02ld:%02ld:00", hours, mins);
}

char *sb_slurm_batch_script(const sb_slurm_batch *b)
{
    char *cmd = sb_argv_render(b->argv);
    char *dir_argv[] = {(char *)b->workdir, NULL};
    char *dir = sb_argv_render(dir_argv);
    char limit[64];
    sb_slurm_time_format(b->time_limit_s, limit, sizeof limit);
    char *out = NULL;
    if (cmd && dir) {
        const char *fmt =
            "#!/bin/sh\n"
            "# Written by `sprbench sweep --sbatch`: allocates what the sweep's plan needs\n"
            "# (its largest node count and ranks per node, the threads of a rank as\n"
            "# CPUs per task, whole nodes, a time limit of every point's timeout) and runs\n"
            "# the same sweep inside, where it launches each point through Slurm.\n"
            "#SBATCH --job-name=%s\n"
            "#SBATCH --nodes=%d\n"
            "#SBATCH --ntasks-per-node=%d\n"
            "#SBATCH --cpus-per-task=%d\n"
            "#SBATCH --time=%s\n"
            "#SBATCH --exclusive\n"
            "cd %s || exit 1\n"
            "exec %s\n";
        const char *name = b->job_name ? b->job_name : "sprbench-sweep";
        int n = snprintf(NULL, 0, fmt, name, b->nodes, b->ppn, b->cpus_per_task, limit, dir, cmd);
        out = n > 0 ? malloc((size_t)n + 1) : NULL;
        if (out)
            snprintf(out, (size_t)n + 1, fmt, name, b->nodes, b->ppn, b->cpus_per_task, limit, dir,
                     cmd);
    }
    free(cmd);
    free(dir);
    return out;
}

int sb_slurm_submit(const char *script_path, char *job_id, size_t cap, sb_err *e)
{
    if (cap) job_id[0] = '\0';
    int rc = sb_slurm_require("sbatch", e);
    if (rc) return rc;
    const char *tmp = getenv("TMPDIR");
    char outp[4096], errp[4100];
    snprintf(outp, sizeof outp, "%s/sprbench-sbatch-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(outp);
    if (fd < 0) return sb_errf(e, SB_EFAIL, "cannot make a temporary file: %s", strerror(errno));
    close(fd);
    snprintf(errp, sizeof errp, "%s.err", outp);
    char *argv[] = {"sbatch", "--parsable", (char *)script_path, NULL};
    sb_run_result r;
    rc = sb_launch_run(argv, NULL, 120, outp, errp, &r, e);
    char *o = NULL, *er = NULL;
    if (!rc) {
        sb_read_file_max(outp, 1 << 16, "sbatch output", &o, NULL, NULL);
        sb_read_file_max(errp, 1 << 16, "sbatch output", &er, NULL, NULL);
        if (!sb_run_ok(&r)) {
            char how[128];
            sb_run_describe(&r, 120, how, sizeof how);
            /* sbatch's last line says why ("sbatch: error: ...") */
            const char *why = "";
            if (er) {
                size_t l = strlen(er);
                while (l && er[l - 1] == '\n') er[--l] = '\0';
                const char *last = strrchr(er, '\n');
                why = last ? last + 1 : er;
            }
            rc = sb_errf(e, SB_EFAIL, "sbatch %s ended with %s%s%.*s", script_path, how,
                         *why ? ": " : "", sb_text_prefix(why, 300), why);
        } else {
            /* --parsable: "JOBID" or "JOBID;CLUSTER" */
            size_t n = o ? strspn(o, "0123456789") : 0;
            if (!n)
                rc = sb_errf(e, SB_EFAIL, "sbatch %s printed no job id", script_path);
            else
                snprintf(job_id, cap, "%.*s", (int)n, o);
        }
    }
    free(o);
    free(er);
    unlink(outp);
    unlink(errp);
    return rc;
}

int sb_slurm_plan_batch(const sb_plan *p, const char *path, char *const *argv, sb_slurm_batch *b,
                        sb_err *e)
{
    int maxn, maxp, maxt;
    sb_plan_max_dims(p, &maxn, &maxp, &maxt);
    const sb_workload *w = p->wl;
    double timeout = p->point_timeout > 0 ? p->point_timeout : w ? w->timeout_s : 1800.0;
    int npoints = sb_plan_npoints(p) + (w && (w->flags & SB_WL_PEAK) ? 1 : 0);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) return sb_errf(e, SB_EFAIL, "cannot read the working directory");
    *b = (sb_slurm_batch){.nodes = maxn,
                          .ppn = maxp,
                          .cpus_per_task = maxt,
                          .time_limit_s = npoints * timeout + 300,
                          .workdir = cwd,
                          .argv = argv};
    char *text = sb_slurm_batch_script(b);
    b->workdir = NULL; /* this function's buffer: the caller reads the sizes only */
    if (!text) return sb_errf(e, SB_EFAIL, "out of memory");
    int rc = sb_write_file_atomic(path, text, strlen(text), e);
    free(text);
    return rc;
}

int sb_slurm_plan_launcher(sb_plan *p, int batch, sb_err *e)
{
    if (batch && (p->hostfile || (p->launcher && strcmp(p->launcher, "slurm"))))
        return sb_errf(e, SB_EUSAGE,
                       "--sbatch runs the sweep with --launcher slurm on the nodes it"
                       " allocates: give no --hostfile or other launcher");
    const char *job = getenv("SLURM_JOB_ID");
    if (p->launcher || p->hostfile || !((job && *job) || batch)) return SB_OK;
    return sb_plan_set(p, "launcher", "slurm", batch ? "--sbatch" : "SLURM_JOB_ID", e);
}
