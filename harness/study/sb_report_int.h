/* sb_report_int: what the report's driver (sb_report.c) shares with its
 * section files (sb_report_gemm, _train, _infer, _scaling, _peaks, _other,
 * _machines): the points of a section paired across the two sides, the
 * context every section is rendered with, and the pairing itself. */
#ifndef SB_REPORT_INT_H
#define SB_REPORT_INT_H
#include "sb_db.h"
#include "sb_ptset.h"
#include "sb_report.h"
#include "sb_report_out.h"

/* Points of one section, matched across the two sides by configuration. */
typedef struct sb_rp_pair {
    const sb_pt *b, *c;
} sb_rp_pair;

/* What every comparison section may read: each takes what it needs, so
 * that all of them share one signature and sb_report_write is one loop. */
typedef struct sb_rp_ctx {
    sb_rp_out *o;
    sb_rp_plots *pl;
    sb_db *db; /* for what the point set does not hold (a result's extras) */
    const sb_ptset *bs, *cs;
    const char *bname, *cname; /* plot legends: the side and its machine */
    sb_report_summary *sum;    /* training leaves its headline ratio here */
} sb_rp_ctx;

/* The points of both sides that want() takes (models: the scaling model's
 * points too), paired by configuration (sb_pt_key); returns the number of
 * pairs, *pairs the caller's to free. */
int sb_rp_pairs_of(const sb_ptset *bs, const sb_ptset *cs, int (*want)(const sb_pt *), int models,
                   sb_rp_pair **pairs);

#endif
