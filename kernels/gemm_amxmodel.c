/* The AMX micro-kernels (sb_amx_tiles.inc) built against the functional
 * tile model instead of the instructions: plain C, runs anywhere, slow.
 * Tests reach it through sb_kernel_amx_bf16_model / sb_kernel_amx_int8_model
 * (not in the registry). A model error (bad config or shape) fails the GEMM
 * with the model's message. */
#include "sb_gemm.h"
#include "sb_amx_model.h"

#define TCFG(p) sb_amxm_ldtilecfg(p)
#define TRELEASE() sb_amxm_tilerelease()
#define TLOAD(t, p, s) sb_amxm_tileloadd(t, p, s)
#define TSTORE(t, p, s) sb_amxm_tilestored(t, p, s)
#define TZERO(t) sb_amxm_tilezero(t)
#define AMX_TILE_CHECK(e) model_check(e)

static int model_check(sb_err *e)
{
    const char *m = sb_amxm_error();
    if (!m) return SB_OK;
    int rc = sb_errf(e, SB_EFAIL, "AMX tile model: %s", m);
    sb_amxm_clear_error();
    return rc;
}

#define AMX_PREFIX(x) amxm_bf16_##x
#define AMX_INT 0
#define TDP(c, a, b) sb_amxm_tdpbf16ps(c, a, b)
#include "sb_amx_tiles.inc"
#undef AMX_PREFIX
#undef AMX_INT
#undef TDP

#define AMX_PREFIX(x) amxm_int8_##x
#define AMX_INT 1
#define TDP(c, a, b) sb_amxm_tdpbusd(c, a, b)
#include "sb_amx_tiles.inc"

AMX_UKR(sb_ukr_amxm_bf16, "amx-bf16 (tile model)", amxm_bf16_, amxm_bf16_pack_a, amxm_bf16_pack_b,
        2, 32, 2);
AMX_UKR(sb_ukr_amxm_bf16_in, "amx-bf16 (tile model)", amxm_bf16_, amxm_bf16_pack_a_h,
        amxm_bf16_pack_b_h, 2, 32, 2);
AMX_UKR(sb_ukr_amxm_int8, "amx-int8 (tile model)", amxm_int8_, amxm_int8_pack_a, amxm_int8_pack_b,
        1, 64, 4);
