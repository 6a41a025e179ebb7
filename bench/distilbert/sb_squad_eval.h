/* sb_squad_eval: from per-feature start/end logits to one answer per question
 * (utils_qa.postprocess_qa_predictions of Hugging Face's run_qa.py, SQuAD v1.1:
 * n-best start and end indices per window, spans of context tokens only, end
 * >= start, length <= max_answer_length, best start+end logit over all windows
 * of a question, text cut from the original context by code-point offsets),
 * and the official SQuAD v1.1 scores (evaluate-v1.1.py): normalised exact
 * match and token F1, max over ground truths, averaged x100. Predictions files
 * are JSON objects id -> text. */
#ifndef SB_SQUAD_EVAL_H
#define SB_SQUAD_EVAL_H
#include <stddef.h>
#include <stdint.h>
#include "sb_err.h"
#include "sb_features.h"
#include "sb_squad.h"

typedef struct sb_squad_predictions {
    int32_t n;
    char **ids;   /* owned */
    char **texts; /* owned */
} sb_squad_predictions;

#define SB_SQUAD_N_BEST 20
#define SB_SQUAD_MAX_ANSWER_LEN 30

/* logits: [f->n][f->max_seq] each; f must be built with is_eval. One
 * prediction per example of set, in example order. */
int sb_squad_postprocess(const sb_squad_set *set, const sb_features *f, const float *start_logits,
                         const float *end_logits, int n_best, int max_answer_len,
                         sb_squad_predictions *out, sb_err *e);

/* Official v1.1 scores in percent. Unanswered questions score 0; predictions
 * for ids not in set are ignored. n_answered (may be NULL) counts questions
 * with a prediction. A set without questions scores 0. */
void sb_squad_score(const sb_squad_set *set, const sb_squad_predictions *p, double *em, double *f1,
                    int32_t *n_answered);

/* sb_squad_score of a data file (SQuAD v1.1 JSON with answers) and a
 * predictions file; *n_questions counts the file's questions. */
int sb_squad_score_files(const char *data_path, const char *pred_path, double *em, double *f1,
                         int32_t *n_answered, int32_t *n_questions, sb_err *e);

/* Per-answer metrics (1/0 and [0,1]) and the normalisation (malloc'd). */
char *sb_squad_normalize(const char *s);
int sb_squad_exact_match(const char *prediction, const char *truth);
double sb_squad_f1(const char *prediction, const char *truth);

int sb_squad_predictions_read(const char *path, sb_squad_predictions *p, sb_err *e);
int sb_squad_predictions_write(const char *path, const sb_squad_predictions *p, sb_err *e);
/* Adds (copies) one prediction. */
int sb_squad_predictions_add(sb_squad_predictions *p, const char *id, const char *text, sb_err *e);
void sb_squad_predictions_free(sb_squad_predictions *p);

/* Formats a double as Python's repr() does (shortest round-trip, "100.0"). */
void sb_format_pyfloat(double x, char *buf, size_t len);

#endif
