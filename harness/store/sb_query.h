/* sb_query: the named reads of the results store that commands, sweeps,
 * plots and reports make, each answering one question ("the series of a
 * sweep", "the stored plan of a sweep", "a point's result document") with
 * plain C values. Owns the SQL of those questions; nothing above the store
 * sees a statement or a connection.
 *
 * Every function returns SB_OK or an error through sb_err (a failed read is
 * never taken for "nothing there"; its message names the database and what
 * was being read). Arrays are malloc'd and freed with the function declared
 * beside them; on an error nothing is left to free. Text is as stored, a
 * NULL column reading as "" unless said otherwise. All of them only read: a
 * read-only database will do. */
#ifndef SB_QUERY_H
#define SB_QUERY_H
#include <jansson.h>
#include <stdint.h>
#include "sb_db.h"
#include "sb_err.h"
#include "sb_workload.h"

/* ---- the database as a whole (`db info`) ---- */

typedef struct sb_db_counts {
    long machines, sweeps, points, samples, metrics; /* rows of each table */
} sb_db_counts;
int sb_db_count_rows(sb_db *db, sb_db_counts *c, sb_err *e);

typedef struct sb_machine_row {
    char *fingerprint, *hostname, *cpu_model, *microarch;
    int cores;
    long points; /* points recorded on it */
} sb_machine_row;
/* Every machine, in the order they were first seen. */
int sb_db_machines(sb_db *db, sb_machine_row **v, int *n, sb_err *e);
void sb_machine_rows_free(sb_machine_row *v, int n);

/* A machine's stored description: a JSON object with one member per recorded
 * column (fingerprint, hostname, cpu_model, vendor, family, model, stepping,
 * microarch, packages, numa_nodes, cores, pus, l2_bytes, l3_bytes, isa,
 * amx_os_permitted, amx_reason, kernel, mem_bytes, info_json; isa and
 * info_json as the JSON text stored), integers as integers, NULL columns
 * left out; microarch is the name sb_uarch gives the recorded signature,
 * with the AMX state ("Granite Rapids-class (AMX)"), not the stored string,
 * and microarch_how says how it was found. *info is NULL when no machine
 * has that id. */
int sb_db_machine_info(sb_db *db, int64_t machine_id, json_t **info, sb_err *e);

/* ---- sweeps ---- */

typedef struct sb_sweep_row {
    int64_t id;
    char *uuid, *label, *workload, *hostname, *status, *started;
    int points, ok, skipped; /* its points: all, status ok, status skipped */
    int held;                /* a process holds it (sb_db_sweep_claim): */
    long long holder_pid;    /*   which, */
    char *holder_host;       /*   and where */
    char *microarch, *cpu_model, *tool_version; /* its machine's, and the sprbench that ran it */
} sb_sweep_row;
/* Every sweep, by id. */
int sb_db_sweeps(sb_db *db, sb_sweep_row **v, int *n, sb_err *e);
void sb_sweep_rows_free(sb_sweep_row *v, int n);

int sb_db_sweep_exists(sb_db *db, int64_t sweep_id, int *exists, sb_err *e);

/* What a figure names a sweep by: its workload and label, and the machine it
 * ran on. The strings are NULL where nothing was recorded. */
typedef struct sb_sweep_header {
    char *workload, *label;
    int has_machine; /* 0: computed, not run (e.g. `sprbench model --db`) */
    char *hostname, *cpu_model, *microarch;
    int cores;
    int64_t machine_id; /* 0 without a machine */
    char *tool_version; /* the sprbench that ran it */
    char *started;      /* when it started (ISO 8601 UTC); NULL unknown */
} sb_sweep_header;
/* *found = 0 (and h empty) when there is no such sweep. */
int sb_db_sweep_header(sb_db *db, int64_t sweep_id, sb_sweep_header *h, int *found, sb_err *e);
void sb_sweep_header_free(sb_sweep_header *h);

/* The plan a sweep was stored with (the text `sprbench sweep --resume`
 * parses again). *found = 0 when there is no such sweep; *plan (malloc'd)
 * is NULL when there is none or the sweep has no plan. */
int sb_db_sweep_plan(sb_db *db, int64_t sweep_id, char **plan, int *found, sb_err *e);

/* How many points of a sweep are stored, whatever their status. */
int sb_db_sweep_point_count(sb_db *db, int64_t sweep_id, int *n, sb_err *e);
/* How many of the sweep's points were measured in pairs (a point_pairing row). */
int sb_db_sweep_paired_count(sb_db *db, int64_t sweep_id, int *n, sb_err *e);

/* A point a sweep has yet to run: pending, running (its run was cut short)
 * or interrupted. */
typedef struct sb_todo_point {
    int64_t id;
    int seq;
    char kernel[SB_DB_MAX_NAME * 4 + 1], shape[SB_DB_MAX_SHAPE * 4 + 1];
    char workload[SB_DB_MAX_WORD * 4 + 1];
    const sb_workload *wl; /* its row, resolved as it is read (NULL: no such workload) */
    int threads, ppn, nodes;
} sb_todo_point;
/* The sweep's unfinished points in their order (seq); *v malloc'd (free()),
 * NULL when none. */
