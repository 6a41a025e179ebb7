/* sb_io: files written whole or not at all (temp file + rename), and JSON
 * documents through jansson. Used by every workload's --result-file and by
 * commands that write outputs. */
#ifndef SB_IO_H
#define SB_IO_H
#include <stddef.h>
#include <jansson.h>
#include "sb_err.h"

/* Writes data to path via path.tmp.PID and rename(2): a reader never sees a
 * half-written file. */
int sb_write_file_atomic(const char *path, const void *data, size_t len, sb_err *e);
/* Dumps one JSON document (indented, newline-terminated) atomically. */
int sb_json_write_atomic(const char *path, const json_t *doc, sb_err *e);
/* Reads a whole file (NUL-terminated; *len without the NUL). */
int sb_read_file(const char *path, char **data, size_t *len, sb_err *e);

#endif
