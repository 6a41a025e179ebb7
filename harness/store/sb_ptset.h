/* sb_ptset: what `db points`, `gate`, `report` and the CSV export read from
 * the store as a whole. Owns the selections (what --baseline, --candidate,
 * --sweep and a POINT argument name: a machine by fingerprint, prefix or
 * host name, a sweep or a point by number or uuid prefix) and the point sets
 * (every point of a machine and/or sweep with its raw samples and metrics,
 * text repaired for display, the latest point per configuration, the
 * configuration key and label that match and name points across sides).
 * Reads only: a read-only database will do. */
#ifndef SB_PTSET_H
#define SB_PTSET_H
#include <stddef.h>
#include <stdint.h>
#include "sb_db.h"
#include "sb_err.h"
#include "sb_workload.h"

/* ---- selections ---- */

/* What --baseline/--candidate name: a sweep (id or uuid / uuid prefix), a
 * machine (fingerprint, unique prefix of at least 4 digits, host name,
 * microarchitecture with or without its AMX state, CPU model), a sweep by
 * label (the newest of that label), or a record file (`db export` JSON):
 * its machine, pinned to the record's sweeps (sb_select_pin_sweeps). */
#define SB_SELECT_MAX_PINNED 32
typedef struct sb_selection {
    int64_t machine_id; /* set for a machine; also the sweep's machine */
    int64_t sweep_id;   /* set for a sweep only */
    char label[256];    /* what to call it in tables */
    /* sweeps pinned by --baseline-sweeps/--candidate-sweeps
     * (sb_select_pin_sweeps): the side reads these alone */
    int64_t pinned[SB_SELECT_MAX_PINNED];
    int npinned;
} sb_selection;
int sb_select_resolve(sb_db *db, const char *spec, sb_selection *sel, sb_err *e);
/* Pins a side to the sweeps of list (comma-separated ids, uuid prefixes or
 * labels; a label names the newest sweep of that label on the side first):
 * each must exist and hold points of the side (its machine, or be its
 * sweep), else SB_EUSAGE naming it and `what` ("--candidate-sweeps"). The
 * side then reads those sweeps alone, and its label says which. */
int sb_select_pin_sweeps(sb_db *db, sb_selection *sel, const char *list, const char *what,
                         sb_err *e);
/* A sweep only: integer id, (prefix of) uuid, or label (the newest sweep of
 * that label). */
int sb_sweep_resolve(sb_db *db, const char *spec, int64_t *sweep_id, sb_err *e);
/* A point: its number or a prefix of 4 to 32 digits of its uuid. None, or
 * more than one, is SB_EUSAGE. */
int sb_point_resolve(sb_db *db, const char *spec, int64_t *point_id, sb_err *e);

/* ---- point sets ---- */

typedef struct sb_metric_val {
    char *name, *unit, *source;
    double value;
    int projected;
} sb_metric_val;

typedef struct sb_pt {
    int64_t id, sweep_id, machine_id;
    char uuid[33], sweep_uuid[33]; /* "" when unknown */
    char sweep_started[32];        /* its sweep's start time as stored; "" unknown */
    /* how many sweeps of its set ran this configuration (sb_ptset_latest
     * keeps the one started last and counts them here); 1 as loaded */
    int nsweeps;
    char *fingerprint, *workload, *kernel, *dtype, *shape, *config, *status, *reason;
    /* workload's row (bench/sb_workload), resolved once as the point is
     * loaded; NULL for a name no row has (a database of another version) */
    const sb_workload *wl;
    int threads, ppn, nodes;
    double *samples; /* seconds per repetition/step, in repetition order */
    int nsamples;
    sb_metric_val *metrics;
    int nmetrics;
    /* a paired point (`sweep --pair-baseline B --pair-candidate C`): every
     * sample of both binaries in the order they ran, with its side (0 the
     * baseline, 1 the candidate) and its pair; npaired 0 otherwise. samples
     * above holds the candidate's alone, as for any point. */
    double *paired;
    int *side, *pair, npaired;
    char *pair_mode, *pair_baseline, *pair_candidate; /* NULL when not paired */
} sb_pt;

typedef struct sb_ptset {
    sb_pt *p;
    int n;
} sb_ptset;

/* Every point of a machine and/or sweep (0 = any), ordered by time: by
 * their sweep's start time (ties by sweep uuid, SB_DB_SWEEP_TIME), then by
 * their place in the sweep. Never by row id: the same records imported in
 * any order load in the same order. */
int sb_ptset_load(sb_db *db, int64_t machine_id, int64_t sweep_id, sb_ptset *set, sb_err *e);
/* The points a selection names, in sb_ptset_load's order: its pinned
 * sweeps (on its machine), else its sweep, else its machine's. */
int sb_ptset_load_sel(sb_db *db, const sb_selection *sel, sb_ptset *set, sb_err *e);
void sb_ptset_free(sb_ptset *set);
/* Keeps one point per configuration: the newest (the last in the set's
 * order: of the sweep started last) with status ok, else the newest of any
 * status (so a skip reason stays visible). The kept point's nsweeps counts
 * the sweeps of the set that ran its configuration. */
void sb_ptset_latest(sb_ptset *set);
const sb_metric_val *sb_pt_metric(const sb_pt *p, const char *name);
/* Configuration identity: workload, kernel, dtype, shape, config, threads,
 * ppn, nodes, and the machine fingerprint when with_machine; a point of
 * status 'projected' (the scaling model's) never shares a key with a
 * measured one. Caller frees. */
char *sb_pt_key(const sb_pt *p, int with_machine);
/* "scalar-f32 f32 64x64x64 t2" or with " 2x4 ranks" for distributed points. */
void sb_pt_label(const sb_pt *p, char *buf, size_t cap);

#endif
