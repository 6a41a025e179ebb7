/* sb_gate_match: which points of two sets are one configuration. Owns the
 * groups (the indexes of a set's points sorted by their key, sb_pt_key,
 * with or without the machine), finding a key's run of points, the point
 * that stands for a run, and the measured view of a set (the scaling
 * model's projected points left out). */
#ifndef SB_GATE_MATCH_H
#define SB_GATE_MATCH_H
#include "sb_err.h"
#include "sb_ptset.h"

/* Groups: indexes of points per key, sorted by key. */
typedef struct sb_gate_group {
    char *key;
    int idx;
} sb_gate_group;

/* s->n groups sorted by key (then index); NULL when memory runs out. */
sb_gate_group *sb_gate_groups_make(const sb_ptset *s, int with_machine);
void sb_gate_groups_free(sb_gate_group *g, int n);
/* [*first, *end) of the run with `key`, or *first = -1 */
void sb_gate_group_find(const sb_gate_group *g, int n, const char *key, int *first, int *end);
/* The representative point of a run: newest ok, else newest. */
const sb_pt *sb_gate_group_pick(const sb_ptset *s, const sb_gate_group *g, int first, int end);
/* 1 when a point of s ran on the machine fp. */
int sb_gate_has_machine(const sb_ptset *s, const char *fp);
/* The measured points of a set, as a shallow view (free only view->p): the
 * scaling model's points (status 'projected') ran nothing, so they are
 * never a baseline, a candidate or a missing point. */
int sb_gate_measured_view(const sb_ptset *in, sb_ptset *view, sb_err *e);

#endif
