/* sb_squad_synth: a deterministic synthetic SQuAD-format data set for runs and
 * tests without the real files. Each paragraph states 3-5 facts "<Name> likes
 * <value>." whose values are of distinct kinds (a color, a city, a sport...),
 * and each question asks "Which <kind> does <Name> like?" with the value of
 * that kind as the answer span (one word): a tiny transformer trained from
 * scratch learns it (match the question's kind to the value's). Every word is
 * a whole token of bert-base-uncased's vocab and of sb_vocab_builtin_synth().
 * With SB_SYNTH_SHORT, paragraphs are 12-20 tokens, so max_seq 32 holds a
 * question and its context (`--model tiny` learns that set). With
 * SB_SYNTH_SQUAD, filler sentences ("Tom saw the book near the door today.",
 * no value and no attribute in them) and a question tail ("... like near the
 * station today?") stretch each paragraph and question to a token length
 * drawn from SQuAD v1.1 dev's (sb_squad_synth.c states the table and its
 * source), so features at seq 384 / stride 128 have SQuAD's padding
 * (SB_SQUAD_DEV_PADDING_PCT). */
#ifndef SB_SQUAD_SYNTH_H
#define SB_SQUAD_SYNTH_H
#include <stdint.h>
#include <jansson.h>
#include "sb_err.h"
#include "sb_squad.h"
#include "sb_squad_v11.h"
#include "sb_tokenizer.h"

/* How long paragraphs and questions are (see above). */
typedef enum sb_synth_lengths { SB_SYNTH_SHORT = 0, SB_SYNTH_SQUAD = 1 } sb_synth_lengths;

/* The official JSON layout ("version": "1.1", data[].paragraphs[]...) with
 * n_questions questions. The same (n_questions, seed, dev) gives the same
 * bytes. dev != 0 draws from a separate random stream (a held-apart split:
 * other paragraphs, same word lists and pattern); question ids are
 * "synth-<seed>-<n>" or "synth-dev-<seed>-<n>". */
int sb_squad_synth_json(int32_t n_questions, uint64_t seed, int dev, sb_synth_lengths lengths,
                        json_t **doc, sb_err *e);
int sb_squad_synth(int32_t n_questions, uint64_t seed, int dev, sb_synth_lengths lengths,
                   sb_squad_set *set, sb_err *e);
int sb_squad_synth_write(const char *path, int32_t n_questions, uint64_t seed, int dev,
                         sb_synth_lengths lengths, sb_err *e);

/* The synthetic word list (NULL-terminated), for the built-in vocab. */
const char *const *sb_squad_synth_words(void);

/* A small vocabulary (400 tokens) for runs without vocab.txt: every word of
 * the synthetic SQuAD set (sb_squad_synth) as a whole token, plus ASCII
 * letters, digits and punctuation (letters and digits also as ## pieces) so
 * any ASCII text tokenizes without [UNK]. The filler words come last, so
 * the short set's words kept their ids when they came. Ids are its own, not
 * bert-base-uncased's: [PAD]=0, [UNK]=1, [CLS]=2, [SEP]=3, [MASK]=4.
 * `sprbench squad-synth --write-vocab FILE` writes it as a vocab.txt. */
int sb_vocab_builtin_synth(sb_vocab *v, sb_err *e);

#endif
