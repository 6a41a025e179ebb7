/* sb_tune_use: how the commands find and use this machine's tuned blocking
 * (bench/tune/sb_tune_file). The file: --tune-file when a command is given
 * one, else $SPRBENCH_TUNE_FILE when set and not empty, else
 * tune-<fingerprint>.json beside the default database (sb_default_db).
 *
 * Workers (gemm, train, infer) use it by default: its entries go into the
 * driver's table before any GEMM runs, and the result's config records
 * "tuning" (where the blocking came from) and "blocking" (what ran). The
 * file a command finds itself (beside the database, or $SPRBENCH_TUNE_FILE,
 * which a sweep sets for its points) may be absent: not tuned. When it
 * cannot be used (not JSON, a bad entry, another machine's) it is one
 * warning line on stderr and the built-in blocking, so a damaged file never
 * stops a sweep. A file named with --tune-file is what the user asked for:
 * missing or unusable, it is refused (exit 2), as `sprbench tune` refuses
 * a damaged one. */
#ifndef SB_TUNE_USE_H
#define SB_TUNE_USE_H
#include <stddef.h>
#include "sb_err.h"
#include "sb_tune_file.h"

/* The tune file path (see above) into out. */
int sb_tune_use_path(const char *given, char *out, size_t len, sb_err *e);

typedef struct sb_tune_use {
    char path[1024];
    char tuning[320]; /* "tuned", "default (--no-tune)", "default (not tuned)",
                         "default (tune file ignored: WHY)", "explicit (--blocking)" */
    int tuned;        /* the table holds this machine's entries */
    sb_tune_table table;
} sb_tune_use;

/* For a worker: unless no_tune, loads the tune file and puts every entry in
 * the driver's table. A bad file found by default warns on stderr as
 * "sprbench CMD: warning: ..." and leaves the built-in blocking (SB_OK); a
 * tune_file named (not NULL or empty) that is missing or bad is SB_EUSAGE
 * in *e saying why, with the built-in blocking left. */
int sb_tune_use_load(const char *cmd, const char *tune_file, int no_tune, sb_tune_use *t, sb_err *e);
void sb_tune_use_free(sb_tune_use *t);

/* ---- a sweep's workers (sprbench sweep) ---- */
/* Unless $SPRBENCH_TUNE_FILE names a file, sets it to this machine's tune
 * file beside db_path, so that the workers a sweep starts use the tuned
 * blocking beside the sweep's database, not beside the default one. */
void sb_tune_use_beside(const char *db_path);

#endif
