/* sb_features: SQuAD examples -> model features exactly as Hugging Face's
 * run_qa.py makes them (prepare_train_features / prepare_validation_features
 * with pad_to_max_length): question with leading whitespace stripped,
 * [CLS] question [SEP] context [SEP], only the context truncated into windows
 * that overlap by `stride` tokens, padded to max_seq. Context tokenizations are
 * shared by the questions of a paragraph. */
#ifndef SB_FEATURES_H
#define SB_FEATURES_H
#include <stdint.h>
#include "sb_err.h"
#include "sb_squad.h"
#include "sb_tokenizer.h"

typedef struct sb_features {
    int32_t n; /* number of features (windows) */
    int32_t max_seq;
    int is_eval;
    int32_t *input_ids;      /* [n][max_seq], [PAD] after the last [SEP] */
    uint8_t *attention_mask; /* [n][max_seq], 1 real token, 0 padding */
    uint8_t *token_type_ids; /* [n][max_seq], 0 question part, 1 context part */
    /* Token positions of the answer (first answer of the example), or 0 (the
     * [CLS] index) when it is not wholly inside the window. Filled for eval
     * features too (run_qa.py has none there; handy for an eval loss). */
    int32_t *start_positions; /* [n] */
    int32_t *end_positions;   /* [n] */
    int32_t *example_index;   /* [n] -> sb_squad_set.examples */
    /* Eval only (NULL otherwise): code-point offsets into the example's
     * context of each context token, -1/-1 for every other token. */
    int32_t *offset_start;         /* [n][max_seq] */
    int32_t *offset_end;           /* [n][max_seq] */
    int32_t n_truncated_questions; /* questions cut so a window keeps > stride tokens */
} sb_features;

/* max_seq >= 8, 0 <= stride < max_seq/2. Deterministic; single-threaded. */
int sb_features_build(const sb_vocab *v, const sb_squad_set *set, int32_t max_seq, int32_t stride,
                      int is_eval, sb_features *f, sb_err *e);
void sb_features_free(sb_features *f);

#endif
