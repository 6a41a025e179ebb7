/* The workload table made from bench/sb_workloads.def: every row the .def
 * lists is the table's, found by its name, in the .def's order (the order
 * before the rows moved into their folders: a plan without `workload` is
 * GEMM, listings and `sweep --help` go by it), and each OWN_METRICS row's
 * metrics are the metric table's (bench/sb_metric_own) and its row's. */
#include <string.h>
#include "sb_metric.h"
#include "sb_metric_own.h"
#include "sb_workload.h"
#include "testutil.h"

/* the table's order before #45 moved the rows (bench/sb_workload.c's g_workloads) */
static const char *const g_order[] = {"gemm",   "train",     "infer", "allreduce",
                                      "stream", "layernorm", "peak"};

int main(void)
{
    int i = 0, nown = 0;
#define SB_WORKLOAD(id, own)                                                                      \
    CHECKF(sb_workload_at(i) == &sb_wl_##id, "row %d is not sb_wl_" #id, i);                      \
    CHECKF(sb_workload_find(#id) == &sb_wl_##id, "sb_workload_find(\"" #id "\") is not its row"); \
    CHECKF(!strcmp(sb_wl_##id.name, #id), "sb_wl_" #id " is named %s", sb_wl_##id.name);          \
    CHECKF(!strcmp(#own, "OWN_METRICS") == (sb_wl_##id.metrics != NULL),                          \
           "sb_wl_" #id ": " #own " in the .def, its row says otherwise");                        \
    nown += sb_wl_##id.metrics != NULL;                                                           \
    i++;
#include "sb_workloads.def"
#undef SB_WORKLOAD
    CHECK_EQ_INT(i, sb_workload_count());
    CHECK_EQ_INT(sb_workload_count(), (int)(sizeof g_order / sizeof g_order[0]));
    for (int k = 0; k < sb_workload_count() && k < (int)(sizeof g_order / sizeof g_order[0]); k++)
        CHECKF(!strcmp(sb_workload_at(k)->name, g_order[k]), "row %d is %s, was %s", k,
               sb_workload_at(k)->name, g_order[k]);
    CHECK(sb_workload_at(sb_workload_count()) == NULL && sb_workload_find("nosuch") == NULL);
    CHECK(sb_workload_default() == &sb_wl_gemm);

    /* the own lists: one per OWN_METRICS row, in the rows' order, each the row's */
    int nl = 0;
    for (; sb_metric_own_lists[nl]; nl++) {
        int found = 0;
        for (int k = 0; k < sb_workload_count(); k++)
            found |= sb_workload_at(k)->metrics == sb_metric_own_lists[nl];
        CHECKF(found, "own list %d is no row's metrics", nl);
    }
    CHECK_EQ_INT(nl, nown);
    /* LayerNorm's, found by the metric table as its rows, direction and all */
    CHECK(sb_metric_info_of("ns_per_row") == &sb_metric_own_layernorm[0]);
    CHECK(sb_metric_info_of("layernorm_gbps") == &sb_metric_own_layernorm[1]);
    CHECK(sb_metric_info_of("max_abs_error") == &sb_metric_own_layernorm[2]);
    CHECK(sb_metric_info_of("ns_per_row")->lower == 1);

    /* the capabilities and fields the report and plot read instead of names */
    CHECK(sb_workload_flagged(SB_WL_PROJECT) == &sb_wl_train);
    CHECK(sb_workload_flagged(SB_WL_LATENCY) == &sb_wl_infer);
    CHECK(sb_workload_flagged(SB_WL_SHAPES) == &sb_wl_gemm);
    CHECK(sb_workload_flagged(SB_WL_PROBE) == &sb_wl_peak);
    CHECK(sb_workload_flagged(SB_WL_PAIRED) == &sb_wl_gemm);
    for (int k = 0; k < sb_workload_count(); k++) {
        const sb_workload *w = sb_workload_at(k);
        CHECKF(!w->profile_metric == !w->profile_per, "%s: a profile metric without its word",
               w->name);
        CHECKF(!w->profile_metric || sb_metric_info_of(w->profile_metric),
               "%s: profile metric %s is not in the metric table", w->name, w->profile_metric);
    }
    CHECK(sb_wl_train.profile_metric && !strcmp(sb_wl_train.profile_metric, "step_seconds"));
    CHECK(sb_wl_infer.profile_per && !strcmp(sb_wl_infer.profile_per, "batch"));
    /* a batch is named in the series key; a GEMM shape is the point's key */
    CHECK(sb_wl_axis_in_series(&sb_wl_train) && sb_wl_axis_in_series(&sb_wl_infer));
    CHECK(!sb_wl_axis_in_series(&sb_wl_gemm) && !sb_wl_axis_in_series(&sb_wl_allreduce));
    CHECK(!sb_wl_axis_in_series(NULL));
    return test_report("workload rows from sb_workloads.def");
}
