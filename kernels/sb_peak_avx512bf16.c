/* bf16 peak loop (vdpbf16ps). Runs only after sb_isa_probe("bf16"). */
#define SB_PEAK_INSN "vdpbf16ps"
#define SB_PEAK_FUNC sb_peak_loop_bf16
#include "sb_peak_loop.inc"
