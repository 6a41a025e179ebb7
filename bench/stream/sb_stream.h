/* sb_stream: memory bandwidth, STREAM's way (McCalpin): four loops over three
 * arrays of doubles, each repeated ntimes, every repetition timed alone,
 *   copy  c = a        16 bytes an element
 *   scale b = q c      16
 *   add   c = a + b    24
 *   triad a = b + q c  24
 * and the arrays checked against the same recurrence in scalars at the end.
 * The first repetition warms up (pages, caches) and is not counted. GB/s is
 * 1e9 bytes a second. Arrays that fit in four times the last-level cache
 * measure the cache, not memory: the result says so in a warning.
 * It is the roofline's other axis: GEMM's GFLOP/s over this GB/s. */
#ifndef SB_STREAM_H
#define SB_STREAM_H
#include <jansson.h>
#include <stddef.h>
#include "sb_err.h"

enum { SB_STREAM_COPY, SB_STREAM_SCALE, SB_STREAM_ADD, SB_STREAM_TRIAD, SB_STREAM_NLOOPS };

typedef struct sb_stream_config {
    size_t mib;  /* MiB per array (three arrays) */
    int ntimes;  /* repetitions, the first not counted: 2..200 */
    int threads; /* OpenMP threads (the caller sets them) */
    unsigned long long llc_bytes; /* last-level cache, all of it; 0: unknown */
} sb_stream_config;

typedef struct sb_stream_result {
    const char *status; /* "ok", "failed" */
    char reason[256];
    char warning[256]; /* "" or why the figures are not memory's */
    size_t n;          /* elements per array */
    double *samples[SB_STREAM_NLOOPS]; /* seconds, ntimes - 1 each */
    int nsamples;
    double median_gbs[SB_STREAM_NLOOPS], best_gbs[SB_STREAM_NLOOPS];
    double max_rel_error; /* of the arrays against the scalar recurrence */
} sb_stream_result;

extern const char *const sb_stream_loop_names[SB_STREAM_NLOOPS]; /* "copy", ... */

/* Runs the four loops. SB_OK with a result (status ok, or failed when the
 * arrays came out wrong); SB_EFAIL when the arrays cannot be allocated. */
int sb_stream_run(const sb_stream_config *c, sb_stream_result *r, sb_err *e);
void sb_stream_result_free(sb_stream_result *r);
/* The result document (sb_result): config, the triad's samples, metrics
 * <loop>_gbps (median) and <loop>_best_gbps (STREAM's own figure) for every
 * loop, warnings; for the caller to seal. */
json_t *sb_stream_result_json(const sb_stream_config *c, const sb_stream_result *r);

#endif
