/* int8 peak loop (vpdpbusd). Runs only after sb_isa_probe("int8"). */
#define SB_PEAK_INSN "vpdpbusd"
#define SB_PEAK_FUNC sb_peak_loop_int8
#include "sb_peak_loop.inc"
