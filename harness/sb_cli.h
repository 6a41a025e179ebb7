/* sb_cli: what every subcommand shares: error reporting (one line on stderr,
 * the exit code), number and list parsing with range checks, the version,
 * and a progress bar that only draws on a terminal. */
#ifndef SB_CLI_H
#define SB_CLI_H
#include <stdio.h>
#include "sb_err.h"

const char *sb_version(void);

/* Prints "sprbench CMD: MSG" on stderr and returns the exit code (1 or 2). */
int sb_cli_report(const char *cmd, const sb_err *e);
/* Prints "sprbench CMD: <formatted>" on stderr and returns 2. */
int sb_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Parses a whole decimal integer in [min, max]; SB_EUSAGE naming `what` otherwise. */
int sb_parse_long(const char *s, long min, long max, const char *what, long *out, sb_err *e);
int sb_parse_double(const char *s, double min, double max, const char *what, double *out,
                    sb_err *e);
/* Comma-separated integers ("1,2,4"), each in [min, max]; at most cap values. */
int sb_parse_int_list(const char *s, long min, long max, const char *what, int *out, int cap,
                      int *count, sb_err *e);
/* "MxNxK" -> m, n, k each in [1, max]. */
int sb_parse_shape(const char *s, long max, int *m, int *n, int *k, sb_err *e);

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
