/* sb_amx_knobs: the AMX kernels' loop-nest knobs, for the tuner and for
 * experiments; the same for the real and the tile-model builds.
 *   resident  which operand's 32-wide panel stays in L1 while the other's
 *             panels stream past it (from L2) within one packed block:
 *             B (default: the B panel, kc x 32, is 32 KB at KC 512 bf16 /
 *             1024 int8, and the driver's A block is sized for L2) or A (the
 *             A panel stays; the B block should then fit L2: NC small).
 *   prefetch  how many k steps (2 KB of the streamed operand each: two
 *             tiles) ahead the streamed operand is prefetched into L1,
 *             running on into the next panel; 0: none. Default 2, at most 16.
 * Read from SB_AMX_RESIDENT (a or b) and SB_AMX_PREFETCH (0..16) once, a
 * value outside those ignored (the default stays); sb_amx_knobs_set
 * overrides both for the whole process (set it before the GEMMs run). */
#ifndef SB_AMX_KNOBS_H
#define SB_AMX_KNOBS_H
#include "sb_err.h"

typedef enum { SB_AMX_RESIDENT_B = 0, SB_AMX_RESIDENT_A = 1 } sb_amx_resident;

#define SB_AMX_PREFETCH_MAX 16

typedef struct sb_amx_knobs {
    sb_amx_resident resident;
    int prefetch; /* k steps ahead, 0 .. SB_AMX_PREFETCH_MAX */
} sb_amx_knobs;

/* The knobs in force (the environment's, read once, unless set). */
sb_amx_knobs sb_amx_knobs_get(void);
/* SB_EUSAGE (nothing changed) when a value is out of range. */
int sb_amx_knobs_set(const sb_amx_knobs *k, sb_err *e);
/* SB_EUSAGE, naming the variable, when SB_AMX_RESIDENT or SB_AMX_PREFETCH
 * is set to a value sb_amx_knobs_get ignores (for a command to refuse a
 * typo instead of measuring the default). */
int sb_amx_knobs_env_check(sb_err *e);
/* "a" / "b" -> the enum; SB_EUSAGE for anything else. */
int sb_amx_resident_parse(const char *s, sb_amx_resident *out, sb_err *e);
const char *sb_amx_resident_name(sb_amx_resident r);

#endif
