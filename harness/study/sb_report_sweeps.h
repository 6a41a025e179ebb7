/* sb_report_sweeps: which sweeps a side's figures come from. A side named
 * by its machine takes every sweep of it; where several ran one
 * configuration, the one started last is used (sb_ptset_latest, by the
 * sweep's start time, ties by uuid: never the order of import). This says
 * so: the "Sweeps used" line (each sweep with its start time and how many
 * of its points are used, a sweep whose every configuration ran again later
 * included), and a clause beside a figure whose point had rivals. */
#ifndef SB_REPORT_SWEEPS_H
#define SB_REPORT_SWEEPS_H
#include <stddef.h>
#include <stdint.h>
#include "sb_ptset.h"
#include "sb_report_model.h"
#include "sb_report_out.h"

/* The distinct sweeps of a set (before sb_ptset_latest), in its order (by
 * time). Caller frees; NULL (and *n 0) when none or out of memory. */
int64_t *sb_rp_sweeps_of(const sb_ptset *set, int *n);
/* "sweep 5 default-gemm (sprbench 520ea93, started 2026-12-03T03:47:38Z,
 * 89 point(s)), ..." ("none used: ..." for a sweep whose every
 * configuration a later one ran) for every sweep in all[] (nall), counting the
 * points of kept (after sb_ptset_latest) each gave. */
void sb_rp_sweeps_used(sb_rp_out *o, const sb_rp_model *m, const int64_t *all, int nall,
                       const sb_ptset *kept, char *buf, size_t cap);
/* Beside a figure: "the candidate's GEMM points are sweep 1 default-gemm's
 * (started ...), the newest of the 2 sweeps of that side that ran them"
 * for the points of set that want() takes and that several of the side's
 * sweeps ran; "" when none did. side: "baseline" or "candidate"; what:
 * "GEMM points", "amx-bf16 point". */
void sb_rp_sweep_choice(const sb_rp_model *m, const sb_ptset *set, int (*want)(const sb_pt *),
                        const char *side, const char *what, char *buf, size_t cap);
/* The headline's: " The candidate's point is from sweep 4 ... ." for each
 * of b and c (either NULL) that several sweeps of its side ran; "" else. */
void sb_rp_headline_sweeps(const sb_rp_model *m, const sb_pt *b, const sb_pt *c, char *buf,
                           size_t cap);

#endif
