#include "sb_result.h"
#include "sb_launch.h"
#include "sb_guard.h"
#include "sb_proc.h"
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "sb_progress.h"
#include "sb_io.h"

extern char **environ;

/* ---------------- hostfile ---------------- */

void sb_hostfile_free(sb_hostfile *hf)
{
    if (!hf) return;
    for (int i = 0; i < hf->n; i++) free(hf->hosts[i].name);
    free(hf->hosts);
    hf->hosts = NULL;
    hf->n = 0;
}

static int valid_host_char(int c)
{
    return isalnum(c) || c == '.' || c == '-' || c == '_' || c == ':' || c == '@' || c == '[' ||
        c == ']';
}

/* Reads a positive count after "key=" for line diagnostics. */
static int parse_count(const char *v, const char *name, int line, const char *key, int *out,
                       sb_err *e)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno || x < 1 || x > 1000000)
        return sb_errf(e, SB_EUSAGE, "%s:%d: %s needs a positive whole number, got '%s'", name,
                       line, key, v);
    *out = (int)x;
    return SB_OK;
}

static int add_host(sb_hostfile *hf, const char *host, int slots, int max_slots, int line)
{
    for (int i = 0; i < hf->n; i++) {
        if (!strcmp(hf->hosts[i].name, host)) {
            sb_host *h = &hf->hosts[i];
            /* Repeated lines add slots (Open MPI counts each bare line as one). */
            h->slots = (h->slots ? h->slots : 1) + (slots ? slots : 1);
            if (max_slots) h->max_slots = max_slots;
            return SB_OK;
        }
    }
    sb_host *grown = realloc(hf->hosts, (size_t)(hf->n + 1) * sizeof *grown);
    if (!grown) return SB_EFAIL;
    hf->hosts = grown;
    hf->hosts[hf->n] = (sb_host){strdup(host), slots, max_slots, line};
    if (!hf->hosts[hf->n].name) return SB_EFAIL;
    hf->n++;
    return SB_OK;
}

int sb_hostfile_parse_text(const char *text, const char *name, sb_hostfile *hf, sb_err *e)
{
    *hf = (sb_hostfile){0};
    int rc = SB_OK, lineno = 0;
    const char *p = text;
    char *line = NULL;
    while (*p && !rc) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        lineno++;
        free(line);
        line = strndup(p, len);
        p += len + (nl ? 1 : 0);
        if (!line) {
            rc = sb_errf(e, SB_EFAIL, "%s: out of memory", name);
            break;
        }
        if (len >= 4000) {
            rc = sb_errf(e, SB_EUSAGE, "%s:%d: line longer than 4000 characters", name, lineno);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        /* "slots = 2" is accepted by Open MPI: glue the '=' to its neighbours. */
        char norm[4096];
        size_t k = 0;
        for (size_t i = 0; line[i] && k + 1 < sizeof norm; i++) {
            if (isspace((unsigned char)line[i])) {
                size_t j = i;
                while (line[j] && isspace((unsigned char)line[j])) j++;
                if (line[j] == '=' || (k > 0 && norm[k - 1] == '=')) {
                    i = j - 1;
                    continue;
                }
                norm[k++] = ' ';
                i = j - 1;
                continue;
            }
            norm[k++] = line[i];
        }
        norm[k] = 0;
        char *save = NULL, *tok = strtok_r(norm, " ", &save);
        if (!tok) continue;
        if (strchr(tok, '=')) {
            rc = sb_errf(e, SB_EUSAGE, "%s:%d: line starts with '%s', expected a host name", name,
                         lineno, tok);
            break;
        }
        for (const char *c = tok; *c; c++) {
            if (!valid_host_char((unsigned char)*c)) {
                rc = sb_errf(e, SB_EUSAGE, "%s:%d: '%s' is not a host name", name, lineno, tok);
                break;
            }
        }
        if (rc) break;
        char host[256];
        snprintf(host, sizeof host, "%s", tok);
        int slots = 0, max_slots = 0;
        while (!rc && (tok = strtok_r(NULL, " ", &save))) {
            char *eq = strchr(tok, '=');
            if (!eq) {
                rc = sb_errf(e, SB_EUSAGE,
                             "%s:%d: unexpected '%s' (expected slots=N or max_slots=N)", name,
                             lineno, tok);
                break;
            }
            *eq = 0;
            const char *key = tok, *val = eq + 1;
            if (!strcmp(key, "slots") || !strcmp(key, "count") || !strcmp(key, "cpu"))
                rc = parse_count(val, name, lineno, key, &slots, e);
            else if (!strcmp(key, "max_slots") || !strcmp(key, "max-slots"))
                rc = parse_count(val, name, lineno, key, &max_slots, e);
            else
                rc = sb_errf(e, SB_EUSAGE,
                             "%s:%d: unknown keyword '%s' (expected slots or max_slots)", name,
                             lineno, key);
        }
        if (rc) break;
        if (slots && max_slots && max_slots < slots) {
            rc = sb_errf(e, SB_EUSAGE, "%s:%d: max_slots=%d is below slots=%d", name, lineno,
                         max_slots, slots);
            break;
        }
        if (add_host(hf, host, slots, max_slots, lineno))
            rc = sb_errf(e, SB_EFAIL, "%s: out of memory", name);
    }
    free(line);
    if (!rc && hf->n == 0) rc = sb_errf(e, SB_EUSAGE, "%s: no hosts listed", name);
    if (rc) sb_hostfile_free(hf);
    return rc;
}

