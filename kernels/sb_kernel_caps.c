#include "sb_kernel_caps.h"
#include <string.h>
#include "sb_kernel.h"
#include "sb_vendor.h"

/* sb_isa.def's TILES rows: the paths whose instructions are AMX's */
#define SB_UNIT_TILES 1
#define SB_UNIT_VEC 0
int sb_isa_uses_amx(const char *isa)
{
    if (!isa) return 0;
#define SB_ISA(id, probe, unit, peak, metric, insn, loop, ops) \
    if (SB_UNIT_##unit && !strcmp(isa, #id)) return 1;
#include "sb_isa.def"
#undef SB_ISA
    return 0;
}

int sb_kernel_ran_amx(const char *kernel, const char *dtype, const char *impl)
{
    if (!kernel) return 0;
    if (sb_vendor_of_kernel(kernel)) {
        if (impl && *impl) return strstr(impl, "amx") != NULL;
        return dtype && !strcmp(dtype, "f32") ? 0 : -1;
    }
    const sb_kernel *k = sb_kernel_find(kernel);
    return k && sb_isa_uses_amx(k->isa);
}
