#include "sb_gemm_doc.h"
#include <ctype.h>
#include <stdio.h>
#include "sb_result.h"

json_t *sb_gemm_doc(const sb_gemm_config *cfg, sb_gemm_result *res, const char *fingerprint)
{
    char reps[16], m[16], n[16], k[16], t[16], trans[3] = {cfg->transa, cfg->transb, 0};
    snprintf(reps, sizeof reps, "%d",
             res->nsamples > 0 ? res->nsamples : (cfg->reps > 0 ? cfg->reps : 5));
    snprintf(m, sizeof m, "%d", cfg->m);
    snprintf(n, sizeof n, "%d", cfg->n);
    snprintf(k, sizeof k, "%d", cfg->k);
    snprintf(t, sizeof t, "%d", cfg->threads);
    char *rv[24] = {"gemm",    "--kernel", (char *)cfg->kernel, "--m", m,        "--n", n, "--k", k,
                    "--trans", trans,      "--threads",         t,     "--reps", reps};
    int rn = 15;
    if (cfg->onednn_isa) {
        rv[rn++] = "--onednn-isa";
        rv[rn++] = (char *)cfg->onednn_isa;
    }
    if (cfg->prepack) rv[rn++] = "--prepack";
    /* the blocking as it ran: the sealed command repeats it exactly */
    if (res->blocking[0]) {
        rv[rn++] = "--blocking";
        rv[rn++] = res->blocking;
    }
    rv[rn] = NULL;
    json_t *doc = sb_gemm_result_json(cfg, res);
    /* what this run put in force itself: the thread count it set, and the
     * oneDNN cap --onednn-isa applied (over the variable's own value) */
    char omp[32], isa[96];
    snprintf(omp, sizeof omp, "OMP_NUM_THREADS=%d", cfg->threads);
    const char *set[3] = {omp, NULL, NULL};
    if (cfg->onednn_isa) {
        int w = snprintf(isa, sizeof isa, "ONEDNN_MAX_CPU_ISA=");
        for (const char *ch = cfg->onednn_isa; *ch && w < (int)sizeof isa - 1; ch++)
            isa[w++] = (char)toupper((unsigned char)*ch);
        isa[w] = '\0';
        set[1] = isa;
    }
    sb_result_seal(doc, rn, rv, set, fingerprint);
    return doc;
}
