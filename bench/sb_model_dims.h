/* sb_model_dims: DistilBERT's sizes as the harness asks for them. run/,
 * study/ and store/ see no workload folder (tests/layout.sh), so what they
 * need of the model's shapes (bench/distilbert/sb_shapes) comes through
 * here. */
#ifndef SB_MODEL_DIMS_H
#define SB_MODEL_DIMS_H
#include "sb_shape.h"

#define SB_MODEL_LINEAR_SHAPES 3
/* The base model's attention output, FFN up and FFN down at batch x seq
 * tokens, as their forward GEMMs' sizes (tokens x out x in), no transposes
 * given: a sweep's default shapes. Returns SB_MODEL_LINEAR_SHAPES. */
int sb_model_linear_shapes(int batch, int seq, sb_shape out[SB_MODEL_LINEAR_SHAPES]);

#endif
