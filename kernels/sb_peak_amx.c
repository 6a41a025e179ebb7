/* AMX peak loops: 4 independent accumulator tiles (tmm0-3) fed by 2 A and 2
 * B tiles loaded once, so only the tile multiplies run in the loop. Runs
 * only after sb_isa_probe("amx_bf16"/"amx_int8") (which got the OS's
 * permission); the tile state is released at the end. */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#include "sb_amx_cfg.h"
#include "sb_peak.h"

static void config_all_16x64(void)
{
    _Alignas(64) sb_amx_tilecfg cfg;
    sb_amx_cfg_16x64(&cfg);
    sb_amx_ldtilecfg(&cfg);
}

static _Alignas(64) uint8_t g_src[16 * 64];

/* C in tiles 0-3 from zero, A in 4-5, B in 6-7, all loaded once. */
static inline void tiles_begin(void)
{
    config_all_16x64();
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    _tile_loadd(4, g_src, 64);
    _tile_loadd(5, g_src, 64);
    _tile_loadd(6, g_src, 64);
    _tile_loadd(7, g_src, 64);
}

/* The first 32-bit lane of C's tile 0 (an f32 or an s32), the tiles released. */
static inline uint32_t tiles_end(void)
{
    _Alignas(64) uint32_t out[16 * 16];
    _tile_stored(0, out, 64);
    _tile_release();
    return out[0];
}

double sb_peak_loop_amx_bf16(long iters)
{
    tiles_begin();
    for (long it = 0; it < iters; it++) {
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
    }
    uint32_t bits = tiles_end();
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

double sb_peak_loop_amx_int8(long iters)
{
    tiles_begin();
    for (long it = 0; it < iters; it++) {
        _tile_dpbusd(0, 4, 6);
        _tile_dpbusd(1, 4, 7);
        _tile_dpbusd(2, 5, 6);
        _tile_dpbusd(3, 5, 7);
    }
    return (int32_t)tiles_end();
}
