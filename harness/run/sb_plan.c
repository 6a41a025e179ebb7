#include "sb_plan.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sb_parse.h"
#include "sb_shape.h"
#include "sb_model_dims.h"
#include "sb_io.h"
#include "sb_kernel.h"
#include "sb_db.h"
#include "sb_text.h"
#include "sb_workload.h"


/* A worker's options and their ranges are its workload's row (bench/
 * sb_workload): anything else is refused, so that a plan can never smuggle
 * arbitrary flags into a worker, and `batch = -1` is refused when the plan
 * is read, with the range the worker parses --batch with. */

/* "1", "yes", "true" turn a flag on (what the sweep passes on), "0", "no",
 * "false" leave it off; anything else is a typo. */
static int bool_value(const char *v)
{
    if (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "true")) return 1;
    if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false")) return 0;
    return -1;
}

/* "WHERE: MSG" for a value the parsers refused. Their messages start with
 * the key ("threads: ..."); given as a flag (WHERE is "--threads") that
 * would say it twice, so the flag replaces the key. */
static int value_error(sb_err *e, const char *where, const char *key, const char *msg,
                       const char *tail)
{
    size_t k = strlen(key);
    if (where[0] == '-' && where[1] == '-' && !strcmp(where + 2, key) && !strncmp(msg, key, k) &&
        msg[k] == ':')
        msg += k + 1;
    else if (where[0] == '-' && where[1] == '-' && !strncmp(msg, where, strlen(where)) &&
             msg[strlen(where)] == ':')
        msg += strlen(where) + 1; /* "--model: ..." from the model parser */
    while (*msg == ' ') msg++;
    return sb_errf(e, SB_EUSAGE, "%s: %s%s", where, msg, tail);
}

static int check_worker_value(const char *key, const char *value, const char *where, sb_err *e)
{
    const sb_wopt *o = sb_wopt_find(key);
    sb_err pe = {0};
    int rc = SB_OK;
    if (!o) return SB_OK;
    switch (o->kind) {
    case SB_WOPT_LONG: {
        long v;
        rc = sb_parse_long(value, (long)o->min, (long)o->max, key, &v, &pe);
        break;
    }
    case SB_WOPT_DOUBLE: {
        double v;
        rc = sb_parse_double(value, o->min, o->max, key, &v, &pe);
        break;
    }
    case SB_WOPT_BOOL:
        if (bool_value(value) < 0)
            return sb_errf(e, SB_EUSAGE, "%s: %s: '%.40s' is not 1/0, yes/no or true/false", where,
                           key, value);
        break;
    default: /* not empty: checked for every key; the rest by the option's own parser */
        if (o->check) rc = o->check(value, &pe);
        break;
    }
    if (rc) return value_error(e, where, key, pe.msg, "");
    return SB_OK;
}

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
    free(p->launcher);
    free(p->given_shapes);
    free(p->given_batch);
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
    sb_err le = {0};
    if (sb_check_list(value, "kernels", &le)) return value_error(e, where, "kernels", le.msg, "");
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

static int same_shape(const sb_shape *a, const sb_shape *b)
{
    return a->m == b->m && a->n == b->n && a->k == b->k && a->transa == b->transa &&
        a->transb == b->transb;
}

static int set_str(char **dst, const char *value);

/* Checks a shape list (each shape by bench/sb_shape, none twice) and keeps
 * it as given; sb_plan_finish makes it the GEMM row's axis. */
