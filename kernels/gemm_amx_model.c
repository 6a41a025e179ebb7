/* The AMX micro-kernels (sb_amx_tiles.inc) built against the functional
 * tile model instead of the instructions: the tiles in plain C, slow; the
 * epilogue and the packers are the real build's AVX-512 code (this file
 * gets the AVX-512 flags, kernels/CMakeLists.txt), so it needs AVX-512.
 * Tests reach it through sb_kernel_amx_bf16_model / sb_kernel_amx_int8_model
 * (not in the registry). A model error (bad config or shape) fails the GEMM
 * with the model's message. */
#include "sb_ukr.h"
#include "sb_amx_model.h"

static int model_check(sb_err *e)
{
    const char *m = sb_amx_model_error();
    if (!m) return SB_OK;
    int rc = sb_errf(e, SB_EFAIL, "AMX tile model: %s", m);
    sb_amx_model_clear_error();
    return rc;
}

#define TCFG(p) sb_amx_model_ldtilecfg(p)
#define TRELEASE() sb_amx_model_tilerelease()
#define TLOAD(t, p, s) sb_amx_model_tileloadd(t, p, s)
#define TSTORE(t, p, s) sb_amx_model_tilestored(t, p, s)
#define TZERO(t) sb_amx_model_tilezero(t)
#define AMX_TILE_CHECK(e) model_check(e)
#define TDP_BF16(c, a, b) sb_amx_model_tdpbf16ps(c, a, b)
#define TDP_INT8(c, a, b) sb_amx_model_tdpbusd(c, a, b)
#define AMX_SYM(x) amxm_##x
#define AMX_UKR_VAR(x) sb_ukr_amxm_##x
#define AMX_UKR_SUFFIX " (tile model)"
#include "sb_amx_build.inc"
