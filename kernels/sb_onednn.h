/* sb_onednn: the oneDNN side of the comparison (onednn-f32, onednn-bf16,
 * onednn-int8): matmul primitives through oneDNN's C API, cached per shape,
 * transposes, leading dimensions, alpha/beta, dtype and thread count; the ISA
 * cap; and the implementation name oneDNN reports for the last call. */
#ifndef SB_ONEDNN_H
#define SB_ONEDNN_H
#include "sb_err.h"

/* Caps oneDNN's ISA (as ONEDNN_MAX_CPU_ISA does) before its first primitive.
 * Names as oneDNN spells them, any case: SSE41, AVX, AVX2, AVX2_VNNI,
 * AVX512_CORE, AVX512_CORE_VNNI, AVX512_CORE_BF16, AVX512_CORE_AMX, ALL.
 * Under SB_FORCE_NO_AVX512 (SB_FORCE_NO_AVX2) a higher cap is lowered to
 * AVX2 (SSE41); without a call, those variables cap oneDNN the same way
 * before its first primitive, unless ONEDNN_MAX_CPU_ISA asks for less.
 * SB_EUSAGE for an unknown name; SB_EFAIL when oneDNN refuses (a primitive
 * was already created, or the cap was set already). */
int sb_onednn_set_max_isa(const char *isa, sb_err *e);
/* Comma-separated list of the names above (for messages). */
const char *sb_onednn_isa_names(void);
/* The ISA oneDNN will use, lower case ("avx512_core_bf16"). Fixes the cap. */
const char *sb_onednn_effective_isa(void);

#endif
