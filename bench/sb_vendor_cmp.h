/* sb_vendor_cmp: our best own kernel against the faster vendor, the one rule
 * every own-versus-vendor figure follows (the sweep's closing table, the
 * report's view, the docs). At each point (precision, shape, threads, ranks)
 * the vendor is whichever vendor kernel (sb_vendor_of_kernel: oneDNN's
 * onednn-*, MKL's mkl-*) has the higher median there, so that our kernels are
 * never measured against a vendor's weaker library when its other one is
 * faster; the other vendor is kept to be shown beside it. Pure: the callers
 * bring the entries (the sweep's summary rows, the report's point sets) and
 * write the rows their way; in bench/, a floor below run/ and study/,
 * because both follow it (as sb_paired). */
#ifndef SB_VENDOR_CMP_H
#define SB_VENDOR_CMP_H
#include <stddef.h>

/* One measured (or not) kernel at one point. value: its median rate, higher
 * is better; <= 0 when it did not run there (skipped, failed). Entries with
 * an empty dtype (a peak probe) belong to no comparison. */
typedef struct sb_vcmp_entry {
    const char *kernel, *dtype, *shape;
    int threads, ppn, nodes;
    double value;
} sb_vcmp_entry;

/* One point of the comparison; every field an index into the entries. */
typedef struct sb_vcmp_row {
    int first;  /* the point's first entry: its dtype, shape, threads, ranks */
    int own;    /* our fastest kernel there; -1: none of ours ran */
    int vendor; /* the faster vendor's fastest kernel; -1: no vendor ran */
    int other;  /* the other vendor's fastest there; -1: it did not run */
} sb_vcmp_row;

/* The points, by precision (f32, bf16, int8, others), shape, nodes, ppn and
 * threads, of every precision at which a vendor kernel was at least tried
 * (an entry of any value), so a precision with no vendor planned gets no
 * rows of "none ran". *rows NULL when there are none; -1 when out of
 * memory. Caller frees *rows. */
int sb_vcmp_rows(const sb_vcmp_entry *e, int n, sb_vcmp_row **rows, int *nrows);

/* Whether entries a and b are the same point (dtype, shape, threads, ranks). */
int sb_vcmp_same_point(const sb_vcmp_entry *a, const sb_vcmp_entry *b);

/* "MKL (mkl-bf16)"; the kernel alone when it is no vendor's. */
const char *sb_vcmp_name(const char *kernel, char *buf, size_t cap);

/* What the kernels of a vendor that did not run at a row's point were:
 * "mkl-int8 skipped, onednn-int8 failed" from the statuses the caller
 * gives (NULL: "did not run"), "" when none was tried. */
void sb_vcmp_not_run(const sb_vcmp_entry *e, const char *const *status, int n, const sb_vcmp_row *r,
                     char *buf, size_t cap);

#endif
