/* sb_allreduce_job: `sprbench allreduce`'s run as a job: MPI brought up (when
 * the caller has not), the world it runs in (ranks, nodes, ranks per node,
 * each rank's host, the MPI library), the timed sizes (sb_allreduce_run) and
 * the result document rank 0 writes. */
#ifndef SB_ALLREDUCE_JOB_H
#define SB_ALLREDUCE_JOB_H
#include <jansson.h>
#include <mpi.h>
#include "sb_allreduce.h"
#include "sb_err.h"

typedef struct sb_allreduce_job {
    size_t *sizes; /* owned: sb_allreduce_parse_sizes's */
    int nsizes;
    long iters, warmup;
    /* what the run found */
    int rank, world, nodes, local_size;
    int mpi_started; /* this job initialised MPI (and finalises it) */
    char *hosts;     /* rank 0: world names of MPI_MAX_PROCESSOR_NAME bytes */
    char mpi_library[MPI_MAX_LIBRARY_VERSION_STRING]; /* "Open MPI v4.1.4" */
    sb_allreduce_row *rows;                           /* nsizes */
    double *samples; /* rank 0's per-call seconds at samples_of_bytes */
    int nsamples;
} sb_allreduce_job;

/* Initialises MPI when needed, finds the world and times every size on
 * MPI_COMM_WORLD. The world is known (and the job must be finished) even when
 * the timing fails. */
int sb_allreduce_job_run(sb_allreduce_job *j, sb_err *e);
/* Frees the job and finalises MPI when the job started it. */
void sb_allreduce_job_finish(sb_allreduce_job *j);

/* Rank 0's result document: status "ok", or "failed" with reason (the
 * metrics and table then empty); config (sizes, iters, warmup, op, datatype,
 * grad_bytes, samples_of_bytes, mpi_library, hosts), metrics lat_us_<bytes>
 * ... busbw_gbs_<bytes> (and _grad), the table, OMPI_MCA_* as mpi_env;
 * sealed with argv and the fingerprint. */
json_t *sb_allreduce_result_json(const sb_allreduce_job *j, const char *reason, int argc,
                                 char *const argv[], const char *fingerprint);

#endif