int sb_hostfile_parse(const char *path, sb_hostfile *hf, sb_err *e)
{
    char *text = NULL;
    size_t len = 0;
    *hf = (sb_hostfile){0};
    /* One short line per host: 1 MiB is tens of thousands of hosts. A NUL byte
     * is refused (with its offset) rather than ending the list there. */
    if (sb_read_text_max(path, SB_MIB, "hostfile", &text, &len, e)) {
        if (e) e->code = SB_EUSAGE;
        return SB_EUSAGE;
    }
    int rc = sb_hostfile_parse_text(text, path, hf, e);
    free(text);
    return rc;
}

int sb_hostfile_write_first(const sb_hostfile *hf, int n, const char *path, sb_err *e)
{
    if (n < 1 || n > hf->n)
        return sb_errf(e, SB_EUSAGE, "a %d-node point needs %d hosts, the hostfile lists %d", n, n,
                       hf->n);
    size_t cap = 64, len = 0;
    char *buf = malloc(cap);
    if (!buf) return sb_errf(e, SB_EFAIL, "out of memory");
    for (int i = 0; i < n; i++) {
        char line[512];
        int k = snprintf(line, sizeof line, "%s", hf->hosts[i].name);
        if (hf->hosts[i].slots)
            k += snprintf(line + k, sizeof line - (size_t)k, " slots=%d", hf->hosts[i].slots);
        if (hf->hosts[i].max_slots)
            k += snprintf(line + k, sizeof line - (size_t)k, " max_slots=%d",
                          hf->hosts[i].max_slots);
        k += snprintf(line + k, sizeof line - (size_t)k, "\n");
        if (len + (size_t)k + 1 > cap) {
            cap = (len + (size_t)k + 1) * 2;
            char *g = realloc(buf, cap);
            if (!g) {
                free(buf);
                return sb_errf(e, SB_EFAIL, "out of memory");
            }
            buf = g;
        }
        memcpy(buf + len, line, (size_t)k);
        len += (size_t)k;
    }
    int rc = sb_write_file_atomic(path, buf, len, e);
    free(buf);
    return rc;
}

int sb_hostfile_min_slots(const sb_hostfile *hf, int n)
{
    int m = 0;
    for (int i = 0; i < n && i < hf->n; i++) {
        if (!hf->hosts[i].slots) return 0;
        if (!m || hf->hosts[i].slots < m) m = hf->hosts[i].slots;
    }
    return m;
}

/* ---------------- argv building ---------------- */

