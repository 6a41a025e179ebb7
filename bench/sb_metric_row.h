/* sb_metric_row: what one row of the metric table is (sb_metric.def, or a
 * workload row's own metrics, sb_workload.metrics). Its own header, so that
 * a workload row can declare its metrics without the table's functions
 * (sb_metric), which read the workload rows: no include loop. */
#ifndef SB_METRIC_ROW_H
#define SB_METRIC_ROW_H

typedef enum sb_metric_role {
    SB_MROLE_HEADLINE, /* the workload's one figure (listing, report) */
    SB_MROLE_RATE,     /* another throughput */
    SB_MROLE_LATENCY,  /* a time per request or message */
    SB_MROLE_TIME,     /* a time per repetition, step or batch */
    SB_MROLE_ACCURACY, /* what the model got right (em, f1, loss) */
    SB_MROLE_ERROR,    /* a numerical error against the reference */
    SB_MROLE_MEMORY,   /* memory held */
    SB_MROLE_COUNT,    /* steps, volumes per step */
    SB_MROLE_PEAK,     /* the machine's peak per instruction path */
    SB_MROLE_MODEL,    /* the scaling model's projections */
    SB_MROLE_INFO      /* recorded for the reader (a clock, a bound, a flag) */
} sb_metric_role;

typedef enum sb_metric_star {
    SB_MSTAR_NONE,  /* an exact name */
    SB_MSTAR_BYTES, /* a message size in bytes, or "grad" */
    SB_MSTAR_NODES, /* a node count */
    SB_MSTAR_PATH,  /* a peak path (kernels/sb_isa.def) */
    SB_MSTAR_WORD   /* a lower-case word (a profile kind: "qkv_linear") */
} sb_metric_star;

typedef struct sb_metric_info {
    const char *name;      /* exact, or a family with one '*' ("busbw_gbs_*") */
    const char *unit;      /* "" for a pure number */
    const char *int8_unit; /* where an int8 kernel ran; NULL: unit */
    int lower;             /* 1: lower is better */
    sb_metric_role role;
    sb_metric_star star; /* what the '*' stands for */
} sb_metric_info;

#endif
