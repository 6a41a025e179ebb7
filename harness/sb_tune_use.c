#include "sb_tune_use.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_cli.h"
#include "sb_sysinfo.h"
#include "sb_text.h"

int sb_tune_use_path(const char *given, char *out, size_t len, sb_err *e)
{
    const char *env = getenv("SPRBENCH_TUNE_FILE");
    const char *p = given && *given ? given : env && *env ? env : NULL;
    if (p) {
        if (strlen(p) >= len) return sb_errf(e, SB_EUSAGE, "tune file path too long");
        snprintf(out, len, "%s", p);
        return SB_OK;
    }
    const sb_sysinfo *si = sb_sysinfo_cached();
    if (!si) return sb_errf(e, SB_EFAIL, "cannot read this machine's fingerprint");
    return sb_tune_path(sb_default_db(), si->fingerprint, out, len, e);
}

int sb_tune_use_load(const char *cmd, const char *tune_file, int no_tune, sb_tune_use *t, sb_err *ue)
{
    memset(t, 0, sizeof *t);
    if (no_tune) {
        snprintf(t->tuning, sizeof t->tuning, "default (--no-tune)");
        return SB_OK;
    }
    sb_err e = {0};
    const sb_sysinfo *si = sb_sysinfo_cached();
    int exists = 0, named = tune_file && *tune_file;
    int rc = sb_tune_use_path(tune_file, t->path, sizeof t->path, &e);
    if (!rc) rc = sb_tune_load(t->path, si ? si->fingerprint : NULL, &t->table, &exists, &e);
    if (!rc && exists) rc = sb_tune_apply(&t->table, NULL, &e);
    /* a file the user named and cannot have: said, not run without it */
    if (named && !rc && !exists)
        rc = sb_errf(&e, SB_EUSAGE, "--tune-file %.300s: no such file", t->path);
    if (rc && named) {
        sb_blocking_clear();
        sb_tune_free(&t->table);
        return sb_errf(ue, SB_EUSAGE, "%s", e.msg);
    }
    if (rc) {
        char line[sizeof e.msg];
        snprintf(line, sizeof line, "%s", e.msg);
        sb_text_one_line(line);
        fprintf(stderr, "sprbench %s: warning: %s; running with the built-in blocking\n", cmd,
                line);
        snprintf(t->tuning, sizeof t->tuning, "default (tune file ignored: %.280s)", line);
        sb_blocking_clear();
        sb_tune_free(&t->table);
        return SB_OK;
    }
    if (!exists || t->table.n == 0) {
        snprintf(t->tuning, sizeof t->tuning, "default (not tuned)");
        return SB_OK;
    }
    t->tuned = 1;
    snprintf(t->tuning, sizeof t->tuning, "tuned");
    return SB_OK;
}

void sb_tune_use_free(sb_tune_use *t) { sb_tune_free(&t->table); }

void sb_tune_use_beside(const char *db_path)
{
    const char *tf = getenv("SPRBENCH_TUNE_FILE");
    const sb_sysinfo *si = sb_sysinfo_cached();
    char path[1024];
    sb_err e = {0};
    if ((!tf || !*tf) && si && !sb_tune_path(db_path, si->fingerprint, path, sizeof path, &e))
        setenv("SPRBENCH_TUNE_FILE", path, 1);
}
