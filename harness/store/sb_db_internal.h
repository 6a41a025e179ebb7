/* sb_db_internal: what the store's own modules (sb_db, sb_db_sweep,
 * sb_db_ingest, sb_db_project, sb_export, sb_import, sb_import_check,
 * sb_ptset, sb_query) share, and nothing above them may use: the SQLite
 * connection behind an sb_db, the one way a failed SQLite call becomes an
 * sb_err, the one statement helper (sb_db_rows and its siblings: every
 * bind, step and read of the store goes through them) and the column
 * helpers. Tests include it to set up and inspect databases with raw SQL;
 * commands, sweeps, plots and reports never do: they call the named
 * operations of sb_db.h, sb_query.h, sb_ptset.h and sb_export.h. */
#ifndef SB_DB_INTERNAL_H
#define SB_DB_INTERNAL_H
#include <sqlite3.h>
#include "sb_db.h"
#include "sb_err.h"
#include "sb_peak.h"

/* The connection (owned by db: never closed by the caller), and the path
 * it was opened with (for messages). */
sqlite3 *sb_db_handle(sb_db *db);
const char *sb_db_path(sb_db *db);

/* o[path1] (or o[path1][path2]) as a string (NULL when it is not one), and
 * as an integer (true: 1; anything else: 0). */
const char *sb_db_jstr(json_t *o, const char *path1, const char *path2);
json_int_t sb_db_jint(json_t *o, const char *path1, const char *path2);
/* Whether s is 1..max characters of [A-Za-z0-9_.:-]. */
int sb_db_token(const char *s, size_t max);

/* The store's one error helper: SB_EFAIL with "PATH: what: SQLite's message"
 * for a prepare, step, bind or exec that failed on db's connection. */
int sb_db_fail(sb_err *e, sb_db *db, const char *what);
/* Prepares sql on db's connection; on failure *st is NULL and the error is
 * sb_db_fail's, naming `what`. */
int sb_db_prepare(sb_db *db, const char *what, const char *sql, sqlite3_stmt **st, sb_err *e);
/* A parameter of a statement (sb_db_rows and its siblings): an integer; a
 * text (NULL binds SQL NULL); a number; text from the machine, a worker or a
 * user, bound repaired and cut to `max` characters (sb_text_repair: the
 * statement fails "out of memory" when it cannot be); SQL NULL; a row
 * id, NULL when it is 0; a value of a record (an import): a string or an
 * integer as it is, an object or array as its JSON text (NULL when out of
 * memory), anything else NULL. */
enum {
    SB_DB_ARG_INT,
    SB_DB_ARG_TEXT,
    SB_DB_ARG_REAL,
    SB_DB_ARG_REPAIRED,
    SB_DB_ARG_NULL,
    SB_DB_ARG_JSON
};
typedef struct sb_db_arg {
    int kind;
    int64_t i; /* an integer; REPAIRED: the most characters */
    double d;
    const char *s;
    json_t *j;
} sb_db_arg;
#define SB_DB_INT(v) ((sb_db_arg){.kind = SB_DB_ARG_INT, .i = (int64_t)(v)})
#define SB_DB_TEXT(v) ((sb_db_arg){.kind = SB_DB_ARG_TEXT, .s = (v)})
#define SB_DB_REAL(v) ((sb_db_arg){.kind = SB_DB_ARG_REAL, .d = (v)})
#define SB_DB_REPAIRED(v, max) \
    ((sb_db_arg){.kind = SB_DB_ARG_REPAIRED, .i = (int64_t)(max), .s = (v)})
#define SB_DB_NULL ((sb_db_arg){.kind = SB_DB_ARG_NULL})
#define SB_DB_ID(v) ((v) ? SB_DB_INT(v) : SB_DB_NULL)
#define SB_DB_JSON(v) ((sb_db_arg){.kind = SB_DB_ARG_JSON, .j = (v)})
#define SB_DB_NARGS(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* What a read does with one row: SB_OK to go on, SB_DB_STOP to end the
 * read there without an error, or an error it has set in e (the read
 * stops there and returns it). */
#define SB_DB_STOP (-1)
typedef int (*sb_db_row_fn)(sqlite3_stmt *st, void *ctx, sb_err *e);
/* The store's one statement: prepares sql, binds args[0..nargs) to
 * parameters 1..nargs, hands each row to row(st, ctx, e) until the rows end
 * or row stops or fails, and finalizes. row NULL: a statement whose rows,
 * if any, are not read (an INSERT, UPDATE or DELETE). A failed prepare or
 * step is sb_db_fail naming `what`; a row's error is returned as it is. */
int sb_db_rows(sb_db *db, const char *what, const char *sql, const sb_db_arg *args, int nargs,
               sb_db_row_fn row, void *ctx, sb_err *e);
/* The same for a statement that returns no row (INSERT, UPDATE, DELETE). */
int sb_db_exec(sb_db *db, const char *what, const char *sql, const sb_db_arg *args, int nargs,
               sb_err *e);
/* The same for an INSERT: *id is the new row's id. */
int sb_db_insert(sb_db *db, const char *what, const char *sql, const sb_db_arg *args, int nargs,
                 int64_t *id, sb_err *e);
/* The same for a single-row read: only the first row is handed to row (row
 * NULL: none is read), and *found says whether there was one. */
int sb_db_row(sb_db *db, const char *what, const char *sql, const sb_db_arg *args, int nargs,
              sb_db_row_fn row, void *ctx, int *found, sb_err *e);
