/* sb_envdiff: whether two sides of a comparison ran in the same environment.
 * Every result document records the variables that change results ("env",
 * with "env_scope" naming what was recorded: sb_env_json in sb_sysinfo.h);
 * the database keeps the document (point.result_json), so results imported
 * from other machines carry it too. gate and report read it back with this
 * module and say, for the point pairs they compare, which variables differ:
 * one line per distinct difference, not one per pair, so that a sweep run
 * with ONEDNN_MAX_CPU_ISA=SSE41 says so once.
 *
 *   sb_envmap bm, cm;  sb_envmap_load(db, &base, &bm, &e);  ...
 *   sb_envdiffs d = {0};
 *   for each compared pair (b, c):
 *       sb_envdiffs_add(&d, b->id, sb_envmap_get(&bm, b->id),
 *                       c->id, sb_envmap_get(&cm, c->id), label);
 *   for (int i = 0; i < sb_envdiffs_nlines(&d); i++) sb_envdiffs_line(&d, i, buf, cap);
 */
#ifndef SB_ENVDIFF_H
#define SB_ENVDIFF_H
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include "sb_db.h"
#include "sb_err.h"
#include "sb_ptset.h"

/* The recorded environment of each point of a set, by point id. */
typedef struct sb_envmap {
    int n;
    int64_t *ids;
    json_t **env; /* NULL: nothing recorded (an older sprbench, or no result) */
} sb_envmap;

/* Reads every point's stored result document (bound parameters, read only). */
int sb_envmap_load(sb_db *db, const sb_ptset *set, sb_envmap *m, sb_err *e);
void sb_envmap_free(sb_envmap *m);
/* The point's "env" object, or NULL when its result recorded none (a
 * document without "env_scope" predates complete recording: NULL too). */
const json_t *sb_envmap_get(const sb_envmap *m, int64_t point_id);

/* The variables in which two recorded environments differ, as one line of
 * printable text ("ONEDNN_MAX_CPU_ISA (baseline unset, candidate 'SSE41'),
 * ..."; values shortened, control characters shown as '?'), into buf.
 * Returns the number of variables that differ. */
int sb_env_diff(const json_t *base, const json_t *cand, char *buf, size_t cap);
/* The same, over the variables a workload reads only (workload NULL: all):
 * every runtime and library variable (OMP_*, MKL_*, ONEDNN_*, ...), and of
 * sprbench's own SB_* those the binary reads for that workload, so that
 * SB_TRAIN_BATCH (scripts/run-sweep's) is never a difference of GEMM points. */
int sb_env_diff_for(const char *workload, const json_t *base, const json_t *cand, char *buf,
                    size_t cap);
/* 1 when the workload (NULL: any) reads the variable (see sb_env_diff_for). */
int sb_env_read_by(const char *workload, const char *name);

/* Differences collected over the pairs of a comparison, grouped by text. */
typedef struct sb_envdiff_group {
    char *diff;    /* sb_env_diff's text */
    char *example; /* the first pair's label */
    int pairs;
} sb_envdiff_group;

typedef struct sb_envdiffs {
    sb_envdiff_group *g;
    int n, cap;
    int pairs;      /* distinct pairs added */
    int unrecorded; /* pairs where a side recorded no environment */
    int64_t *seen;  /* (base id, candidate id) of the pairs added */
    int nseen, seen_cap;
} sb_envdiffs;

/* Adds a compared pair once (the same ids again are ignored: a pair shown
 * for several metrics counts once). */
void sb_envdiffs_add(sb_envdiffs *d, int64_t base_id, const json_t *base, int64_t cand_id,
                     const json_t *cand, const char *label);
/* The same, comparing only the variables the pair's workload reads. */
void sb_envdiffs_add_for(sb_envdiffs *d, const char *workload, int64_t base_id,
                         const json_t *base, int64_t cand_id, const json_t *cand,
                         const char *label);
void sb_envdiffs_free(sb_envdiffs *d);
/* The lines to show: one per group, then one for pairs without a record. */
int sb_envdiffs_nlines(const sb_envdiffs *d);
void sb_envdiffs_line(const sb_envdiffs *d, int i, char *buf, size_t cap);

#endif
