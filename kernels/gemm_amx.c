/* amx-bf16 / amx-int8 micro-kernels on the real tile instructions (the
 * tiling lives in sb_amx_tiles.inc). Reached only after the probe saw
 * amx_tile in CPUID, the tile state in XCR0 and the kernel's permission. */
#include "sb_gemm.h"
#include "sb_amx_model.h"
#include <immintrin.h>

#define TCFG(p) sb_amx_ldtilecfg(p)
#define TRELEASE() _tile_release()
#define TLOAD(t, p, s) _tile_loadd(t, p, s)
#define TSTORE(t, p, s) _tile_stored(t, p, s)
#define TZERO(t) _tile_zero(t)
#define AMX_TILE_CHECK(e) ((void)(e), SB_OK)

#define AMX_PREFIX(x) amx_bf16_##x
#define AMX_INT 0
#define TDP(c, a, b) _tile_dpbf16ps(c, a, b)
#include "sb_amx_tiles.inc"
#undef AMX_PREFIX
#undef AMX_INT
#undef TDP

#define AMX_PREFIX(x) amx_int8_##x
#define AMX_INT 1
#define TDP(c, a, b) _tile_dpbusd(c, a, b)
#include "sb_amx_tiles.inc"

AMX_UKR(sb_ukr_amx_bf16, "amx-bf16", amx_bf16_, amx_bf16_pack_a, amx_bf16_pack_b, 2, 32, 2);
AMX_UKR(sb_ukr_amx_bf16_in, "amx-bf16", amx_bf16_, amx_bf16_pack_a_h, amx_bf16_pack_b_h, 2, 32, 2);
AMX_UKR(sb_ukr_amx_int8, "amx-int8", amx_int8_, amx_int8_pack_a, amx_int8_pack_b, 1, 64, 4);