/* The same on a statement prepared once (sb_db_prepare) for many uses, as
 * in a loop over points: binds args (none when args is NULL: the caller
 * has bound them), steps, hands over the rows, then resets the statement
 * and clears its bindings for the next use; it never finalizes. A failed
 * step is sb_db_fail naming `what`. */
int sb_db_stmt(sb_db *db, sqlite3_stmt *st, const char *what, const sb_db_arg *args, int nargs,
               sb_db_row_fn row, void *ctx, sb_err *e);
/* Rows of one column: the (last) row's integer into *(int64_t *)ctx, its
 * number into *(double *)ctx. */
int sb_db_int64_row(sqlite3_stmt *st, void *ctx, sb_err *e);
int sb_db_double_row(sqlite3_stmt *st, void *ctx, sb_err *e);
/* A list a read fills (a row function's context, grown by sb_db_push):
 * its elements, their count and the capacity. */
typedef struct sb_db_list {
    void *v;
    int n, cap;
} sb_db_list;
/* Hands the list a read returning rc has filled to the caller's array
 * *(T **)out and count *n, or frees it (NULL, 0) when rc is an error;
 * returns rc. */
int sb_db_list_give(sb_db_list *l, int rc, void *out, int *n);
/* Room for one more element of size `size` at the end of the array *v of
 * *n (capacity *cap, 0 at first): the new element, zeroed and counted in
 * *n; NULL and SB_EFAIL "out of memory" in e when it cannot grow. */
void *sb_db_push(void **v, int *n, int *cap, size_t size, sb_err *e);
/* A text column as a new string, verbatim (NULL reads as ""); *oom is set
 * when it cannot be copied, so that a row is checked once, not per field. */
char *sb_db_text_dup(sqlite3_stmt *st, int i, int *oom);
/* The same, but a NULL column stays NULL. */
char *sb_db_text_dup_or_null(sqlite3_stmt *st, int i, int *oom);
/* A text column as a new string (caller frees): invalid UTF-8 from an older
 * file shows as U+FFFD, the same as in an export; NULL reads as "". NULL only
 * when out of memory. */
char *sb_db_column_repaired(sqlite3_stmt *st, int i);
/* Inserts a point's samples with ins ("INSERT INTO sample (point_id, rep,
 * seconds, side, pair) VALUES (?,?,?,?,?)"): the array samples, or a checked
 * pairing's tagged samples (sb_db_check_pairing) when pairing is not NULL. */
int sb_db_insert_samples(sb_db *db, sqlite3_stmt *ins, int64_t point_id, json_t *samples,
                         json_t *pairing, sb_err *e);

/* Adds the store's SQL functions to a connection (every sb_db has them):
 * sb_uarch(vendor, family, model, stepping, isa, l2_bytes, l3_bytes,
 * info_json, microarch), a machine's microarchitecture from its recorded
 * signature (sb_uarch_identify), the stored name only where the user set it
 * (SB_CPU_UARCH) or nothing else was recorded; sb_uarch_how(the same), how
 * it was named ("by the model number; ...", "model 167 reported ...;
 * inferred from ..."). An SQLite result code. */
int sb_db_add_functions(sqlite3 *h);
/* SQL for the microarchitecture of the machine row m (an alias), and the
 * same with its AMX state: "Emerald Rapids (AMX)", "Emerald Rapids (no
 * AMX)" (the OS granted AMX or not; unrecorded: the name alone). */
#define SB_DB_UARCH(m)                                                                \
    "sb_uarch(" m ".vendor, " m ".family, " m ".model, " m ".stepping, " m ".isa, " m \
    ".l2_bytes, " m ".l3_bytes, " m ".info_json, " m ".microarch)"
#define SB_DB_UARCH_HOW(m)                                                                \
    "sb_uarch_how(" m ".vendor, " m ".family, " m ".model, " m ".stepping, " m ".isa, " m \
    ".l2_bytes, " m ".l3_bytes, " m ".info_json, " m ".microarch)"
/* The order "newest" means everywhere (reports, gates, plots, a label's
 * sweep): a sweep's start time, ties by its uuid, never the order rows were
 * stored in (an import adds old sweeps after new ones, and the same records
 * imported in another order must give the same answers). Ascending: the
 * newest last. julianday() reads the stored ISO 8601 time; a text it cannot
 * read sorts first (NULL) and then by itself. */
#define SB_DB_SWEEP_TIME(s) "julianday(" s ".started), " s ".started, " s ".uuid"
#define SB_DB_SWEEP_TIME_DESC(s) \
    "julianday(" s ".started) DESC, " s ".started DESC, " s ".uuid DESC"
#define SB_DB_MACHINE_NAME(m)                                                             \
    "(" SB_DB_UARCH(m) " || CASE " m ".amx_os_permitted WHEN 1 THEN ' (AMX)' WHEN 0 THEN" \
                       " ' (no AMX)' ELSE '' END)"
/* SQL true for a metric row m that is a clock above SB_PEAK_MAX_CLOCK_GHZ
 * (sb_peak_clock_impossible), which the store never shows. */
#define SB_DB_STR_(x) #x
#define SB_DB_STR(x) SB_DB_STR_(x)
#define SB_DB_IMPOSSIBLE_CLOCK(m)                               \
    "(" m ".name LIKE '%\\_clock\\_ghz' ESCAPE '\\' AND NOT " m \
    ".value <= " SB_DB_STR(SB_PEAK_MAX_CLOCK_GHZ) ")"

#endif
