/* sb_report_amx: "What AMX gives", like for like. On each side that ran
 * AMX: the fastest AMX implementation of each precision (its own amx-* or a
 * vendor kernel whose stored impl names AMX, "brg:avx512_core_amx_bf16")
 * against the fastest f32 and the fastest same-precision implementation
 * without AMX, at the same shape and threads (GEMM, inference) or batch,
 * seq and threads (training), with spreads and noisy flags, and any
 * mismatch (tool version, batch, threads) named in the row. When one side
 * ran AMX and the other did not, the section leads with the gain AMX gives
 * on the AMX side alone, and says how much of the two sides' ratio a kernel
 * without AMX already shows (that part is not AMX). A closing paragraph
 * relates the measured gains to the study's 8x (an Ice Lake node against a
 * Sapphire Rapids node). Reads point sets and the store, writes through a
 * sink. */
#ifndef SB_REPORT_AMX_H
#define SB_REPORT_AMX_H
#include "sb_report_headline.h"

/* The "What AMX gives" section(s); hl: the headline's ratio (may be NULL). */
void sb_report_generations(const sb_headline_in *in, const sb_rsink *s,
                           const sb_headline_out *hl);
/* One paragraph for the top of the report when the two sides are one CPU
 * model (family and model) with AMX on one side only: the gain AMX gives
 * on that machine alone, like for like, before any cross-side ratio.
 * Writes nothing otherwise. */
void sb_report_amx_lead(const sb_headline_in *in, const sb_rsink *s);

#endif
