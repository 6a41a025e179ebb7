/* AVX-VNNI peak loop: VEX vpdpbusd ymm (avx2-int8 where the CPU has
 * AVX-VNNI), 14 independent accumulator chains. Run only after the CPU was
 * found to have AVX-VNNI (sb_peak.c). */
#include "sb_peak.h"

#define SB_YZERO(r) "vpxor %%ymm" #r ", %%ymm" #r ", %%ymm" #r "\n\t"

double sb_peak_loop_avxvnni(long iters)
{
    long n = iters;
#define SB_DP(r) "%{vex%} vpdpbusd %%ymm14, %%ymm15, %%ymm" #r "\n\t"
    __asm__ volatile(SB_YZERO(0) SB_YZERO(1) SB_YZERO(2) SB_YZERO(3) SB_YZERO(4) SB_YZERO(5)
                         SB_YZERO(6) SB_YZERO(7) SB_YZERO(8) SB_YZERO(9) SB_YZERO(10) SB_YZERO(11)
                             SB_YZERO(12) SB_YZERO(13) SB_YZERO(14) SB_YZERO(15) "1:\n\t" SB_DP(0)
                                 SB_DP(1) SB_DP(2) SB_DP(3) SB_DP(4) SB_DP(5) SB_DP(6) SB_DP(7)
                                     SB_DP(8) SB_DP(9) SB_DP(10) SB_DP(11) SB_DP(12)
                                         SB_DP(13) "dec %0\n\t"
                                                   "jnz 1b\n\t"
                     : "+r"(n)
                     :
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                       "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc");
#undef SB_DP
    return (double)n;
}