static int set_shapes(sb_plan *p, const char *value, const char *where, sb_err *e)
{
    sb_err le = {0};
    /* empty items here; duplicates below, once each shape is parsed
     * ("8x8x8" and "8X8X8" are one shape) */
    if (sb_check_list(value, "shapes", &le) && strstr(le.msg, "empty"))
        return value_error(e, where, "shapes", le.msg, "");
    sb_shape seen[SB_PLAN_MAX];
    int n = 0;
    char *copy = strdup(value), *save = NULL;
    int rc = SB_OK;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        t = trim(t);
        /* MxNxK or MxNxK:TRANS; transpose 0: the plan's `trans` */
        char *colon = strchr(t, ':');
        sb_shape s;
        sb_err pe = {0};
        if (sb_shape_parse(t, 0, &s, &pe)) {
            rc = sb_errf(e, SB_EUSAGE, "%s: %s", where, pe.msg);
            break;
        }
        if (colon) *colon = '\0'; /* the dimensions, for the message below */
        if (n == SB_PLAN_MAX) {
            rc = sb_errf(e, SB_EUSAGE, "%s: too many shapes", where);
            break;
        }
        for (int i = 0; i < n && !rc; i++)
            if (same_shape(&seen[i], &s))
                rc = sb_errf(e, SB_EUSAGE, "%s%s: '%.60s%s%.4s' is listed twice", where,
                             strcmp(where, "--shapes") ? ": shapes" : "", t, s.transa ? ":" : "",
                             s.transa ? colon + 1 : "");
        if (rc) break;
        seen[n++] = s;
    }
    free(copy);
    if (!rc && !n) rc = sb_errf(e, SB_EUSAGE, "%s: empty shape list", where);
    return rc ? rc : set_str(&p->given_shapes, value);
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
    /* An empty value is never a default: `init =` would mean "/", `threads =`
     * nothing at all. Leave the key out for the default. */
    if (!*value) {
        if (where[0] == '-' && !strcmp(where + 2, key))
            return sb_errf(e, SB_EUSAGE, "%s: empty value", where);
        return sb_errf(e, SB_EUSAGE, "%s: '%s' has no value", where, key);
    }
    if (!strcmp(key, "workload")) {
        const sb_workload *w = sb_workload_find(value);
        if (!sb_wl_is(w, SB_WL_PLAN)) {
            char names[200];
            sb_workload_plan_names(names, sizeof names);
            return sb_errf(e, SB_EUSAGE, "%s: unknown workload '%.60s' (%s)", where, value, names);
        }
        p->wl = w;
        return SB_OK;
    }
    if (!strcmp(key, "label")) {
        /* the store's rule, checked where the label enters: refused, never cut */
        char what[1100];
        snprintf(what, sizeof what, "%s%s", where, where[0] == '-' ? "" : ": label");
        int rc = sb_text_check(value, SB_DB_MAX_NAME, what, e);
        if (rc) return rc;
        snprintf(p->label, sizeof p->label, "%s", value);
        return SB_OK;
    }
    if (!strcmp(key, "kernels")) return set_kernels(p, value, where, e);
    if (!strcmp(key, "shapes")) return set_shapes(p, value, where, e);
    if (!strcmp(key, "threads") || !strcmp(key, "ppn") || !strcmp(key, "nodes")) {
        int *dst = !strcmp(key, "threads") ? p->threads : !strcmp(key, "ppn") ? p->ppn : p->nodes;
        int *cnt = !strcmp(key, "threads") ? &p->nthreads
            : !strcmp(key, "ppn")          ? &p->nppn
                                           : &p->nnodes;
        if (sb_parse_int_list(value, 1, 4096, key, dst, SB_PLAN_MAX, &n, &pe))
            return value_error(e, where, key, pe.msg, "");
        *cnt = n;
        return SB_OK;
    }
    if (!strcmp(key, "batch")) {
        /* a list: each batch its own point; the range is the worker's */
        const sb_wopt *o = sb_wopt_find(key);
        int batches[SB_PLAN_MAX];
        if (sb_parse_int_list(value, (long)o->min, (long)o->max, key, batches, SB_PLAN_MAX, &n,
                              &pe))
            return value_error(e, where, key, pe.msg, "");
        return set_str(&p->given_batch, value);
    }
    if (!strcmp(key, "project-nodes")) {
        p->nproject_nodes = 0;
        p->project_off = !strcmp(value, "0") || !strcmp(value, "none");
        if (p->project_off) return SB_OK;
        if (sb_parse_int_list(value, 1, 1 << 20, key, p->project_nodes, SB_PLAN_MAX, &n, &pe))
            return value_error(e, where, key, pe.msg,
                               strstr(pe.msg, "twice") ? "" : " (or 0 / none: no projection)");
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
            return value_error(e, where, key, pe.msg, "");
        p->reps = (int)v;
        return SB_OK;
    }
    if (!strcmp(key, "prepack")) {
        long v;
        if (sb_parse_long(value, 0, 1, "prepack", &v, &pe))
            return value_error(e, where, key, pe.msg, "");
        p->prepack = (int)v;
        return SB_OK;
    }
    if (!strcmp(key, "min-seconds") || !strcmp(key, "point-timeout")) {
        double v;
        if (sb_parse_double(value, 0.001, 7 * 86400.0, key, &v, &pe))
            return value_error(e, where, key, pe.msg, "");
        if (!strcmp(key, "min-seconds"))
            p->min_seconds = v;
        else
            p->point_timeout = v;
        return SB_OK;
    }
    if (!strcmp(key, "hostfile")) return set_str(&p->hostfile, value);
    if (!strcmp(key, "mpirun-args")) return set_str(&p->mpirun_args, value);
    if (!strcmp(key, "launcher")) {
        if (strcmp(value, "mpirun") && strcmp(value, "slurm"))
            return sb_errf(e, SB_EUSAGE, "%s: launcher '%.20s' is not mpirun or slurm", where,
                           value);
        return set_str(&p->launcher, value);
    }
    if (!strcmp(key, "bind")) {
        if (strcmp(value, "core") && strcmp(value, "socket") && strcmp(value, "none"))
            return sb_errf(e, SB_EUSAGE, "%s: bind '%.20s' is not core, socket or none", where,
                           value);
        return set_str(&p->bind, value);
    }
    if (sb_wopt_known(key)) {
        int rc = check_worker_value(key, value, where, e);
        if (rc) return rc;
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
    char *copy = strdup(text);
    if (!copy) return sb_errf(e, SB_EFAIL, "out of memory");
    int lineno = 0, rc = SB_OK;
    /* Every key once: a second `threads =` further down would silently win
     * over the first, and the plan would not run what its reader sees. */
    struct {
        char key[64];
        int line;
    } seen[128];
    int nseen = 0;
    /* strtok_r would merge blank lines and lose numbering; walk by hand. */
    char *line = copy;
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
            const char *key = trim(l);
            for (int i = 0; i < nseen; i++)
                if (!strcmp(seen[i].key, key)) {
                    rc = sb_errf(e, SB_EUSAGE, "%s: key '%.60s' given twice (first on line %d)",
                                 where, key, seen[i].line);
                    break;
                }
            if (rc) break;
            rc = sb_plan_set(p, key, trim(eq + 1), where, e);
            /* a key sb_plan_set accepted is short and known: the table cannot overflow */
            if (!rc && nseen < (int)(sizeof seen / sizeof seen[0])) {
                snprintf(seen[nseen].key, sizeof seen[nseen].key, "%s", key);
                seen[nseen++].line = lineno;
            }
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

/* The GEMM row's axis: the given shapes, each with its transposes (the
 * plan's `trans`, else NN, where it gave none), or the default: a square,
 * then DistilBERT's linear layers at 8 sequences of 384. */
static void shapes_axis(sb_plan *p)
{
    sb_shape v[SB_PLAN_MAX];
    int n = 0;
    if (!p->given_shapes) {
        v[n++] = (sb_shape){1024, 1024, 1024, 'N', 'N', 0, 0};
        n += sb_model_linear_shapes(8, 384, v + n);
        for (int i = 1; i < n; i++) v[i].transa = v[i].transb = 'N';
    } else {
        char *copy = strdup(p->given_shapes), *save = NULL;
        for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && n < SB_PLAN_MAX;
             t = strtok_r(NULL, ",", &save)) {
            sb_err pe = {0};
            if (sb_shape_parse(trim(t), 0, &v[n], &pe)) continue; /* checked when set */
            if (!v[n].transa) {
                v[n].transa = p->trans[0] ? p->trans[0] : 'N';
                v[n].transb = p->trans[0] ? p->trans[1] : 'N';
            }
            n++;
        }
        free(copy);
    }
    for (int i = 0; i < n; i++) sb_shape_format(&v[i], p->axis[i], sizeof p->axis[i]);
    p->naxis = n;
    p->axis_key = "shapes";
}

