/* sb_amx_cfg: the AMX tile configuration, written once for every user of
 * the tiles (the micro-kernels, the peak loops, the tile model and its
 * tests): the 64-byte ldtilecfg operand, the one shape every kernel uses,
 * and the load itself.
 *
 * Why the load is inline assembly and not GCC's _tile_loadconfig: GCC 12
 * passes the config to ldtilecfg through an 8-byte "m" operand, so the
 * compiler sees only the first 8 bytes read and drops the stores of rows[]
 * and colsb[] as dead. Every tile then has 0 rows and the first tile
 * instruction raises #UD (SIGILL): the AMX path's first run on hardware.
 * The operand below is the whole struct, so all 64 bytes are read as far as
 * the compiler knows. The assembler knows ldtilecfg/sttilecfg whatever the
 * -m flags, so this header compiles in any file; executing it needs AMX.
 * tests/test_kern_amxcfg.c checks what the compiled kernels really load, on
 * any x86-64 CPU (with AMX: sttilecfg after the load; without: the operand
 * of the faulting ldtilecfg, decoded in the SIGILL handler). */
#ifndef SB_AMX_CFG_H
#define SB_AMX_CFG_H
#include <stdint.h>

/* The 64-byte memory operand of ldtilecfg / sttilecfg (palette 1). */
typedef struct sb_amx_tilecfg {
    uint8_t palette;
    uint8_t start_row;
    uint8_t reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} sb_amx_tilecfg;

_Static_assert(sizeof(sb_amx_tilecfg) == 64, "ldtilecfg reads 64 bytes");

/* The one shape every sprbench AMX kernel uses: palette 1, tiles 0-7 each
 * 16 rows x 64 bytes (C 16x16 32-bit, A 16 rows x 64 bytes, B 16 k-groups x
 * 64 bytes), so C, A and B tiles share one config. */
#define SB_AMX_ROWS 16
#define SB_AMX_COLSB 64
/* Filled in sb_amx_cfg.c, built for the baseline ISA: the code around each
 * ldtilecfg then holds no AVX-512 instruction, so on a CPU without AMX the
 * first instruction that faults is ldtilecfg itself, and the test can read
 * its operand (on Zen 3 an AVX-512 store before it would fault first). */
void sb_amx_cfg_16x64(sb_amx_tilecfg *c);

/* ldtilecfg on the real tiles; the whole struct is the operand (see above). */
static inline void sb_amx_ldtilecfg(const sb_amx_tilecfg *c)
{
    __asm__ volatile("ldtilecfg %0" : : "m"(*c) : "memory");
}

/* sttilecfg: the configuration the tiles hold now (all zero when released). */
static inline void sb_amx_sttilecfg(sb_amx_tilecfg *c)
{
    __asm__ volatile("sttilecfg %0" : "=m"(*c) : : "memory");
}

#endif
