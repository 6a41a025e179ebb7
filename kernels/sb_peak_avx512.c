/* f32 peak loop: 24 independent vfmadd231ps zmm chains (enough for two
 * pipes x 4-cycle latency). Runs only after sb_isa_probe("f32").
 * Inline assembly so the compiler can neither spill nor merge the chains;
 * zero operands keep the values (and any denormal slow path) out of it. */

double sb_peak_loop_f32(long iters);
double sb_peak_loop_f32(long iters)
{
    long n = iters;
    __asm__ volatile(
        "vpxord %%zmm0, %%zmm0, %%zmm0\n\t"
        "vpxord %%zmm1, %%zmm1, %%zmm1\n\t"
        "vpxord %%zmm2, %%zmm2, %%zmm2\n\t"
        "vpxord %%zmm3, %%zmm3, %%zmm3\n\t"
        "vpxord %%zmm4, %%zmm4, %%zmm4\n\t"
        "vpxord %%zmm5, %%zmm5, %%zmm5\n\t"
        "vpxord %%zmm6, %%zmm6, %%zmm6\n\t"
        "vpxord %%zmm7, %%zmm7, %%zmm7\n\t"
        "vpxord %%zmm8, %%zmm8, %%zmm8\n\t"
        "vpxord %%zmm9, %%zmm9, %%zmm9\n\t"
        "vpxord %%zmm10, %%zmm10, %%zmm10\n\t"
        "vpxord %%zmm11, %%zmm11, %%zmm11\n\t"
        "vpxord %%zmm12, %%zmm12, %%zmm12\n\t"
        "vpxord %%zmm13, %%zmm13, %%zmm13\n\t"
        "vpxord %%zmm14, %%zmm14, %%zmm14\n\t"
        "vpxord %%zmm15, %%zmm15, %%zmm15\n\t"
        "vpxord %%zmm16, %%zmm16, %%zmm16\n\t"
        "vpxord %%zmm17, %%zmm17, %%zmm17\n\t"
        "vpxord %%zmm18, %%zmm18, %%zmm18\n\t"
        "vpxord %%zmm19, %%zmm19, %%zmm19\n\t"
        "vpxord %%zmm20, %%zmm20, %%zmm20\n\t"
        "vpxord %%zmm21, %%zmm21, %%zmm21\n\t"
        "vpxord %%zmm22, %%zmm22, %%zmm22\n\t"
        "vpxord %%zmm23, %%zmm23, %%zmm23\n\t"
        "vpxord %%zmm30, %%zmm30, %%zmm30\n\t"
        "vpxord %%zmm31, %%zmm31, %%zmm31\n\t"
        "1:\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm0\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm1\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm2\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm3\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm4\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm5\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm6\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm7\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm8\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm9\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm10\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm11\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm12\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm13\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm14\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm15\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm16\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm17\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm18\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm19\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm20\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm21\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm22\n\t"
        "vfmadd231ps %%zmm30, %%zmm31, %%zmm23\n\t"
        "dec %0\n\t"
        "jnz 1b\n\t"
        : "+r"(n)
        :
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm30", "xmm31", "cc");
    return (double)n;
}