/* A batched row's axis: the given batches, or the row's default (none: no
 * axis, the worker's own default). */
static void batch_axis(sb_plan *p, int default_batch)
{
    const sb_wopt *o = sb_wopt_find("batch");
    int v[SB_PLAN_MAX], n = 0;
    sb_err pe = {0};
    if (p->given_batch &&
        sb_parse_int_list(p->given_batch, (long)o->min, (long)o->max, "batch", v, SB_PLAN_MAX, &n,
                          &pe))
        n = 0; /* checked when set */
    if (!p->given_batch && default_batch > 0) v[n++] = default_batch;
    for (int i = 0; i < n; i++) snprintf(p->axis[i], sizeof p->axis[i], "%d", v[i]);
    p->naxis = n;
    p->axis_key = n ? "batch" : NULL;
}

/* The worker's own cross-checks (its row's), made here so no point fails on
 * them: the plan's options, and a batch axis as the largest of its values
 * (the worker's default where none is given), the one a size limit meets. */
static int row_check(const sb_plan *p, const sb_workload *w, sb_err *e)
{
    if (!w->check) return SB_OK;
    const char *keys[SB_PLAN_MAX + 1], *values[SB_PLAN_MAX + 1];
    int n = 0, maxb = w->default_batch;
    for (; n < p->nopts; n++) {
        keys[n] = p->opt_keys[n];
        values[n] = p->opt_values[n];
    }
    for (int i = 0; sb_wl_axis_in_series(w) && i < p->naxis; i++)
        if (i == 0 || atoi(p->axis[i]) > maxb) maxb = atoi(p->axis[i]);
    char batch[16];
    if (maxb > 0 && w->axis) {
        snprintf(batch, sizeof batch, "%d", maxb);
        keys[n] = w->axis;
        values[n++] = batch;
    }
    return w->check(keys, values, n, e);
}

