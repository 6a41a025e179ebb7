#include "sb_kernel_caps.h"
#include <string.h>
#include "sb_kernel.h"
#include "sb_vendor.h"

/* sb_isa.def's rows whose instructions are AMX's (tdpbf16ps, tdpbusd) */
static const char *const g_amx_paths[] = {"amx_bf16", "amx_int8"};

int sb_isa_uses_amx(const char *isa)
{
    for (size_t i = 0; isa && i < sizeof g_amx_paths / sizeof g_amx_paths[0]; i++)
        if (!strcmp(isa, g_amx_paths[i])) return 1;
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
