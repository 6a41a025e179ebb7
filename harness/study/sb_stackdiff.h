/* sb_stackdiff: the software stack of the two sides of a report, read back
 * from the "stack" every result document records (bench/sb_stack), for the
 * environment section's side-by-side table and the headline's clause naming
 * the differences that could explain a gap.
 *
 * A side is many points, possibly of several sweeps: each field shows its
 * distinct values (with their point counts when there are several). A point
 * whose result has no "stack" (an older record) is "not recorded", never
 * filled in; a field a recorded stack lacks was "not readable" there. */
#ifndef SB_STACKDIFF_H
#define SB_STACKDIFF_H
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include "sb_db.h"
#include "sb_err.h"
#include "sb_ptset.h"

typedef struct sb_stackside {
    int points;     /* points read (those that ran ok) */
    int unrecorded; /* of them, without a recorded stack */
    json_t *vals;   /* field key -> {value -> points}; "" stands for not readable */
} sb_stackside;

/* Reads the stack of every ok point of set (read only, bound parameters). */
int sb_stackside_load(sb_db *db, const sb_ptset *set, sb_stackside *s, sb_err *e);
void sb_stackside_free(sb_stackside *s);
/* One field of a side in words: "3.2.0", "not readable", "not recorded",
 * "2.6.3 (12 points), 3.2.0 (4 points)", "...; not recorded for 3 points". */
void sb_stackside_cell(const sb_stackside *s, const char *key, char *buf, size_t cap);
/* Whether the two sides show a field differently (both recorded and read
 * it: "not readable" on either side is unknown, not a difference). */
int sb_stackside_differs(const sb_stackside *b, const sb_stackside *c, const char *key);

/* Which fields can change the figures of two points (SB_STACK_* bits): the
 * machine's always, the compiler's for the project's own kernels, a
 * vendor's for its kernels, MPI's where either ran more than one rank. */
int sb_stack_relevant(const char *kernel_b, const char *kernel_c, int ranks_b, int ranks_c);
/* The differences between two recorded stacks among the relevant fields,
 * candidate first as the report's other comparisons ("oneDNN 3.2.0 vs 2.6.3
 * and THP always vs madvise"), into buf; the number of fields named. A
 * field either side did not record is not named: nothing is guessed. */
int sb_stack_diff_words(const json_t *b, const json_t *c, int relevant, char *buf, size_t cap);
/* The same for two points, given their result documents (0 when either
 * recorded no stack, or has no document). */
int sb_stack_diff_docs(const json_t *docb, const json_t *docc, const sb_pt *b, const sb_pt *c,
                       char *buf, size_t cap);

#endif
