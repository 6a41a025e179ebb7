/* sb_plan_opts: the DistilBERT workloads' checks of a sweep plan's options
 * taken together, made before any point runs (what `train` and `infer`
 * would refuse one by one): their rows (sb_distilbert_rows.c) hook them
 * (sb_workload.check), so run/ calls them without naming a workload.
 * keys[i] = values[i], n of them, as the plan gives them (no dashes). */
#ifndef SB_PLAN_OPTS_H
#define SB_PLAN_OPTS_H
#include "sb_err.h"

/* The model's windows (infer, and train's too): a stride not below half the
 * seq is refused. SB_EUSAGE saying why. */
int sb_plan_check_model(const char *const *keys, const char *const *values, int n, sb_err *e);
/* Training: max-steps with time-budget, a data set without its vocab, and
 * the model's windows. SB_EUSAGE saying why. */
int sb_plan_check_train(const char *const *keys, const char *const *values, int n, sb_err *e);

#endif