void sb_argv_push(sb_argv_builder *b, const char *s)
{
    if (b->oom) return;
    if (b->n + 2 > b->cap) {
        int cap = b->cap ? b->cap * 2 : 32;
        char **g = realloc(b->v, (size_t)cap * sizeof *g);
        if (!g) {
            b->oom = 1;
            return;
        }
        b->v = g;
        b->cap = cap;
    }
    b->v[b->n] = strdup(s);
    if (!b->v[b->n]) {
        b->oom = 1;
        return;
    }
    b->v[++b->n] = NULL;
}

void sb_argv_pushf(sb_argv_builder *b, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sb_argv_push(b, buf);
}

void sb_argv_free(char **argv)
{
    if (!argv) return;
    for (char **p = argv; *p; p++) free(*p);
    free(argv);
}

int sb_launch_mpirun_argv(const sb_launch_spec *s, char ***out, sb_err *e)
{
    *out = NULL;
    if (s->nodes < 1 || s->ppn < 1 || s->threads < 1)
        return sb_errf(e, SB_EUSAGE, "nodes, ppn and threads must be >= 1 (got %d, %d, %d)",
                       s->nodes, s->ppn, s->threads);
    if (!s->worker || !s->worker[0]) return sb_errf(e, SB_EUSAGE, "no worker command");
    const char *bind = s->bind ? s->bind : "core";
    if (strcmp(bind, "core") && strcmp(bind, "socket") && strcmp(bind, "none"))
        return sb_errf(e, SB_EUSAGE, "bind '%s': expected core, socket or none", bind);
    if (s->nodes > 1 && !s->hostfile)
        return sb_errf(e, SB_EUSAGE, "a %d-node point needs a hostfile", s->nodes);

    int cores_short = s->cores_per_node > 0 && s->ppn * s->threads > s->cores_per_node;
    int slots_short = s->slots_per_node > 0 && s->ppn > s->slots_per_node;
    /* Without a hostfile mpirun counts this machine's cores as slots. */
    int local_short = !s->hostfile && s->cores_per_node > 0 && s->ppn > s->cores_per_node;
    int oversub = s->oversubscribe || cores_short || slots_short || local_short;
    int as_root = s->as_root < 0 ? geteuid() == 0 : s->as_root;

    sb_argv_builder b = {0};
    sb_argv_push(&b, s->mpirun ? s->mpirun : "mpirun");
    if (as_root) sb_argv_push(&b, "--allow-run-as-root");
    if (s->hostfile) {
        sb_argv_push(&b, "--hostfile");
        sb_argv_push(&b, s->hostfile);
    }
    sb_argv_push(&b, "-np");
    sb_argv_pushf(&b, "%d", s->ppn * s->nodes);
    sb_argv_push(&b, "--map-by");
    if (!strcmp(bind, "core") && !cores_short) {
        /* PE=T reserves T cores per rank and binds the rank to them. */
        sb_argv_pushf(&b, "ppr:%d:node:PE=%d", s->ppn, s->threads);
        sb_argv_push(&b, "--bind-to");
        sb_argv_push(&b, "core");
    } else {
        /* Oversubscribed cores cannot be reserved: mpirun would refuse PE=. */
        sb_argv_pushf(&b, "ppr:%d:node", s->ppn);
        sb_argv_push(&b, "--bind-to");
        sb_argv_push(&b, cores_short ? "none" : bind);
    }
    if (oversub) sb_argv_push(&b, "--oversubscribe");
    sb_argv_push(&b, "-x");
    sb_argv_pushf(&b, "OMP_NUM_THREADS=%d", s->threads);
    if (as_root) {
        sb_argv_push(&b, "-x");
        sb_argv_push(&b, "OMPI_ALLOW_RUN_AS_ROOT=1");
        sb_argv_push(&b, "-x");
        sb_argv_push(&b, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
    }
    for (const char *const *p = s->env; p && *p; p++) {
        sb_argv_push(&b, "-x");
        sb_argv_push(&b, *p);
    }
    /* mpirun gives ranks on its own host its whole environment and remote
     * ranks only what -x names: without this a rank on another node would run
     * without the ONEDNN_MAX_CPU_ISA or LD_PRELOAD of the rank beside it. */
    for (char **p = s->forward_env ? environ : NULL; p && *p; p++) {
        size_t n = strcspn(*p, "=");
        if (!(*p)[n] || n == 0 || n > 127) continue;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)n, *p);
        if (!sb_env_recorded(name) || !strcmp(name, "OMP_NUM_THREADS")) continue;
        int given = 0;
        for (const char *const *q = s->env; q && *q && !given; q++)
            given = !strncmp(*q, name, n) && ((*q)[n] == '=' || !(*q)[n]);
        if (given) continue;
        sb_argv_push(&b, "-x");
        sb_argv_push(&b, name);
    }
    if (s->rsh_agent) {
        sb_argv_push(&b, "--mca");
        sb_argv_push(&b, "plm_rsh_agent");
        sb_argv_push(&b, s->rsh_agent);
    }
    for (const char *const *p = s->extra; p && *p; p++) sb_argv_push(&b, *p);
    for (const char *const *p = s->worker; *p; p++) sb_argv_push(&b, *p);
    if (b.oom) {
        sb_argv_free(b.v);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    *out = b.v;
    return SB_OK;
}