int sb_plan_finish(sb_plan *p, int cores, sb_err *e)
{
    if (!p->wl) p->wl = sb_workload_default();
    const sb_workload *w = p->wl;
    int gemm = (w->flags & SB_WL_SHAPES) != 0;
    if (!(w->flags & SB_WL_KERNEL) && p->nkernels)
        return sb_errf(e, SB_EUSAGE, "workload %s has no kernels: give no kernels", w->name);
    if (!p->nkernels) {
        if (!(w->flags & SB_WL_KERNEL)) {
            p->kernels[p->nkernels++] = strdup("none");
        } else {
            for (int i = 0; i < sb_kernel_count(); i++) {
                const sb_kernel *k = sb_kernel_at(i);
                /* The trainer runs f32 and bf16 kernels only (infer: every kernel). */
                if (k->dtype == SB_DT_INT8 && !(w->flags & SB_WL_INT8)) continue;
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
    /* what only GEMM points take, given to another workload, is refused:
     * ignored, it would run something else than the plan says */
    if (!gemm) {
        const char *given = p->given_shapes  ? "shapes"
                          : p->trans[0]       ? "trans"
                          : p->reps           ? "reps"
                          : p->min_seconds > 0 ? "min-seconds"
                          : p->prepack        ? "prepack"
                                              : NULL;
        if (given)
            return sb_errf(e, SB_EUSAGE, "option '%s' does not apply to workload %s (GEMM only)",
                           given, w->name);
    }
    p->naxis = 0;
    p->axis_key = NULL;
    if (gemm) {
        shapes_axis(p);
        /* given shapes were checked when set: none read now is a copy that failed */
        if (p->given_shapes && p->naxis == 0)
            return sb_errf(e, SB_EFAIL, "shapes: out of memory");
    } else if (w->flags & SB_WL_BATCH) /* a default batch is part of its points' names (infer) */
        batch_axis(p, w->default_batch);
    /* "8x8x8" with trans NT and "8x8x8:NT" are one point */
    for (int i = 0; gemm && i < p->naxis; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(p->axis[i], p->axis[j]))
                return sb_errf(e, SB_EUSAGE, "shapes: %s is listed twice (once through trans)",
                               p->axis[i]);
    int rc = row_check(p, w, e);
    if (rc) return rc;
    for (int i = 0; i < p->nopts; i++) {
        if (!in_list(w->opts, p->opt_keys[i]))
            return sb_errf(e, SB_EUSAGE, "option '%s' does not apply to workload %s",
                           p->opt_keys[i], w->name);
    }
    /* an int8-only option (infer's attention int8) with no int8 kernel in
     * the plan would reach no point */
    for (int i = 0; w->int8_extra && i < p->nopts; i++) {
        if (strcmp(p->opt_keys[i], w->int8_extra) ||
            (w->int8_extra_default && !strcmp(p->opt_values[i], w->int8_extra_default)))
            continue;
        int int8 = 0;
        for (int k = 0; k < p->nkernels && !int8; k++) {
            const sb_kernel *kk = sb_kernel_find(p->kernels[k]);
            int8 = kk && kk->dtype == SB_DT_INT8;
        }
        if (!int8)
            return sb_errf(e, SB_EUSAGE,
                           "%s %s applies to int8 kernels only, and the plan has none: add one"
                           " (e.g. vnni-int8) or leave it out",
                           w->int8_extra, p->opt_values[i]);
    }
    if (p->given_batch && !(w->flags & SB_WL_BATCH))
        return sb_errf(e, SB_EUSAGE, "option 'batch' does not apply to workload %s", w->name);
    const sb_workload *projected = sb_workload_flagged(SB_WL_PROJECT);
    if ((p->nproject_nodes || p->project_off) && !(w->flags & SB_WL_PROJECT))
        return sb_errf(e, SB_EUSAGE, "project-nodes applies to workload %s, not %s",
                       projected ? projected->name : "(none)", w->name);
    int maxn, maxp, maxt;
    sb_plan_max_dims(p, &maxn, &maxp, &maxt);
    if ((w->flags & SB_WL_ONE_RANK) && (maxn > 1 || maxp > 1))
        return sb_errf(e, SB_EUSAGE, "workload %s runs as one process: ppn and nodes must be 1",
                       w->name);
    /* under Slurm the nodes are the allocation's */
    int slurm = p->launcher && !strcmp(p->launcher, "slurm");
    if (slurm && p->hostfile)
        return sb_errf(e, SB_EUSAGE,
                       "launcher slurm takes its nodes from the allocation: give no"
                       " hostfile");
    /* mpirun's options, where no point runs under mpirun, would be dropped */
    const char *launch_opt = p->bind ? "bind" : p->mpirun_args ? "mpirun-args" : NULL;
    if (launch_opt && maxn <= 1 && maxp <= 1 && !p->hostfile && !slurm) {
        if (w->flags & SB_WL_ONE_RANK)
            return sb_errf(e, SB_EUSAGE,
                           "%s does not apply to workload %s: it runs as one process, not under"
                           " mpirun (unless a hostfile or launcher slurm is given)",
                           launch_opt, w->name);
        return sb_errf(e, SB_EUSAGE,
                       "%s applies to points run under mpirun, and this plan has none (ppn and"
                       " nodes 1, no hostfile, no launcher slurm)",
                       launch_opt);
    }
    for (int i = 0; i < p->nnodes; i++)
        if (p->nodes[i] > 1 && !p->hostfile && !slurm)
            return sb_errf(e, SB_EUSAGE,
                           "nodes > 1 needs a hostfile (--hostfile) or a Slurm"
                           " allocation (--launcher slurm)");
    long n = sb_plan_npoints(p);
    if (n > 100000) return sb_errf(e, SB_EUSAGE, "the plan expands to %ld points, too many", n);
    return SB_OK;
}

int sb_plan_check_inputs(const sb_plan *p, sb_err *e)
{
    for (int i = 0; i < p->nopts; i++) {
        const sb_wopt *o = sb_wopt_find(p->opt_keys[i]);
        if (!o || o->kind != SB_WOPT_PATH) continue;
        const char *v = p->opt_values[i];
        int want_dir = !strcmp(o->key, "init"); /* a Hugging Face model directory */
        struct stat st;
        if (stat(v, &st) != 0)
            return sb_errf(e, SB_EUSAGE, "%s: cannot read (%s): %s", v, o->key, strerror(errno));
        if (want_dir && !S_ISDIR(st.st_mode))
            return sb_errf(e, SB_EUSAGE, "%s: cannot read (%s): not a directory", v, o->key);
        if (!want_dir && S_ISDIR(st.st_mode))
            return sb_errf(e, SB_EUSAGE, "%s: cannot read (%s): is a directory", v, o->key);
        if (access(v, R_OK) != 0)
            return sb_errf(e, SB_EUSAGE, "%s: cannot read (%s): %s", v, o->key, strerror(errno));
    }
    return SB_OK;
}

int sb_plan_npoints(const sb_plan *p)
{
    return p->nkernels * (p->naxis ? p->naxis : 1) * p->nthreads * p->nppn * p->nnodes;
}

void sb_plan_point_at(const sb_plan *p, int i, sb_plan_point *pt)
{
    pt->threads = p->threads[i % p->nthreads];
    i /= p->nthreads;
    pt->ppn = p->ppn[i % p->nppn];
    i /= p->nppn;
    pt->nodes = p->nodes[i % p->nnodes];
    i /= p->nnodes;
    pt->axis = p->naxis ? p->axis[i % p->naxis] : NULL;
    i /= p->naxis ? p->naxis : 1;
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
    append(&b, &len, &cap, "workload = %s\n", p->wl ? p->wl->name : sb_workload_default()->name);
    if (p->label[0]) append(&b, &len, &cap, "label = %s\n", p->label);
    /* allreduce has no kernel axis: its placeholder kernel is not a plan value */
    if (sb_wl_is(p->wl, SB_WL_KERNEL)) {
        append(&b, &len, &cap, "kernels = ");
        for (int i = 0; i < p->nkernels; i++)
            append(&b, &len, &cap, "%s%s", i ? "," : "", p->kernels[i]);
        append(&b, &len, &cap, "\n");
    }
    if (p->naxis) {
        append(&b, &len, &cap, "%s = ", p->axis_key);
        for (int i = 0; i < p->naxis; i++) append(&b, &len, &cap, "%s%s", i ? "," : "", p->axis[i]);
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
    if (p->launcher) append(&b, &len, &cap, "launcher = %s\n", p->launcher);
    if (p->project_off)
        append(&b, &len, &cap, "project-nodes = none\n");
    else if (p->nproject_nodes)
        append_ints(&b, &len, &cap, "project-nodes", p->project_nodes, p->nproject_nodes);
    for (int i = 0; i < p->nopts; i++)
        append(&b, &len, &cap, "%s = %s\n", p->opt_keys[i], p->opt_values[i]);
    return b;
}

static int list_max(const int *v, int n)
{
    int m = 1;
    for (int i = 0; i < n; i++)
        if (v[i] > m) m = v[i];
    return m;
}

void sb_plan_max_dims(const sb_plan *p, int *nodes, int *ppn, int *threads)
{
    *nodes = list_max(p->nodes, p->nnodes);
    *ppn = list_max(p->ppn, p->nppn);
    *threads = list_max(p->threads, p->nthreads);
}

/* The plan's own keys that take a value on the command line (long option =
 * key); the workloads' options follow from their rows (sb_workload). */
static const char *const g_value_keys[] = {
    "workload", "kernels", "threads",     "shapes",    "trans",         "reps",
    "min-seconds", "prepack", "ppn",      "nodes",     "hostfile",      "bind",
    "mpirun-args", "point-timeout", "label", "project-nodes", "launcher", NULL};

int sb_plan_cli_keys(const char **keys, int *nvalue)
{
    int n = 0;
    for (int i = 0; g_value_keys[i]; i++) keys[n++] = g_value_keys[i];
    for (int pass = 0; pass < 2; pass++) { /* values first, flags after */
        if (pass == 1) *nvalue = n;
        for (int i = 0; i < sb_workload_count(); i++)
            for (const char *const *o = sb_workload_at(i)->opts; *o && n < SB_PLAN_CLI_KEYS; o++) {
                const sb_wopt *w = sb_wopt_find(*o);
                int flag = w && w->kind == SB_WOPT_BOOL, seen = 0;
                for (int k = 0; k < n; k++) seen |= !strcmp(keys[k], *o);
                if (!seen && flag == pass) keys[n++] = *o;
            }
    }
    return n;
}

void sb_plan_workload_help(FILE *f)
{
    for (int i = 0; i < sb_workload_count(); i++) {
        const sb_workload *w = sb_workload_at(i);
        if (!(w->flags & SB_WL_PLAN) || !w->opts[0]) continue;
        int col = fprintf(f, "  %-9s", w->name);
        for (const char *const *o = w->opts; *o; o++) {
            if (col + (int)strlen(*o) + 4 > 80)
                col = fprintf(f, "\n           ") - 1;
            col += fprintf(f, " --%s%s", *o, o[1] ? "," : "");
        }
        fputc('\n', f);
    }
}
