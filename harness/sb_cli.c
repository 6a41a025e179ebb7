#include "sb_cli.h"
#include "sb_db.h"
#include "sb_text.h"
#include <ctype.h>
#include <libgen.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef SB_VERSION
#define SB_VERSION "unknown"
#endif

#ifndef SB_COMMIT
#define SB_COMMIT "unknown"
#endif

const char *sb_version(void) { return SB_VERSION; }
const char *sb_commit(void) { return SB_COMMIT; }

const char *sb_default_db(void)
{
    /* one variable for every command that takes --db: a study kept outside
     * the checkout needs no --db on each command line */
    const char *env = getenv("SPRBENCH_DB");
    return env && *env ? env : SB_DEFAULT_DB;
}

int sb_cli_report(const char *cmd, const sb_err *e)
{
    int code = e->code ? e->code : SB_EFAIL;
    char line[sizeof e->msg];
    snprintf(line, sizeof line, "%s", e->msg[0] ? e->msg : "failed");
    sb_text_one_line(line);
    fprintf(stderr, "sprbench %s: %s\n", cmd, line);
    return code;
}

int sb_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    sb_text_one_line(line);
    fprintf(stderr, "sprbench %s: %s\n", cmd, line);
    return SB_EUSAGE;
}

/* ---- options by the table, and the groups commands share ---- */

int sb_cli_opts(const char *cmd, int argc, char **argv, const sb_opt *rows, void *o,
                const sb_opt_ranges *r, void (*help)(void))
{
    return sb_cli_opts_more(cmd, argc, argv, rows, o, r, NULL, help);
}

int sb_cli_opts_more(const char *cmd, int argc, char **argv, const sb_opt *rows, void *o,
                     const sb_opt_ranges *r, const sb_opts_more *more, void (*help)(void))
{
    static const sb_opt_ranges none; /* a table of strings and flags reads no number */
    sb_err e = {0};
    int want_help = 0;
    if (sb_opts_parse_more(argc, argv, rows, o, r ? r : &none, more, &want_help, &e))
        return sb_cli_report(cmd, &e);
    if (want_help) help();
    return want_help ? 0 : -1;
}

void sb_cli_help_tuning(int col)
{
    int w = col - 2; /* after the two blanks of every option line */
    printf("  %-*s%s\n", w, "--no-tune",
           "the GEMM driver's built-in blocking, not this machine's tuned");
    printf("  %-*s%s\n", w, "", "one (sprbench tune); the config records which ran");
    printf("  %-*s%s\n", w, "--tune-file F",
           "the tuned blocking (default: tune-<fingerprint>.json beside");
    printf("  %-*s%s\n", w, "", "the database; $SPRBENCH_TUNE_FILE;");
    printf("  %-*s%s\n", w, "", "a file named here must exist and be usable)");
}

/* ---- paths checked before the work ---- */

int sb_cli_check_path(const char *opt, const char *path, sb_err *e)
{
    /* "" would become "/config.json" or "./x" further down: never meant */
    if (!path || !*path) return sb_errf(e, SB_EUSAGE, "%s: empty path", opt);
    return SB_OK;
}

/* The directory part of path ("." when it has none). */
static void dir_of(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, cap, ".");
    else if (slash == path)
        snprintf(dir, cap, "/");
    else
        snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

/* Messages put the path first, as every other message about a file does
 * ("PATH: cannot write: ..."), and name the option after what failed. */

/* dir exists, is a directory, and files can be created in it. `doing` is
 * what cannot be done otherwise ("cannot write", "cannot create directory"). */
static int writable_dir(const char *opt, const char *path, const char *doing, const char *dir,
                        const char *role, sb_err *e)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT)
            return sb_errf(e, SB_EUSAGE, "%s: %s (%s): %s %s does not exist", path, doing, opt,
                           role, dir);
        return sb_errf(e, SB_EUSAGE, "%s: %s (%s): %s %s: %s", path, doing, opt, role, dir,
                       strerror(errno));
    }
    if (!S_ISDIR(st.st_mode))
        return sb_errf(e, SB_EUSAGE, "%s: %s (%s): %s is not a directory", path, doing, opt, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return sb_errf(e, SB_EUSAGE, "%s: %s (%s): no files can be created in %s: %s", path, doing,
                       opt, dir, strerror(errno));
    return SB_OK;
}

