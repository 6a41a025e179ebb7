/* amx-bf16 / amx-int8 micro-kernels on the real tile instructions (the
 * tiling lives in sb_amx_tiles.inc). Reached only after the probe saw
 * amx_tile in CPUID, the tile state in XCR0 and the kernel's permission. */
#include "sb_ukr.h"
#include "sb_amx_cfg.h"
#include <immintrin.h>

/* ldtilecfg through sb_amx_cfg.h's inline assembly, never _tile_loadconfig
 * (GCC 12 drops the configuration's stores; see there). */
#define TCFG(p) sb_amx_ldtilecfg(p)
#define TRELEASE() _tile_release()
#define TLOAD(t, p, s) _tile_loadd(t, p, s)
#define TSTORE(t, p, s) _tile_stored(t, p, s)
#define TZERO(t) _tile_zero(t)
#define AMX_TILE_CHECK(e) ((void)(e), SB_OK)
#define TDP_BF16(c, a, b) _tile_dpbf16ps(c, a, b)
#define TDP_INT8(c, a, b) _tile_dpbusd(c, a, b)
#define AMX_SYM(x) amx_##x
#define AMX_UKR_VAR(x) sb_ukr_amx_##x
#define AMX_UKR_SUFFIX ""
#include "sb_amx_build.inc"
