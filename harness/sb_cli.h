/* sb_cli: what every subcommand shares: error reporting (one line on stderr,
 * the exit code), number and list parsing with range checks, the version,
 * and a progress bar that only draws on a terminal. */
#ifndef SB_CLI_H
#define SB_CLI_H
#include <stdio.h>
#include "sb_err.h"

const char *sb_version(void);

/* Prints "sprbench CMD: MSG" on stderr and returns the exit code (1, 2 or 3).
 * Both print exactly one line whatever the message holds (sb_cli_one_line). */
int sb_cli_report(const char *cmd, const sb_err *e);
/* Prints "sprbench CMD: <formatted>" on stderr and returns 2. */
int sb_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Makes msg one printable line in place: tab -> space, other C0 controls,
 * DEL and C1 controls (U+0080..U+009F) -> '?'. */
void sb_cli_one_line(char *msg);

/* Parses a whole decimal integer in [min, max]; SB_EUSAGE naming `what` otherwise. */
int sb_parse_long(const char *s, long min, long max, const char *what, long *out, sb_err *e);
int sb_parse_double(const char *s, double min, double max, const char *what, double *out,
                    sb_err *e);
/* Comma-separated integers ("1,2,4"), each in [min, max]; at most cap values.
 * An empty item ("1,,2", "1,") and a value listed twice are SB_EUSAGE. */
int sb_parse_int_list(const char *s, long min, long max, const char *what, int *out, int cap,
                      int *count, sb_err *e);
/* Any comma-separated list: SB_EUSAGE for an empty item or the same item
 * (blanks trimmed) listed twice. */
int sb_check_list(const char *s, const char *what, sb_err *e);
/* "MxNxK" -> m, n, k each in [1, max]. */
int sb_parse_shape(const char *s, long max, int *m, int *n, int *k, sb_err *e);

/* Paths checked before any work starts, so that a typo costs nothing: each
 * SB_EUSAGE "PATH: cannot write (OPT): why" (or "cannot create directory");
 * `opt` names the option ("--save"). An empty path: "OPT: empty path".
 *  - check_path: not empty ("" would silently mean "/file" or "./file");
 *  - check_out_file: a file about to be written (symlinks followed, as
 *    sb_out does): not a directory; a device or FIFO must be writable; else
 *    its directory exists and files can be created there;
 *  - check_out_dir: a directory to write into: exists and is writable, or,
 *    with may_create, only its last component is missing (the parent exists
 *    and is writable): missing parents are never created. */
int sb_cli_check_path(const char *opt, const char *path, sb_err *e);
int sb_cli_check_out_file(const char *opt, const char *path, sb_err *e);
int sb_cli_check_out_dir(const char *opt, const char *dir, int may_create, sb_err *e);

/* Progress bar on stderr, drawn only when stderr is a terminal (plain lines are
 * the caller's business otherwise). */
typedef struct sb_progress {
    int enabled;
    long total;
    double t0;
    char label[64];
} sb_progress;
void sb_progress_start(sb_progress *p, const char *label, long total);
void sb_progress_update(sb_progress *p, long done, const char *extra);
void sb_progress_end(sb_progress *p);

double sb_now(void);   /* monotonic seconds */

#endif
