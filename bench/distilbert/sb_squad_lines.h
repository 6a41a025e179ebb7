/* sb_squad_lines: the SQuAD data path as JSON lines, the work of `sprbench
 * tokenize` and `sprbench features` (one tokenised text, one feature per
 * line) and the vocabulary `squad-synth --write-vocab` writes. Lines are
 * written by hand into a growable buffer: jansson would allocate a node per
 * number, far too slow for 88k x 384 ids; strings still go through
 * jansson's encoder. */
#ifndef SB_SQUAD_LINES_H
#define SB_SQUAD_LINES_H
#include <stddef.h>
#include <stdio.h>
#include "sb_err.h"
#include "sb_features.h"
#include "sb_io.h"
#include "sb_squad.h"
#include "sb_tokenizer.h"

/* `tokenize`: every line of in (its newline removed) as one line of out
 *   {"ids": [...], "tokens": [...], "offsets": [[start, end], ...]}
 * A line is a text; with pair, QUESTION<TAB>CONTEXT; with json_in a JSON
 * string (pair: an array of two strings). Stops at the first line that is
 * not so, or that the tokenizer refuses: SB_EUSAGE "stdin line N: why". A
 * line longer than SB_TOKENIZE_LINE_MAX is refused, so an input without
 * newlines (< /dev/zero) cannot take all memory. A write failure is SB_EFAIL
 * "stdout: write failed". */
#define SB_TOKENIZE_LINE_MAX (16 * SB_MIB)
int sb_tokenize_stream(const sb_vocab *v, FILE *in, FILE *out, int pair, int json_in, sb_err *e);

/* `features`: the vocabulary, the data set and its features, with what
 * reading and featurising took. */
typedef struct sb_features_job {
    sb_vocab vocab;
    sb_squad_set set;
    sb_features f;
    double read_s, build_s; /* seconds: the JSON read; tokenised + featurised */
    long json_bytes;        /* the data file's size */
} sb_features_job;
/* Loads vocab_path and data_path and builds the features (errors of the
 * build name data_path). j is freed on failure. */
int sb_features_job_run(sb_features_job *j, const char *vocab_path, const char *data_path,
                        int32_t max_seq, int32_t stride, int is_eval, sb_err *e);
void sb_features_job_free(sb_features_job *j);

/* Every feature of f as one JSON line with Hugging Face's field names:
 * example_id, input_ids, attention_mask, then offset_mapping (eval) or
 * start_positions/end_positions (training), into the open sink s (not
 * committed). */
int sb_features_write(sb_out *s, const sb_squad_set *set, const sb_features *f, sb_err *e);

/* The vocabulary in vocab.txt's format (one token per line), atomically. */
int sb_vocab_write(const char *path, const sb_vocab *v, sb_err *e);

#endif
