/* f32 peak loop (vfmadd231ps). Runs only after sb_isa_probe("f32"). */
#define SB_PEAK_INSN "vfmadd231ps"
#define SB_PEAK_FUNC sb_peak_loop_f32
#include "sb_peak_loop.inc"
