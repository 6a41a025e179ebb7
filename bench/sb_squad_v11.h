/* sb_squad_v11: what the trainer's synthetic set (bench/distilbert) and the
 * report (harness/study) both take of real SQuAD v1.1. */
#ifndef SB_SQUAD_V11_H
#define SB_SQUAD_V11_H

/* The padding (% of positions) of SQuAD v1.1 dev's training features at
 * seq 384 / stride 128, bert-base-uncased's vocab: 1,190 dev questions (all
 * 48 dev articles, XQuAD's English file) give 1,219 features, 53.2 %
 * padding (measured with `sprbench features`; tests/test_squad_synth.c
 * measures it again where the reference data is present). */
#define SB_SQUAD_DEV_PADDING_PCT 53.2

/* SQuAD v1.1 train-v1.1.json through run_qa.py's windowing at max_seq_length
 * 384 and doc_stride 128 with the bert-base-uncased vocabulary: 88,524
 * features from 87,599 questions (results/reference/README.md; `sprbench
 * features --count-only` checks it on the real files). */
#define SB_SQUAD_V11_TRAIN_FEATURES 88524L
#define SB_SQUAD_V11_TRAIN_QUESTIONS 87599L

#endif
