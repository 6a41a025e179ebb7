/* sb_cli: what every subcommand shares: error reporting (one line on stderr,
 * the exit code), the version, and the checks of output paths before any
 * work. Commands also get the value parsers (sb_parse) and the progress bar
 * (sb_progress) through this header; code below the commands includes those
 * itself. */
#ifndef SB_CLI_H
#define SB_CLI_H
#include <stdio.h>
#include "sb_err.h"
#include "sb_opts.h"
#include "sb_parse.h"
#include "sb_progress.h"

const char *sb_version(void);
/* The full git commit the binary was built from ("unknown" outside git). */
const char *sb_commit(void);
/* The database a command uses without --db: $SPRBENCH_DB when set and not
 * empty, else SB_DEFAULT_DB (results/sprbench.db). */
const char *sb_default_db(void);

/* Prints "sprbench CMD: MSG" on stderr and returns the exit code (1, 2 or 3).
 * Both print exactly one line whatever the message holds (sb_text_one_line). */
int sb_cli_report(const char *cmd, const sb_err *e);
/* Prints "sprbench CMD: <formatted>" on stderr and returns 2. */
int sb_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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
/* This binary's path (/proc/self/exe), to run workers with: -1 when unknown. */
int sb_cli_self_exe(char *buf, size_t cap);
/* The directory a file will be written into, made when missing (one level;
 * "." and "/" are there): -1 when it cannot be. */
int sb_cli_make_parent_dir(const char *path);

/* A command's options by its sb_opts table (bench/sb_opts): -1 to go on,
 * else the exit code: 0 after help() on --help, or an error's (one line). */
int sb_cli_opts(const char *cmd, int argc, char **argv, const sb_opt *rows, void *o,
                const sb_opt_ranges *r, void (*help)(void));

/* Option groups several commands share: their rows (for an options struct
 * T with the fields named) and their help, the text at column col. */
/* The tuned blocking: int no_tune, const char *tune_file (train, infer). */
#define SB_CLI_OPTS_TUNING(T)                                                     \
    {"no-tune", SB_OPT_FLAG, offsetof(T, no_tune), SB_OPT_NOSET, NULL},            \
    {                                                                             \
        "tune-file", SB_OPT_STR, offsetof(T, tune_file), SB_OPT_NOSET, NULL       \
    }
void sb_cli_help_tuning(int col);

/* sb_cli_opts with what sb_opts_more adds (an unknown option's words, the
 * operands); r may be NULL for a table of strings and flags. */
int sb_cli_opts_more(const char *cmd, int argc, char **argv, const sb_opt *rows, void *o,
                     const sb_opt_ranges *r, const sb_opts_more *more, void (*help)(void));

#endif