int sb_cli_check_out_file(const char *opt, const char *path, sb_err *e)
{
    int rc = sb_cli_check_path(opt, path, e);
    if (rc) return rc;
    static const char doing[] = "cannot write";
    /* Follow symlinks as the writer (sb_out) does: a link's target is what
     * gets written, and beside its target that the temp file goes. */
    char target[4096];
    if (snprintf(target, sizeof target, "%s", path) >= (int)sizeof target)
        return sb_errf(e, SB_EUSAGE, "%s: path too long", opt);
    struct stat st;
    for (int hops = 0;; hops++) {
        if (lstat(target, &st) != 0) {
            if (errno != ENOENT)
                return sb_errf(e, SB_EUSAGE, "%s: %s (%s): %s", path, doing, opt, strerror(errno));
            char dir[4096];
            dir_of(target, dir, sizeof dir);
            return writable_dir(opt, path, doing, dir, "directory", e);
        }
        if (!S_ISLNK(st.st_mode)) break;
        if (hops == 40)
            return sb_errf(e, SB_EUSAGE, "%s: %s (%s): %s", path, doing, opt, strerror(ELOOP));
        char link[4096], next[4096];
        ssize_t n = readlink(target, link, sizeof link - 1);
        if (n < 0)
            return sb_errf(e, SB_EUSAGE, "%s: %s (%s): %s", path, doing, opt, strerror(errno));
        link[n] = '\0';
        const char *slash = strrchr(target, '/');
        int w = link[0] == '/' || !slash
            ? snprintf(next, sizeof next, "%s", link)
            : snprintf(next, sizeof next, "%.*s/%s", (int)(slash - target), target, link);
        if (w >= (int)sizeof next) return sb_errf(e, SB_EUSAGE, "%s: path too long", opt);
        memcpy(target, next, (size_t)w + 1);
    }
    if (S_ISDIR(st.st_mode))
        return sb_errf(e, SB_EUSAGE, "%s: %s (%s): is a directory", path, doing, opt);
    if (!S_ISREG(st.st_mode)) {
        /* a device or FIFO is written in place: it must take writes */
        if (access(target, W_OK) != 0)
            return sb_errf(e, SB_EUSAGE, "%s: %s (%s): %s", path, doing, opt, strerror(errno));
        return SB_OK;
    }
    char dir[4096];
    dir_of(target, dir, sizeof dir);
    return writable_dir(opt, path, doing, dir, "directory", e);
}

int sb_cli_check_out_dir(const char *opt, const char *dir, int may_create, sb_err *e)
{
    int rc = sb_cli_check_path(opt, dir, e);
    if (rc) return rc;
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return sb_errf(e, SB_EUSAGE, "%s: cannot write into it (%s): not a directory", dir,
                           opt);
        if (access(dir, W_OK | X_OK) != 0)
            return sb_errf(e, SB_EUSAGE, "%s: cannot write into it (%s): %s", dir, opt,
                           strerror(errno));
        return SB_OK;
    }
    if (errno != ENOENT)
        return sb_errf(e, SB_EUSAGE, "%s: cannot write into it (%s): %s", dir, opt,
                       strerror(errno));
    if (!may_create) return sb_errf(e, SB_EUSAGE, "%s: no such directory (%s)", dir, opt);
    /* Only the last component is created: missing parents mean a typo in
     * the path more often than a wish for a new tree. */
    char trimmed[4096], parent[4096];
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--; /* "out/" names "out" */
    if (n >= sizeof trimmed) return sb_errf(e, SB_EUSAGE, "%s: path too long", opt);
    memcpy(trimmed, dir, n);
    trimmed[n] = '\0';
    dir_of(trimmed, parent, sizeof parent);
    return writable_dir(opt, dir, "cannot create directory", parent, "parent directory", e);
}

int sb_cli_self_exe(char *buf, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    if (n <= 0) return -1;
    buf[n] = '\0';
    return 0;
}

int sb_cli_make_parent_dir(const char *path)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    char *dir = dirname(copy);
    if (!strcmp(dir, ".") || !strcmp(dir, "/")) return 0;
    return mkdir(dir, 0755) == 0 || errno == EEXIST ? 0 : -1;
}