int sb_db_sweep_unfinished(sb_db *db, int64_t sweep_id, sb_todo_point **v, int *n, sb_err *e);

/* One line of a sweep's closing table: every point but the peak probe's,
 * with its headline figure and the series' base for speedup. */
typedef struct sb_summary_row {
    char *kernel, *shape, *status, *reason;
    char *dtype; /* the point's precision ("f32", "bf16", "int8"; "" none) */
    int threads, ppn, nodes;
    int has_value;
    double value; /* metric gflops, else tokens_per_s */
    char *unit;   /* "GFLOP/s", "GOP/s" (int8), "tokens/s"; "" without a value */
    int has_pct;
    double pct_peak;   /* metric pct_peak */
    int has_base;      /* the series (kernel, shape, ppn, nodes) has an ok point: */
    double base_value; /*   the value of its fewest threads, */
    int base_threads;  /*   and how many that is */
    int lower;         /* the headline is lower-is-better (ns a row): speedup is base / value */
} sb_summary_row;
/* Ordered by kernel, shape, nodes, ppn, threads. */
int sb_db_sweep_summary(sb_db *db, int64_t sweep_id, sb_summary_row **v, int *n, sb_err *e);
void sb_summary_rows_free(sb_summary_row *v, int n);

/* The distinct shapes of a sweep's ok points of a workload ("" for a point
 * without one), sorted. */
int sb_db_sweep_shapes(sb_db *db, int64_t sweep_id, const char *workload, char ***shapes, int *n,
                       sb_err *e);
void sb_db_strings_free(char **v, int n);

/* ---- series (what plots draw) ---- */

/* One single-rank point (ppn 1, one node) of a series: a metric's value and
 * the raw samples behind it. */
typedef struct sb_series_point {
    int64_t point_id;
    char *kernel, *dtype;
    int threads;
    double value;    /* the metric */
    double *samples; /* seconds, in repetition order */
    int nsamples;
    char peak_path[24]; /* the path its pct_peak is against ("" = the kernel's) */
} sb_series_point;
/* The ok single-rank points of a sweep with the given workload and shape
 * ("" matches a point without one) that have the metric, ordered by kernel
 * and threads. */
int sb_db_metric_series(sb_db *db, int64_t sweep_id, const char *workload, const char *shape,
                        const char *metric, sb_series_point **v, int *n, sb_err *e);
void sb_series_free(sb_series_point *v, int n);

/* A point of a sweep's scaling over ranks: its epoch_seconds metric. */
typedef struct sb_epoch_point {
    char *kernel;
    char *shape; /* the training configuration ("model=... seq=...") */
    int ppn, nodes, threads;
    double epoch_s;
    int extrapolated; /* the metric is flagged projected: epoch time from some steps */
    int model;        /* status 'projected': the scaling model's point, nothing ran */
} sb_epoch_point;
/* The sweep's ok and projected points with an epoch_seconds metric, ordered
 * by kernel, ppn, measured before projected, nodes, and most threads first. */
int sb_db_epoch_series(sb_db *db, int64_t sweep_id, sb_epoch_point **v, int *n, sb_err *e);
void sb_epoch_series_free(sb_epoch_point *v, int n);

/* One sweep's value of a point key (workload, kernel, shape, threads, ppn,
 * nodes) on one machine: the history of that key (`plot --history`, `gate`
 * naming the last version that passed). */
typedef struct sb_history_point {
    int64_t sweep_id, point_id;
    char *tool_version, *started, *label; /* the sweep's; "" where none */
    char *config;                         /* the point's configuration ("" none) */
    double value;                         /* the metric (0 without one) */
    char *unit;                           /* the metric's stored unit ("" none) */
    double *samples;                      /* seconds, in repetition order */
    int nsamples;
} sb_history_point;
/* The key's last ok point of each sweep on the machine, where it has the
 * metric (metric NULL: any), ordered by sweep start then id. config: the
 * point's configuration too (an int8 inference point's quantisation, ...);
 * NULL: any, each point's own in `config`. */
int sb_db_metric_history(sb_db *db, int64_t machine_id, const char *workload, const char *kernel,
                         const char *shape, const char *config, int threads, int ppn, int nodes,
                         const char *metric, sb_history_point **v, int *n, sb_err *e);
void sb_history_free(sb_history_point *v, int n);

/* ---- one point ---- */

/* What names a point on one line. */
typedef struct sb_point_brief {
    int64_t sweep_id; /* 0 when it has none */
    char *workload, *kernel, *shape, *status;
    int threads;
} sb_point_brief;
/* *found = 0 (and b empty) when there is no such point. */
int sb_db_point_brief(sb_db *db, int64_t point_id, sb_point_brief *b, int *found, sb_err *e);
void sb_point_brief_free(sb_point_brief *b);

/* The result document stored with a point (the worker's JSON, as ingested or
 * imported). *doc is NULL when there is no such point, it has none, or what
 * is stored does not parse; caller decrefs. */
int sb_db_point_result(sb_db *db, int64_t point_id, json_t **doc, sb_err *e);

#endif
