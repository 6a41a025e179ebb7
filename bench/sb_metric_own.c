#include "sb_metric_own.h"
#include <stddef.h>

const sb_metric_info sb_metric_own_layernorm[] = {
    {"ns_per_row", "ns/row", NULL, 1 /* lower is better */, SB_MROLE_HEADLINE, SB_MSTAR_NONE},
    {"layernorm_gbps", "GB/s", NULL, 0, SB_MROLE_RATE, SB_MSTAR_NONE},
    {"max_abs_error", "", NULL, 1, SB_MROLE_ERROR, SB_MSTAR_NONE},
    {NULL, NULL, NULL, 0, SB_MROLE_INFO, SB_MSTAR_NONE}};

const sb_metric_info *const sb_metric_own_lists[] = {sb_metric_own_layernorm, NULL};
