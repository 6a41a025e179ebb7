/* sb_tune_shapes: the shapes `sprbench tune --shapes LIST` names: 'square'
 * (NN 1024^3 and 2048^3), 'distilbert' (its 12 training GEMM classes) and
 * MxNxK[:XY][@T] (bench/sb_shape; the old XY:MxNxK is still read), one per
 * shape class (a later shape of a class already listed is left out). */
#ifndef SB_TUNE_SHAPES_H
#define SB_TUNE_SHAPES_H
#include "sb_err.h"

#define SB_TUNE_MAX_SHAPES 64

typedef struct sb_tune_shape {
    char ta, tb;
    int m, n, k, threads; /* threads 0: --threads */
} sb_tune_shape;

/* The shapes of list into s (room for SB_TUNE_MAX_SHAPES), *n of them;
 * SB_EUSAGE "--shapes: ..." for what it cannot take. */
int sb_tune_shapes_parse(const char *list, sb_tune_shape *s, int *n, sb_err *e);

#endif
