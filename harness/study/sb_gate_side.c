#include "sb_gate_side.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sb_stats.h"

static int is_sqlite_file(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char magic[16] = {0};
    size_t n = fread(magic, 1, sizeof magic, f);
    fclose(f);
    return n == 16 && !memcmp(magic, "SQLite format 3", 16);
}

int sb_gate_side_load(const char *spec, const char *dbpath, sb_db **shared, sb_gate_side *s,
                      sb_err *e)
{
    memset(s, 0, sizeof *s);
    struct stat sb;
    if (!realpath(stat(spec, &sb) == 0 && S_ISREG(sb.st_mode) ? spec : dbpath, s->file))
        s->file[0] = '\0';
    if (stat(spec, &sb) == 0 && S_ISREG(sb.st_mode)) {
        if (!is_sqlite_file(spec))
            return sb_errf(e, SB_EUSAGE, "%s: is not a SQLite database", spec);
        sb_db *db;
        int rc = sb_db_open_readonly(spec, &db, e);
        if (rc) return rc;
        rc = sb_ptset_load(db, 0, 0, &s->set, e);
        if (!rc) rc = sb_envmap_load(db, &s->set, &s->env, e);
        sb_db_close(db);
        snprintf(s->what, sizeof s->what, "database %s", spec);
        return rc;
    }
    if (!*shared) {
        if (access(dbpath, F_OK) != 0)
            return sb_errf(e, SB_EUSAGE,
                           "'%s' is not a file, and there is no database %s to look"
                           " it up in (--db)",
                           spec, dbpath);
        int rc = sb_db_open_readonly(dbpath, shared, e);
        if (rc) return rc;
    }
    sb_selection sel;
    int rc = sb_select_resolve(*shared, spec, &sel, e);
    if (rc) return rc;
    snprintf(s->what, sizeof s->what, "%s", sel.label);
    rc = sb_ptset_load_sel(*shared, &sel, &s->set, e);
    if (!rc) rc = sb_envmap_load(*shared, &s->set, &s->env, e);
    return rc;
}

void sb_gate_side_free(sb_gate_side *s)
{
    sb_ptset_free(&s->set);
    sb_envmap_free(&s->env);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The uuids (of the points, or of their sweeps when sweeps is set) of s,
 * sorted, without "" and without repeats: *n of them. NULL when out of
 * memory. */
static const char **uuids(const sb_ptset *s, int sweeps, int *n)
{
    const char **u = malloc(sizeof *u * (size_t)(s->n + 1));
    *n = 0;
    if (!u) return NULL;
    for (int i = 0; i < s->n; i++) {
        const char *id = sweeps ? s->p[i].sweep_uuid : s->p[i].uuid;
        if (*id) u[(*n)++] = id;
    }
    qsort(u, (size_t)*n, sizeof *u, cmp_str);
    int w = 0;
    for (int i = 0; i < *n; i++)
        if (!w || strcmp(u[w - 1], u[i])) u[w++] = u[i];
    *n = w;
    return u;
}

/* A uuid both sides hold (points, or sweeps when sweeps is set), copied to
 * out: 1; none: 0; out of memory: -1. Content, not file names: a copy or a
 * hard link of a database, or a database file that holds the candidate's
 * sweep, shares its uuids with the candidate whatever it is called. */
static int shared_uuid(const sb_ptset *a, const sb_ptset *b, int sweeps, char out[33])
{
    int na, nb, found = 0;
    const char **ua = uuids(a, sweeps, &na), **ub = uuids(b, sweeps, &nb);
    if (!ua || !ub) found = -1;
    for (int i = 0, j = 0; found == 0 && i < na && j < nb;) {
        int c = strcmp(ua[i], ub[j]);
        if (!c) {
            snprintf(out, 33, "%s", ua[i]);
            found = 1;
        } else if (c < 0) {
            i++;
        } else {
            j++;
        }
    }
    free(ua);
    free(ub);
    return found;
}

static int has_fingerprint(const sb_ptset *s, const char *fp)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->p[i].fingerprint, fp)) return 1;
    return 0;
}

/* Every sample of s (a paired point's both sides too) is seconds a clock
 * can measure (sb_sample_seconds_ok): a database edited or written by
 * another program may hold 0, a negative, a denormal or an infinite value,
 * which an import refuses and which would turn a ratio into 0 ("100 %
 * faster"), inf or nan. SB_EUSAGE naming the point and its sweep. */
static int side_samples_ok(const sb_gate_side *s, const char *role, sb_err *e)
{
    for (int i = 0; i < s->set.n; i++) {
        const sb_pt *p = &s->set.p[i];
        for (int k = 0; k < p->nsamples + p->npaired; k++) {
            double x = k < p->nsamples ? p->samples[k] : p->paired[k - p->nsamples];
            if (sb_sample_seconds_ok(x)) continue;
            char label[300];
            sb_pt_label(p, label, sizeof label);
            return sb_errf(e, SB_EUSAGE,
                           "%s %s: point %lld (%.8s of sweep %.8s: %s %s) has a sample of %g s:"
                           " samples are seconds in [%g, %g]; run the point again",
                           role, s->what, (long long)p->id, p->uuid, p->sweep_uuid, p->workload,
                           label, x, SB_SAMPLE_MIN_S, SB_SAMPLE_MAX_S);
        }
    }
    return SB_OK;
}

int sb_gate_sides_check(const sb_gate_side *base, const sb_gate_side *cand, const sb_gate_opts *o,
                        sb_err *e)
{
    if (cand->set.n == 0) return sb_errf(e, SB_EUSAGE, "candidate %s has no points", cand->what);
    int rc = side_samples_ok(cand, "candidate", e);
    if (rc || !base) return rc;
    if (base->set.n == 0) return sb_errf(e, SB_EUSAGE, "baseline %s has no points", base->what);
    if ((rc = side_samples_ok(base, "baseline", e))) return rc;
    char uuid[33];
    for (int sweeps = 1; sweeps >= 0; sweeps--) {
        int found = shared_uuid(&base->set, &cand->set, sweeps, uuid);
        if (found < 0) return sb_errf(e, SB_EFAIL, "out of memory");
        if (found)
            return sb_errf(e, SB_EUSAGE,
                           "the baseline (%s) holds the candidate's %s %.8s (%s): a run gated"
                           " against itself passes whatever it measured; name two runs",
                           base->what, sweeps ? "sweep" : "point", uuid,
                           sweeps ? "the same sweep uuid on both sides"
                                  : "the same point uuid on both sides");
    }
    if (o->cross_machine) return SB_OK;
    for (int i = 0; i < cand->set.n; i++)
        if (has_fingerprint(&base->set, cand->set.p[i].fingerprint)) return SB_OK;
    return sb_errf(e, SB_EUSAGE,
                   "the candidate (%s) ran on machine %.16s, the baseline (%s) never did (it"
                   " ran on %.16s): to compare two machines, add --cross-machine",
                   cand->what, cand->set.p[0].fingerprint, base->what,
                   base->set.n ? base->set.p[0].fingerprint : "none");
}
