#include "sb_plan_opts.h"
#include <stdlib.h>
#include <string.h>

static const char *opt_of(const char *const *keys, const char *const *values, int n,
                          const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(keys[i], key)) return values[i];
    return NULL;
}

int sb_plan_check_model(const char *const *keys, const char *const *values, int n, sb_err *e)
{
    const char *seq = opt_of(keys, values, n, "seq"), *stride = opt_of(keys, values, n, "stride");
    if (seq && stride && atol(stride) >= atol(seq) / 2)
        return sb_errf(e, SB_EUSAGE, "stride %s must be below half of seq %s", stride, seq);
    return SB_OK;
}

int sb_plan_check_train(const char *const *keys, const char *const *values, int n, sb_err *e)
{
    const char *data = NULL;
    for (int i = 0; i < n; i++)
        if (!strcmp(keys[i], "train") || !strcmp(keys[i], "dev")) data = keys[i];
    if (opt_of(keys, values, n, "max-steps") && opt_of(keys, values, n, "time-budget"))
        return sb_errf(e, SB_EUSAGE, "max-steps and time-budget exclude each other");
    if (data && !opt_of(keys, values, n, "vocab"))
        return sb_errf(e, SB_EUSAGE, "%s needs vocab (the checkpoint's vocab.txt)", data);
    return sb_plan_check_model(keys, values, n, e);
}