int sb_launch_split_args(const char *s, char ***tokens, int *count, sb_err *e)
{
    sb_argv_builder b = {0};
    size_t n = strlen(s);
    char *cur = malloc(n + 1);
    if (!cur) return sb_errf(e, SB_EFAIL, "out of memory");
    const char *p = s;
    *tokens = NULL;
    *count = 0;
    while (*p) {
        while (*p && isspace((unsigned char)*p)) p++;
        if (!*p) break;
        size_t k = 0;
        while (*p && !isspace((unsigned char)*p)) {
            if (*p == '\'') {
                const char *q = strchr(p + 1, '\'');
                if (!q) goto unbalanced;
                memcpy(cur + k, p + 1, (size_t)(q - p - 1));
                k += (size_t)(q - p - 1);
                p = q + 1;
            } else if (*p == '"') {
                p++;
                while (*p && *p != '"') {
                    if (*p == '\\' && (p[1] == '"' || p[1] == '\\')) p++;
                    cur[k++] = *p++;
                }
                if (*p != '"') goto unbalanced;
                p++;
            } else if (*p == '\\' && p[1]) {
                cur[k++] = p[1];
                p += 2;
            } else {
                cur[k++] = *p++;
            }
        }
        cur[k] = 0;
        sb_argv_push(&b, cur);
    }
    free(cur);
    if (!b.v && !b.oom && !(b.v = calloc(1, sizeof *b.v))) b.oom = 1;
    if (b.oom) {
        sb_argv_free(b.v);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    *tokens = b.v;
    *count = b.n;
    return SB_OK;
unbalanced:
    free(cur);
    sb_argv_free(b.v);
    return sb_errf(e, SB_EUSAGE, "unbalanced quote in '%s'", s);
}

/* ---------------- point runner ---------------- */

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) && errno == EINTR) {}
}

int sb_launch_group_alive(int pgid) { return sb_proc_group_alive(pgid, NULL); }

volatile sig_atomic_t *sb_launch_cancel;

/* The worker runs under a guard (sb_guard): its own process group, the
 * guard its descendants' subreaper, and the guard ends everything of it
 * when it ends, when we ask (a timeout, a cancel) and when we die, even by
 * SIGKILL (the kernel tells the guard; mpirun passes the SIGTERM on to its
 * ranks), so that no worker or anything it started runs on beside the
 * next run's. */
