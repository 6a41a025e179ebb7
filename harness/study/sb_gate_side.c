#include "sb_gate_side.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    rc = sb_ptset_load(*shared, sel.sweep_id ? 0 : sel.machine_id, sel.sweep_id, &s->set, e);
    if (!rc) rc = sb_envmap_load(*shared, &s->set, &s->env, e);
    return rc;
}

void sb_gate_side_free(sb_gate_side *s)
{
    sb_ptset_free(&s->set);
    sb_envmap_free(&s->env);
}

static int same_points(const sb_ptset *a, const sb_ptset *b)
{
    if (a->n != b->n) return 0;
    for (int i = 0; i < a->n; i++) /* both ordered by id */
        if (a->p[i].id != b->p[i].id) return 0;
    return 1;
}

static int has_fingerprint(const sb_ptset *s, const char *fp)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->p[i].fingerprint, fp)) return 1;
    return 0;
}

int sb_gate_sides_check(const sb_gate_side *base, const sb_gate_side *cand, const sb_gate_opts *o,
                        sb_err *e)
{
    if (cand->set.n == 0) return sb_errf(e, SB_EUSAGE, "candidate %s has no points", cand->what);
    if (!base) return SB_OK;
    if (base->set.n == 0) return sb_errf(e, SB_EUSAGE, "baseline %s has no points", base->what);
    if (base->file[0] && !strcmp(base->file, cand->file) && same_points(&base->set, &cand->set))
        return sb_errf(e, SB_EUSAGE,
                       "the baseline (%s) and the candidate (%s) are the same %d point(s): a run"
                       " gated against itself passes whatever it measured; name two runs",
                       base->what, cand->what, cand->set.n);
    if (o->cross_machine) return SB_OK;
    for (int i = 0; i < cand->set.n; i++)
        if (has_fingerprint(&base->set, cand->set.p[i].fingerprint)) return SB_OK;
    return sb_errf(e, SB_EUSAGE,
                   "the candidate (%s) ran on machine %.16s, the baseline (%s) never did (it"
                   " ran on %.16s): to compare two machines, add --cross-machine",
                   cand->what, cand->set.p[0].fingerprint, base->what,
                   base->set.n ? base->set.p[0].fingerprint : "none");
}
