/* sb_checkpoint: a Hugging Face DistilBERT checkpoint (sb_hf: config.json +
 * model.safetensors) to and from the model (sb_model). sb_hf knows the file
 * format only; this module knows both sides and owns what may differ
 * between them (activation, position embeddings, tensor sizes). */
#ifndef SB_CHECKPOINT_H
#define SB_CHECKPOINT_H
#include "sb_err.h"
#include "sb_hf.h"
#include "sb_model.h"

/* The model's shape from a checkpoint's config (dir names it in messages).
 * SB_EUSAGE for what the model cannot run (an activation other than gelu,
 * sinusoidal positions) or a shape sb_model_config_check refuses. */
int sb_checkpoint_model_config(const sb_distilbert_config *h, const char *dir, sb_model_config *c,
                               sb_err *e);
/* A checkpoint's config for the model's shape. */
void sb_checkpoint_hf_config(const sb_model_config *c, sb_distilbert_config *h);
/* Copies the checkpoint's tensors into the model's parameters (qa_outputs
 * kept as initialised when the checkpoint has no QA head). SB_EUSAGE when a
 * tensor does not fit the model. */
int sb_checkpoint_load(sb_model *m, const sb_hf_model *hf, const char *dir, sb_err *e);
/* Writes the model as a checkpoint directory (sb_hf_write_dir). */
int sb_checkpoint_save(const sb_model *m, const char *dir, sb_err *e);

#endif
