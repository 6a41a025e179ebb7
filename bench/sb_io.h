/* sb_io: how the tool reads its inputs and writes its outputs, so that no
 * input can exhaust memory and no output can destroy what it replaces.
 *
 * Reading: every reader names a size limit fitting the kind of file it reads
 * and gets a one-line SB_EUSAGE past it, at bounded memory (the file is read
 * in chunks up to the limit; st_size is only a hint). Inputs are regular
 * files: a FIFO, device or socket is refused at once, never waited on. Text readers also refuse a NUL byte, naming its offset: a C
 * parser would otherwise stop there and silently use half a file.
 *
 * Writing: an output path is resolved first. A symlink is followed (its
 * target is written, the link kept). A regular file, or a path that does not
 * exist yet, is written whole or not at all: a temp file beside the target
 * (same directory, so same file system), fsync, rename. Anything else (a
 * device such as /dev/full or /dev/null, a FIFO, or a link to one, as
 * /dev/stdout is to a pipe) is written in place and never replaced. Every write and the close are checked; a failure
 * is SB_EFAIL "PATH: write failed: <strerror>", leaves no temp file behind
 * and leaves the old target as it was. JSON documents go through jansson. */
#ifndef SB_IO_H
#define SB_IO_H
#include <stddef.h>
#include <jansson.h>
#include "sb_err.h"

#define SB_KIB ((size_t)1 << 10)
#define SB_MIB ((size_t)1 << 20)

/* The limit of sb_read_file, for callers not yet given one of their own;
 * new code names its limit with sb_read_file_max. */
#define SB_READ_DEFAULT_MAX (64 * SB_MIB)

/* Opens path for reading if it is a regular file, into *fd. A FIFO, socket,
 * device or directory is SB_EUSAGE "PATH: is a FIFO, not a regular file",
 * without waiting: the open does not block on a FIFO with no writer. */
int sb_open_regular(const char *path, int *fd, sb_err *e);

/* Reads a whole regular file (sb_open_regular) of at most max_bytes into a NUL-terminated buffer the
 * caller frees (*len without the terminating NUL; len may be NULL). More than
 * max_bytes: SB_EUSAGE "PATH: larger than N MiB, the limit for a KIND". */
int sb_read_file_max(const char *path, size_t max_bytes, const char *kind, char **data, size_t *len,
                     sb_err *e);
/* As sb_read_file_max, and a NUL byte anywhere is SB_EUSAGE
 * "PATH: NUL byte at offset N: a KIND is text". */
int sb_read_text_max(const char *path, size_t max_bytes, const char *kind, char **data, size_t *len,
                     sb_err *e);
/* sb_read_file_max with SB_READ_DEFAULT_MAX (kept for existing callers). */
int sb_read_file(const char *path, char **data, size_t *len, sb_err *e);

/* An output being written: open, write any number of times, then commit (or
 * abort). Large (it holds paths): keep it on the stack of one function. */
typedef struct sb_out {
    int fd;            /* -1 once closed */
    int in_place;      /* device, FIFO or stdout: written where it is */
    int is_stdout;     /* fd 1, which is never closed here */
    int failed;        /* a write failed: commit refuses */
    char path[1024];   /* as the caller named it, for messages */
    char target[4096]; /* the file written (symlinks followed) */
    char tmp[4200];    /* the temp file beside target; "" when in place */
} sb_out;

/* Opens path for writing as described above. Bad path (no such directory, a
 * directory, no permission): SB_EUSAGE naming it. */
int sb_out_open(sb_out *o, const char *path, sb_err *e);
/* Standard output as an sb_out (for commands that document "-"); stdio's
 * buffer is flushed first so earlier printf output stays in order. */
void sb_out_stdout(sb_out *o);
/* Writes all of data (short writes and EINTR retried); SB_EFAIL on error. */
int sb_out_write(sb_out *o, const void *data, size_t len, sb_err *e);
/* Finishes: temp file synced, closed and renamed over the target, or the
 * in-place file closed. On failure nothing is left behind; SB_EFAIL. */
int sb_out_commit(sb_out *o, sb_err *e);
/* Gives up: closes and removes the temp file; the target keeps its content.
 * Safe to call twice and after commit. */
void sb_out_abort(sb_out *o);

/* One whole output (open + write + commit). */
int sb_write_file_atomic(const char *path, const void *data, size_t len, sb_err *e);
/* Dumps one JSON document (indented, newline-terminated) the same way. */
int sb_json_write_atomic(const char *path, const json_t *doc, sb_err *e);

#endif
