#include "sb_plan.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_cli.h"
#include "sb_io.h"
#include "sb_kernel.h"

#define MAX_DIM 65536

/* Options a worker accepts from a plan, per workload. Anything else is refused
 * so that a plan can never smuggle arbitrary flags into a worker. */
static const char *const g_train_opts[] = {"model", "batch", "seq", "stride", "max-steps",
                                           "time-budget", "epochs", "vocab", "train", "dev",
                                           "lr", "seed", "dropout", "eval", "init", "comm-threads",
                                           "synth-train", "synth-dev", "warmup-steps",
                                           "no-overlap", NULL};
static const char *const g_allreduce_opts[] = {"sizes", "iters", "warmup", NULL};

void sb_plan_init(sb_plan *p) { memset(p, 0, sizeof *p); }

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++) free(v[i]);
}

void sb_plan_free(sb_plan *p)
{
    free_list(p->kernels, p->nkernels);
    free_list(p->opt_keys, p->nopts);
    free_list(p->opt_values, p->nopts);
    free(p->hostfile);
    free(p->bind);
    free(p->mpirun_args);
    memset(p, 0, sizeof *p);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

static int in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (!strcmp(*list, s)) return 1;
    return 0;
}

/* Plan values are printable text without control characters. */
static int clean_value(const char *v)
{
    for (; *v; v++)
        if ((unsigned char)*v < 0x20 || *v == 0x7f) return 0;
    return 1;
}

static int set_kernels(sb_plan *p, const char *value, const char *where, sb_err *e)
{
    free_list(p->kernels, p->nkernels);
    p->nkernels = 0;
    char *copy = strdup(value), *save = NULL;
    int rc = SB_OK;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        t = trim(t);
        if (!sb_kernel_find(t)) {
            rc = sb_errf(e, SB_EUSAGE, "%s: unknown kernel '%.100s' (known: %s)", where, t,
                         sb_kernel_names());
            break;
        }
        if (p->nkernels == SB_PLAN_MAX) {
            rc = sb_errf(e, SB_EUSAGE, "%s: too many kernels", where);
            break;
        }
        p->kernels[p->nkernels++] = strdup(t);
    }
    free(copy);
    if (!rc && !p->nkernels) rc = sb_errf(e, SB_EUSAGE, "%s: empty kernel list", where);
    return rc;
}

static int set_shapes(sb_plan *p, const char *value, const char *where, sb_err *e)
{
    p->nshapes = 0;
    char *copy = strdup(value), *save = NULL;
    int rc = SB_OK;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        t = trim(t);
        sb_plan_shape s = {0, 0, 0, 0, 0};   /* transpose 0: the plan's `trans` */
        /* MxNxK or MxNxK:TRANS */
        char *colon = strchr(t, ':');
        if (colon) {
            *colon = '\0';
            const char *tr = colon + 1;
            if (strlen(tr) != 2 || !strchr("NT", tr[0]) || !strchr("NT", tr[1])) {
                rc = sb_errf(e, SB_EUSAGE, "%s: '%.60s' is not a transpose (NN, NT, TN, TT)",
                             where, tr);
                break;
            }
            s.transa = tr[0];
            s.transb = tr[1];
        }
        sb_err pe = {0};
        if (sb_parse_shape(t, MAX_DIM, &s.m, &s.n, &s.k, &pe)) {
            rc = sb_errf(e, SB_EUSAGE, "%s: %s", where, pe.msg);
            break;
        }
        if (p->nshapes == SB_PLAN_MAX) {
            rc = sb_errf(e, SB_EUSAGE, "%s: too many shapes", where);
            break;
        }
        p->shapes[p->nshapes++] = s;
    }
    free(copy);
    if (!rc && !p->nshapes) rc = sb_errf(e, SB_EUSAGE, "%s: empty shape list", where);
    return rc;
}

static int set_str(char **dst, const char *value)
{
    free(*dst);
    *dst = strdup(value);
    return SB_OK;
}

