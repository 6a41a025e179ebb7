/* AVX2 peak loops: vfmadd231ps ymm (avx2-f32) and vpmaddwd + vpaddd ymm
 * (avx2-int8 without AVX-VNNI), 14 independent accumulator chains in the 16
 * ymm registers: more than two pipes x 5 cycles of FMA latency need. Inline
 * assembly so the compiler can neither spill nor merge the chains; zero
 * operands keep the values (and any denormal slow path) out of it. Run only
 * after sb_isa_probe("avx2_f32" / "avx2_int8"). */
#include "sb_peak.h"

#define SB_YZERO(r) "vpxor %%ymm" #r ", %%ymm" #r ", %%ymm" #r "\n\t"
#define SB_YZERO16                                                                      \
    SB_YZERO(0)                                                                         \
    SB_YZERO(1)                                                                         \
    SB_YZERO(2) SB_YZERO(3) SB_YZERO(4) SB_YZERO(5) SB_YZERO(6) SB_YZERO(7) SB_YZERO(8) \
        SB_YZERO(9) SB_YZERO(10) SB_YZERO(11) SB_YZERO(12) SB_YZERO(13) SB_YZERO(14) SB_YZERO(15)
#define SB_YCLOBBER                                                                          \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", \
        "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc"

double sb_peak_loop_avx2_f32(long iters)
{
    long n = iters;
#define SB_FMA(r) "vfmadd231ps %%ymm14, %%ymm15, %%ymm" #r "\n\t"
    __asm__ volatile(SB_YZERO16 "1:\n\t" SB_FMA(0) SB_FMA(1) SB_FMA(2) SB_FMA(3) SB_FMA(4) SB_FMA(5)
                         SB_FMA(6) SB_FMA(7) SB_FMA(8) SB_FMA(9) SB_FMA(10) SB_FMA(11) SB_FMA(12)
                             SB_FMA(13) "dec %0\n\t"
                                        "jnz 1b\n\t"
                     : "+r"(n)
                     :
                     : SB_YCLOBBER);
#undef SB_FMA
    return (double)n;
}

/* The avx2-int8 kernel's step: vpmaddwd multiplies 16 s16 pairs into 8
 * s32 sums (16 multiply-adds), vpaddd accumulates them. 7 accumulators and
 * 7 product registers; each pair of lines is one step of one chain. */
double sb_peak_loop_avx2_int8(long iters)
{
    long n = iters;
#define SB_MADD(t, c)                            \
    "vpmaddwd %%ymm14, %%ymm15, %%ymm" #t "\n\t" \
    "vpaddd %%ymm" #t ", %%ymm" #c ", %%ymm" #c "\n\t"
    __asm__ volatile(SB_YZERO16 "1:\n\t" SB_MADD(7, 0) SB_MADD(8, 1) SB_MADD(9, 2) SB_MADD(10, 3)
                         SB_MADD(11, 4) SB_MADD(12, 5) SB_MADD(13, 6) SB_MADD(7, 0) SB_MADD(8, 1)
                             SB_MADD(9, 2) SB_MADD(10, 3) SB_MADD(11, 4) SB_MADD(12, 5)
                                 SB_MADD(13, 6) "dec %0\n\t"
                                                "jnz 1b\n\t"
                     : "+r"(n)
                     :
                     : SB_YCLOBBER);
#undef SB_MADD
    return (double)n;
}
