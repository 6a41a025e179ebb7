/* sb_report_model: the report computed, then drawn. Everything the report's
 * sections read of the store is loaded here first (sb_rp_model_load): each
 * point's result document (its config facts, implementation, latency
 * samples, recorded environment and stack), the machines' descriptions,
 * the sweeps' headers, and the two sides' environments and software
 * stacks. The sections read this model only, never the store: a read that
 * failed is kept with its error and said where the section would have
 * read it. Also what the report's driver (sb_report.c) shares with its
 * sections: the points of a section paired across the two sides and the
 * context every section is drawn with. */
#ifndef SB_REPORT_MODEL_H
#define SB_REPORT_MODEL_H
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include "sb_db.h"
#include "sb_envdiff.h"
#include "sb_err.h"
#include "sb_gate.h"
#include "sb_ptset.h"
#include "sb_query.h"
#include "sb_report_out.h"
#include "sb_stackdiff.h"

/* One read of the store, as it came back. */
typedef struct sb_rp_read {
    int64_t id;
    int rc;
    sb_err e;
    json_t *doc; /* a result or a machine; NULL: none stored */
    int found;   /* a sweep header: whether the sweep exists */
    sb_sweep_header h;
} sb_rp_read;

typedef struct sb_rp_model {
    sb_rp_read *results, *machines, *sweeps;
    int nresults, nmachines, nsweeps;
    /* the two sides' environments (sb_envmap_load: the candidate's is read
     * only when the baseline's was) and stacks (the same) */
    sb_envmap env[2];
    int env_rc;
    sb_err env_e;
    sb_stackside stack[2];
    int stack_rc[2];
    sb_err stack_e;
    char now[32]; /* when the report was made (ISO 8601 UTC) */
} sb_rp_model;

/* Loads what the sections read of the points of bs and cs, of the machines
 * machines[0..nm) and of each side's sweeps sweeps[s][0..ns[s]) (ids
 * repeat freely). Fails only for want of memory; each read's own failure
 * is kept. */
int sb_rp_model_load(sb_db *db, const sb_ptset *bs, const sb_ptset *cs, const int64_t *machines,
                     int nm, const int64_t *const sweeps[2], const int ns[2], sb_rp_model *m,
                     sb_err *e);
void sb_rp_model_free(sb_rp_model *m);

/* A point's result document (a new reference; NULL when none), with the
 * read's status and error, as sb_db_point_result gave them. */
int sb_rp_result(const sb_rp_model *m, int64_t point_id, json_t **doc, sb_err *e);
/* A machine's stored description (a copy the caller owns), as
 * sb_db_machine_info gave it. */
int sb_rp_machine(const sb_rp_model *m, int64_t machine_id, json_t **info, sb_err *e);
/* A sweep's header (a copy, freed with sb_sweep_header_free when *found),
 * as sb_db_sweep_header gave it. */
int sb_rp_sweep_header(const sb_rp_model *m, int64_t sweep_id, sb_sweep_header *h, int *found,
                       sb_err *e);
/* The differences between two points' recorded stacks (sb_stack_diff_docs). */
int sb_rp_stack_diff(const sb_rp_model *m, const sb_pt *b, const sb_pt *c, char *buf, size_t cap);
/* One key of a stored shape text ("batch=8,seq=128"): sb_db_shape_value. */
int sb_rp_shape_value(const char *shape, const char *key, char *buf, size_t cap);

/* What the headline and the sections around it read (sb_report_headline,
 * _amx, _best, _profile, and the training runs of sb_report_trun). */
typedef struct sb_headline_in {
    const sb_rp_model *m;      /* what the sections read of the store, loaded */
    const sb_ptset *bs, *cs;   /* the latest point per configuration, each side */
    const char *bname, *cname; /* "Zen 4", "Emerald Rapids" */
    const sb_gate_opts *go;
    const char *study_csv; /* the published figures (NULL: the source tree's) */
} sb_headline_in;

/* Points of one section, matched across the two sides by configuration. */
typedef struct sb_rp_pair {
    const sb_pt *b, *c;
} sb_rp_pair;

struct sb_report_summary;
/* What every comparison section may read: each takes what it needs, so
 * that all of them share one signature and sb_report_write is one loop. */
typedef struct sb_rp_ctx {
    sb_rp_out *o;
    sb_rp_plots *pl;
    const sb_rp_model *m; /* for what the point set does not hold (a result's extras) */
    const sb_ptset *bs, *cs;
    const char *bname, *cname;     /* plot legends: the side and its machine */
    struct sb_report_summary *sum; /* training leaves its headline ratio here */
} sb_rp_ctx;

/* The points of both sides that want() takes (models: the scaling model's
 * points too), paired by configuration (sb_pt_key); returns the number of
 * pairs, *pairs the caller's to free. */
int sb_rp_pairs_of(const sb_ptset *bs, const sb_ptset *cs, int (*want)(const sb_pt *), int models,
                   sb_rp_pair **pairs);

#endif
