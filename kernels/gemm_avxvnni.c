/* avx2-int8 where the CPU has AVX-VNNI: VEX vpdpbusd ymm, u8 x s8 quads
 * summed into s32 without saturation (exact), on the 6x16 block of the
 * AVX2 kernels. Layout, packers and loop are shared with the model build
 * in gemm_avx2.c, which tests them on machines without AVX-VNNI. Reached
 * only after the probe (gemm_own.c) found AVX2 and AVX-VNNI. */
#include "sb_ukr_avx2.h"

#define UKR_MR SB_AVX2_MR
#define UKR_ACC_MEM 0
#define UKR_KG 4
#define UKR_INT 1
#define UKR_ASM_LOADB "vmovdqa"
#define UKR_ASM_BCAST "vpbroadcastd"
/* {vex}: the assembler would otherwise be free to emit the EVEX form */
#define UKR_ASM_OPS(r0, r1)                               \
    "%{vex%} vpdpbusd %%ymm12, %%ymm14, %%ymm" #r0 "\n\t" \
    "%{vex%} vpdpbusd %%ymm13, %%ymm14, %%ymm" #r1 "\n\t"
#define UKR_ACHUNK 1
#define UKR_NAME ukr_vnni_rc
#include "sb_ukr_avx2_rows.inc"
#undef UKR_ACHUNK
#undef UKR_NAME
#define UKR_ACHUNK 0
#define UKR_NAME ukr_vnni_sm
#include "sb_ukr_avx2_rows.inc"
#undef UKR_ACHUNK
#undef UKR_NAME

const sb_ukr sb_ukr_avxvnni_int8[2] = SB_AVXVNNI_UKR(ukr_vnni_rc, ukr_vnni_sm);