int sb_plan_set(sb_plan *p, const char *key, const char *value, const char *where, sb_err *e)
{
    sb_err pe = {0};
    int n = 0;
    if (!clean_value(value))
        return sb_errf(e, SB_EUSAGE, "%s: value of '%s' has control characters", where, key);
    if (!strcmp(key, "workload")) {
        if (strcmp(value, "gemm") && strcmp(value, "train") && strcmp(value, "allreduce"))
            return sb_errf(e, SB_EUSAGE, "%s: unknown workload '%.60s' (gemm, train, allreduce)",
                           where, value);
        snprintf(p->workload, sizeof p->workload, "%s", value);
        return SB_OK;
    }
    if (!strcmp(key, "label")) {
        snprintf(p->label, sizeof p->label, "%s", value);
        return SB_OK;
    }
    if (!strcmp(key, "kernels")) return set_kernels(p, value, where, e);
    if (!strcmp(key, "shapes")) return set_shapes(p, value, where, e);
    if (!strcmp(key, "threads") || !strcmp(key, "ppn") || !strcmp(key, "nodes")) {
        int *dst = !strcmp(key, "threads") ? p->threads : !strcmp(key, "ppn") ? p->ppn : p->nodes;
        int *cnt = !strcmp(key, "threads") ? &p->nthreads : !strcmp(key, "ppn") ? &p->nppn : &p->nnodes;
        if (sb_parse_int_list(value, 1, 4096, key, dst, SB_PLAN_MAX, &n, &pe))
            return sb_errf(e, SB_EUSAGE, "%s: %s", where, pe.msg);
        *cnt = n;
        return SB_OK;
    }
    if (!strcmp(key, "project-nodes")) {
        p->nproject_nodes = 0;
        p->project_off = !strcmp(value, "0") || !strcmp(value, "none");
        if (p->project_off) return SB_OK;
        if (sb_parse_int_list(value, 1, 1 << 20, key, p->project_nodes, SB_PLAN_MAX, &n, &pe))
            return sb_errf(e, SB_EUSAGE, "%s: %s (or 0 / none: no projection)", where, pe.msg);
        p->nproject_nodes = n;
        return SB_OK;
    }
    if (!strcmp(key, "trans")) {
        if (strlen(value) != 2 || !strchr("NT", value[0]) || !strchr("NT", value[1]))
            return sb_errf(e, SB_EUSAGE, "%s: trans '%.20s' is not NN, NT, TN or TT", where, value);
        snprintf(p->trans, sizeof p->trans, "%s", value);
        return SB_OK;
    }
    if (!strcmp(key, "reps")) {
        long v;
        if (sb_parse_long(value, 1, 100000, "reps", &v, &pe))
            return sb_errf(e, SB_EUSAGE, "%s: %s", where, pe.msg);
        p->reps = (int)v;
        return SB_OK;
    }
    if (!strcmp(key, "prepack")) {
        long v;
        if (sb_parse_long(value, 0, 1, "prepack", &v, &pe))
            return sb_errf(e, SB_EUSAGE, "%s: %s", where, pe.msg);
        p->prepack = (int)v;
        return SB_OK;
    }
    if (!strcmp(key, "min-seconds") || !strcmp(key, "point-timeout")) {
        double v;
        if (sb_parse_double(value, 0.001, 7 * 86400.0, key, &v, &pe))
            return sb_errf(e, SB_EUSAGE, "%s: %s", where, pe.msg);
        if (!strcmp(key, "min-seconds")) p->min_seconds = v;
        else p->point_timeout = v;
        return SB_OK;
    }
    if (!strcmp(key, "hostfile")) return set_str(&p->hostfile, value);
    if (!strcmp(key, "mpirun-args")) return set_str(&p->mpirun_args, value);
    if (!strcmp(key, "bind")) {
        if (strcmp(value, "core") && strcmp(value, "socket") && strcmp(value, "none"))
            return sb_errf(e, SB_EUSAGE, "%s: bind '%.20s' is not core, socket or none", where, value);
        return set_str(&p->bind, value);
    }
    if (in_list(g_train_opts, key) || in_list(g_allreduce_opts, key)) {
        for (int i = 0; i < p->nopts; i++)
            if (!strcmp(p->opt_keys[i], key)) return set_str(&p->opt_values[i], value);
        if (p->nopts == SB_PLAN_MAX) return sb_errf(e, SB_EUSAGE, "%s: too many options", where);
        p->opt_keys[p->nopts] = strdup(key);
        p->opt_values[p->nopts++] = strdup(value);
        return SB_OK;
    }
    return sb_errf(e, SB_EUSAGE, "%s: unknown key '%.60s'", where, key);
}

