/* libFuzzer: the SQuAD reader on arbitrary bytes, then (when it accepts
 * them) features for training and evaluation, post-processing and scoring.
 * Checks that labels and offsets stay in range. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sb_features.h"
#include "sb_squad.h"
#include "sb_squad_eval.h"
#include "sb_squad_synth.h"

static sb_vocab g_vocab;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sb_err e = {0};
    if (sb_vocab_builtin_synth(&g_vocab, &e)) abort();
    return 0;
}

/* libFuzzer's entry point (it declares none). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sb_squad_set set;
    sb_err e = {0};
    if (sb_squad_parse((const char *)data, size, "fuzz.json", &set, &e) != SB_OK) {
        if (strncmp(e.msg, "fuzz.json: ", 11)) abort(); /* every refusal names the file */
        return 0;
    }
    enum { L = 64, STRIDE = 16 };
    sb_features tr, ev;
    if (sb_features_build(&g_vocab, &set, L, STRIDE, 0, &tr, &e) == SB_OK) {
        for (int32_t i = 0; i < tr.n; i++) {
            if (tr.start_positions[i] < 0 || tr.start_positions[i] >= L) abort();
            if (tr.end_positions[i] < 0 || tr.end_positions[i] >= L) abort();
            if (tr.example_index[i] < 0 || tr.example_index[i] >= set.n_examples) abort();
        }
        sb_features_free(&tr);
    }
    if (sb_features_build(&g_vocab, &set, L, STRIDE, 1, &ev, &e) == SB_OK) {
        float *logits = calloc((size_t)ev.n * L + 1, sizeof(float));
        for (size_t k = 0; k < (size_t)ev.n * L; k++) logits[k] = (float)((k * 2654435761u) % 17);
        sb_squad_predictions p;
        if (sb_squad_postprocess(&set, &ev, logits, logits, 20, 30, &p, &e) == SB_OK) {
            if (p.n != set.n_examples) abort();
            double em, f1;
            sb_squad_score(&set, &p, &em, &f1, NULL);
            if (!(em >= 0 && em <= 100 && f1 >= 0 && f1 <= 100)) abort();
            sb_squad_predictions_free(&p);
        }
        free(logits);
        sb_features_free(&ev);
    }
    sb_squad_free(&set);
    return 0;
}
