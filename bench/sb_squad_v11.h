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

#endif
