/* sb_amx_model: a functional model of the AMX tile instructions, so the AMX
 * kernels' packing, tiling and edges are tested on machines without AMX.
 * Owns a per-thread tile state (config + 8 tiles of 16 rows x 64 bytes) and
 * the first error since the last clear. Models palette 1 only:
 *   ldtilecfg (palette 0 releases, 1 configures; reserved bytes 0, tiles
 *   8..15 unused, rows <= 16, colsb <= 64, rows == 0 iff colsb == 0,
 *   start_row 0), tilerelease, tileloadd, tilestored, tilezero,
 *   tdpbf16ps (bf16 pairs: each pair's two products summed in f32, then
 *   added to the f32 accumulator; denormal inputs and results flushed to
 *   zero, round to nearest even), tdpbssd (s8 x s8), tdpbusd (u8 x s8).
 * Shape rules (as #UD on hardware, an error here, the instruction does
 * nothing): tiles configured; dst.rows == a.rows; dst.colsb == b.colsb;
 * a.colsb == 4 * b.rows; dst, a, b distinct; tile numbers 0..7. */
#ifndef SB_AMX_MODEL_H
#define SB_AMX_MODEL_H
#include <stdint.h>
#include "sb_amx_cfg.h"

void sb_amx_model_ldtilecfg(const void *cfg);
void sb_amx_model_sttilecfg(void *cfg);
void sb_amx_model_tilerelease(void);
void sb_amx_model_tileloadd(int t, const void *base, long stride);
void sb_amx_model_tilestored(int t, void *base, long stride);
void sb_amx_model_tilezero(int t);
void sb_amx_model_tdpbf16ps(int dst, int a, int b);
void sb_amx_model_tdpbssd(int dst, int a, int b);
void sb_amx_model_tdpbusd(int dst, int a, int b);

/* The first error since the last clear (this thread), or NULL. */
const char *sb_amx_model_error(void);
void sb_amx_model_clear_error(void);

#endif