int sb_launch_run(char *const argv[], char *const envp[], double timeout_s, const char *stdout_path,
                  const char *stderr_path, sb_run_result *r, sb_err *e)
{
    *r = (sb_run_result){0};
    if (!argv || !argv[0]) return sb_errf(e, SB_EUSAGE, "empty command");
    double t0 = sb_now();
    sb_guard g;
    int err = sb_guard_start(argv, envp ? envp : environ, stdout_path, stderr_path, &g);
    if (err) return sb_errf(e, SB_EFAIL, "cannot start %s: %s", argv[0], strerror(err));
    r->pgid = g.worker;
    sb_guard_end end;
    while (!sb_guard_wait(&g, 0, &end)) {
        int cancel = sb_launch_cancel && *sb_launch_cancel;
        if ((timeout_s > 0 && sb_now() - t0 > timeout_s) || cancel) {
            if (cancel)
                r->cancelled = 1;
            else
                r->timed_out = 1;
            sb_guard_stop(&g);
            sb_guard_wait(&g, 1, &end);
            break;
        }
        /* Short naps early so quick points return quickly. */
        double el = sb_now() - t0;
        sleep_s(el < 1 ? 0.005 : 0.05);
    }
    r->leftovers = end.leftovers;
    r->seconds = sb_now() - t0;
    if (end.reaped) {
        if (WIFEXITED(end.status)) {
            r->exited = 1;
            r->exit_code = WEXITSTATUS(end.status);
        } else if (WIFSIGNALED(end.status)) {
            r->signaled = 1;
            r->signo = WTERMSIG(end.status);
        }
    }
    return SB_OK;
}

int sb_run_ok(const sb_run_result *r) { return !r->timed_out && r->exited && r->exit_code == 0; }

void sb_run_describe(const sb_run_result *r, double timeout_s, char *buf, int cap)
{
    if (r->timed_out)
        snprintf(buf, (size_t)cap, "timeout after %g s", timeout_s);
    else if (r->exited)
        snprintf(buf, (size_t)cap, "exit %d", r->exit_code);
    else if (r->signaled)
        snprintf(buf, (size_t)cap, "signal %d (%s)", r->signo, strsignal(r->signo));
    else
        snprintf(buf, (size_t)cap, "unknown status");
}

int sb_launch_probe_host(const char *rsh_agent, const char *host, double timeout_s, sb_err *e)
{
    char **agent = NULL;
    int na = 0,
        rc = sb_launch_split_args(rsh_agent && *rsh_agent ? rsh_agent : "ssh", &agent, &na, e);
    if (rc) return rc;
    if (na == 0) {
        sb_argv_free(agent);
        return sb_errf(e, SB_EUSAGE, "empty launcher agent");
    }
    const char *base = strrchr(agent[0], '/');
    base = base ? base + 1 : agent[0];
    int is_ssh = !strcmp(base, "ssh");
    char ct[64];
    snprintf(ct, sizeof ct, "ConnectTimeout=%d", timeout_s > 1 ? (int)timeout_s : 1);
    char **argv = calloc((size_t)na + 8, sizeof *argv);
    if (!argv) {
        sb_argv_free(agent);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    int k = 0;
    for (int i = 0; i < na; i++) argv[k++] = agent[i];
    if (is_ssh) {
        argv[k++] = "-o";
        argv[k++] = "BatchMode=yes";
        argv[k++] = "-o";
        argv[k++] = ct;
    }
    argv[k++] = (char *)host;
    argv[k++] = "true";
    argv[k] = NULL;
    sb_run_result r;
    char errpath[] = "/tmp/sb_probe.XXXXXX";
    int fd = mkstemp(errpath);
    if (fd >= 0) close(fd);
    rc = sb_launch_run(argv, NULL, timeout_s, "/dev/null", fd >= 0 ? errpath : NULL, &r, e);
    char *agent_line = sb_argv_render(agent);
    if (!rc && !sb_run_ok(&r)) {
        char why[128], last[256] = "";
        sb_run_describe(&r, timeout_s, why, sizeof why);
        char *text = NULL;
        size_t len = 0;
        sb_err ignore = {0};
        /* The probe's stderr is a few lines; a flood of them is not worth reading. */
        if (fd >= 0 && !sb_read_file_max(errpath, SB_MIB, "probe log", &text, &len, &ignore) &&
            len) {
            while (len && (text[len - 1] == '\n' || text[len - 1] == '\r')) text[--len] = 0;
            const char *nl = strrchr(text, '\n');
            snprintf(last, sizeof last, ": %s", nl ? nl + 1 : text);
        }
        free(text);
        rc = sb_errf(e, SB_EUSAGE, "host %s is unreachable via '%s' (%s%s)", host,
                     agent_line ? agent_line : "?", why, last);
    }
    if (fd >= 0) unlink(errpath);
    free(agent_line);
    free(argv);
    sb_argv_free(agent);
    return rc;
}