int sb_plan_parse(sb_plan *p, const char *text, const char *name, sb_err *e)
{
    char *copy = strdup(text), *save = NULL;
    int lineno = 0, rc = SB_OK;
    /* strtok_r would merge blank lines and lose numbering; walk by hand. */
    char *line = copy;
    (void)save;
    while (line && !rc) {
        char *next = strchr(line, '\n');
        if (next) *next++ = '\0';
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *l = trim(line);
        if (*l) {
            char where[300];
            snprintf(where, sizeof where, "%.200s:%d", name, lineno);
            char *eq = strchr(l, '=');
            if (!eq) {
                rc = sb_errf(e, SB_EUSAGE, "%s: expected 'key = value'", where);
                break;
            }
            *eq = '\0';
            rc = sb_plan_set(p, trim(l), trim(eq + 1), where, e);
        }
        line = next;
    }
    free(copy);
    return rc;
}

int sb_plan_read_file(sb_plan *p, const char *path, sb_err *e)
{
    char *text = NULL;
    int rc = sb_read_text_max(path, SB_PLAN_FILE_MAX, "plan file", &text, NULL, e);
    if (rc) return rc;
    rc = sb_plan_parse(p, text, path, e);
    free(text);
    return rc;
}

int sb_plan_finish(sb_plan *p, int cores, sb_err *e)
{
    if (!p->workload[0]) snprintf(p->workload, sizeof p->workload, "gemm");
    int gemm = !strcmp(p->workload, "gemm");
    if (!p->nkernels) {
        if (!strcmp(p->workload, "allreduce")) {
            p->kernels[p->nkernels++] = strdup("none");
        } else {
            for (int i = 0; i < sb_kernel_count(); i++) {
                const sb_kernel *k = sb_kernel_at(i);
                /* The trainer runs f32 and bf16 kernels only. */
                if (!gemm && k->dtype == SB_DT_INT8) continue;
                p->kernels[p->nkernels++] = strdup(k->name);
            }
        }
    }
    if (!p->nthreads) {
        if (cores < 1) cores = 1;
        for (int t = 1; t <= cores && p->nthreads < SB_PLAN_MAX; t++) p->threads[p->nthreads++] = t;
    }
    if (!p->nppn) p->ppn[p->nppn++] = 1;
    if (!p->nnodes) p->nodes[p->nnodes++] = 1;
    if (gemm && !p->nshapes) {
        static const sb_plan_shape defaults[] = {{1024, 1024, 1024, 'N', 'N'},
                                                 {3072, 768, 768, 'N', 'N'},
                                                 {3072, 3072, 768, 'N', 'N'},
                                                 {3072, 768, 3072, 'N', 'N'}};
        for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
            p->shapes[p->nshapes++] = defaults[i];
    }
    for (int i = 0; i < p->nshapes; i++)
        if (!p->shapes[i].transa) {
            p->shapes[i].transa = p->trans[0] ? p->trans[0] : 'N';
            p->shapes[i].transb = p->trans[0] ? p->trans[1] : 'N';
        }
    if (!gemm) p->nshapes = 0;
    for (int i = 0; i < p->nopts; i++) {
        const char *const *allowed = !strcmp(p->workload, "train") ? g_train_opts
                                     : !strcmp(p->workload, "allreduce") ? g_allreduce_opts
                                                                         : NULL;
        if (!allowed || !in_list(allowed, p->opt_keys[i]))
            return sb_errf(e, SB_EUSAGE, "option '%s' does not apply to workload %s",
                           p->opt_keys[i], p->workload);
    }
    if ((p->nproject_nodes || p->project_off) && strcmp(p->workload, "train"))
        return sb_errf(e, SB_EUSAGE, "project-nodes applies to workload train, not %s", p->workload);
    for (int i = 0; i < p->nnodes; i++)
        if (p->nodes[i] > 1 && !p->hostfile)
            return sb_errf(e, SB_EUSAGE, "nodes > 1 needs a hostfile (--hostfile)");
    long n = sb_plan_npoints(p);
    if (n > 100000) return sb_errf(e, SB_EUSAGE, "the plan expands to %ld points, too many", n);
    return SB_OK;
}

