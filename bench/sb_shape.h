/* sb_shape: a GEMM shape as a person writes it, in one grammar:
 *
 *   MxNxK[:XY][@T]      M, N, K in [1, SB_SHAPE_MAX_DIM]; XY the transposes
 *                       of A and B (NN, NT, TN, TT; default NN); @T the
 *                       threads for that shape (the tuner's addition)
 *   MxNxK[:XY][+prepack]  the form the sweep stores a GEMM point's shape in
 *                       and passes to `gemm --shape`: B packed once
 *   XY MxNxK            the tune file's entries (written so since schema 1)
 *
 * The plan's `shapes`, `sweep --shapes`, `gemm --shape`, `tune --shapes`,
 * the tune file's entries and the paired runner's check of a stored point
 * all read it here; a caller says which additions it takes. */
#ifndef SB_SHAPE_H
#define SB_SHAPE_H
#include <stddef.h>
#include "sb_err.h"

/* The largest M, N or K anything accepts. */
#define SB_SHAPE_MAX_DIM 65536

typedef struct sb_shape {
    int m, n, k;
    char transa, transb; /* 'N' or 'T'; 0 where the text gave none */
    int threads;         /* @T; 0 where the text gave none */
    int prepack;         /* +prepack; 0 where the text gave none */
} sb_shape;

enum {
    SB_SHAPE_THREADS = 1, /* @T may follow */
    SB_SHAPE_PREFIX = 2,  /* the tuner's old spelling XY:MxNxK is taken too */
    SB_SHAPE_PREPACK = 4, /* +prepack may follow (the stored form) */
    SB_SHAPE_FILE = 8,    /* the tune file's "XY MxNxK": transposes first, a space */
};

/* Parses s into *out by the grammar above with the additions in flags.
 * Errors (SB_EUSAGE), for the caller to prefix with where it read s:
 *   "shape: 'S' is not MxNxK", "shape dimension: ..." (a bad M, N or K),
 *   "'XY' is not a transpose (NN, NT, TN, TT)",
 *   "thread count: ..." (a bad @T, in [1, 4096]),
 *   with SB_SHAPE_PREPACK: "shape: 'S' is not MxNxK[:TT][+prepack]" (too
 *   long, or anything but +prepack after a '+'). */
int sb_shape_parse(const char *s, int flags, sb_shape *out, sb_err *e);

/* The shape as the sweep keeps it: "MxNxK:XY" (NN where it gave no
 * transposes), "+prepack" after it where prepack is set. */
void sb_shape_format(const sb_shape *s, char *buf, size_t cap);

#endif
