/* sb_gemm_doc: the worker's result document of one GEMM run, sealed
 * (sb_result_seal) with the command that repeats the run exactly: the
 * sizes, the repetitions and the blocking as they ran, and what the run
 * put in force itself (OMP_NUM_THREADS, the oneDNN ISA cap). */
#ifndef SB_GEMM_DOC_H
#define SB_GEMM_DOC_H
#include <jansson.h>
#include "sb_gemm_bench.h"

/* The document of cfg's run (res), sealed; fingerprint: this machine's, or
 * NULL when unknown. The caller owns it. */
json_t *sb_gemm_doc(const sb_gemm_config *cfg, sb_gemm_result *res, const char *fingerprint);

#endif