int sb_plan_npoints(const sb_plan *p)
{
    int shapes = p->nshapes ? p->nshapes : 1;
    return p->nkernels * shapes * p->nthreads * p->nppn * p->nnodes;
}

void sb_plan_point_at(const sb_plan *p, int i, sb_plan_point *pt)
{
    int shapes = p->nshapes ? p->nshapes : 1;
    pt->threads = p->threads[i % p->nthreads];
    i /= p->nthreads;
    pt->ppn = p->ppn[i % p->nppn];
    i /= p->nppn;
    pt->nodes = p->nodes[i % p->nnodes];
    i /= p->nnodes;
    pt->shape = p->nshapes ? &p->shapes[i % shapes] : NULL;
    i /= shapes;
    pt->kernel = p->kernels[i];
}

static void append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static void append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if ((size_t)n < *cap - *len) {
            *len += (size_t)n;
            return;
        }
        *cap = (*cap + (size_t)n) * 2;
        *buf = realloc(*buf, *cap);
    }
}

static void append_ints(char **b, size_t *l, size_t *c, const char *key, const int *v, int n)
{
    append(b, l, c, "%s = ", key);
    for (int i = 0; i < n; i++) append(b, l, c, "%s%d", i ? "," : "", v[i]);
    append(b, l, c, "\n");
}

char *sb_plan_render(const sb_plan *p)
{
    size_t cap = 1024, len = 0;
    char *b = malloc(cap);
    b[0] = '\0';
    append(&b, &len, &cap, "workload = %s\n", p->workload);
    if (p->label[0]) append(&b, &len, &cap, "label = %s\n", p->label);
    /* allreduce has no kernel axis: its placeholder kernel is not a plan value */
    if (strcmp(p->workload, "allreduce")) {
        append(&b, &len, &cap, "kernels = ");
        for (int i = 0; i < p->nkernels; i++)
            append(&b, &len, &cap, "%s%s", i ? "," : "", p->kernels[i]);
        append(&b, &len, &cap, "\n");
    }
    if (p->nshapes) {
        append(&b, &len, &cap, "shapes = ");
        for (int i = 0; i < p->nshapes; i++)
            append(&b, &len, &cap, "%s%dx%dx%d:%c%c", i ? "," : "", p->shapes[i].m,
                   p->shapes[i].n, p->shapes[i].k, p->shapes[i].transa, p->shapes[i].transb);
        append(&b, &len, &cap, "\n");
    }
    append_ints(&b, &len, &cap, "threads", p->threads, p->nthreads);
    append_ints(&b, &len, &cap, "ppn", p->ppn, p->nppn);
    append_ints(&b, &len, &cap, "nodes", p->nodes, p->nnodes);
    if (p->reps) append(&b, &len, &cap, "reps = %d\n", p->reps);
    if (p->prepack) append(&b, &len, &cap, "prepack = 1\n");
    if (p->min_seconds > 0) append(&b, &len, &cap, "min-seconds = %g\n", p->min_seconds);
    if (p->point_timeout > 0) append(&b, &len, &cap, "point-timeout = %g\n", p->point_timeout);
    if (p->hostfile) append(&b, &len, &cap, "hostfile = %s\n", p->hostfile);
    if (p->bind) append(&b, &len, &cap, "bind = %s\n", p->bind);
    if (p->mpirun_args) append(&b, &len, &cap, "mpirun-args = %s\n", p->mpirun_args);
    if (p->project_off) append(&b, &len, &cap, "project-nodes = none\n");
    else if (p->nproject_nodes)
        append_ints(&b, &len, &cap, "project-nodes", p->project_nodes, p->nproject_nodes);
    for (int i = 0; i < p->nopts; i++)
        append(&b, &len, &cap, "%s = %s\n", p->opt_keys[i], p->opt_values[i]);
    return b;
}
