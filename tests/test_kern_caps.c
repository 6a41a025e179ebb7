/* kernels/sb_kernel_caps: whether a recorded run used AMX, from the
 * registry rather than a kernel name's spelling (the report's "What AMX
 * gives" reads it): every registered project kernel by its instruction
 * path, the vendors by the implementation they reported. */
#include <string.h>
#include "sb_kernel.h"
#include "sb_kernel_caps.h"
#include "sb_vendor.h"
#include "testutil.h"

int main(void)
{
    CHECK(sb_isa_uses_amx("amx_bf16") && sb_isa_uses_amx("amx_int8"));
    CHECK(!sb_isa_uses_amx("bf16") && !sb_isa_uses_amx("int8") && !sb_isa_uses_amx("f32"));
    CHECK(!sb_isa_uses_amx("scalar") && !sb_isa_uses_amx("") && !sb_isa_uses_amx(NULL));
    int amx = 0;
    for (int i = 0; i < sb_kernel_count(); i++) {
        const sb_kernel *k = sb_kernel_at(i);
        if (sb_vendor_of_kernel(k->name)) continue;
        int r = sb_kernel_ran_amx(k->name, sb_dtype_name(k->dtype), NULL);
        /* the project's AMX kernels are those on an AMX path, and only they */
        CHECKF(r == sb_isa_uses_amx(k->isa), "%s (isa %s): ran AMX %d", k->name, k->isa, r);
        amx += r == 1;
    }
    CHECK_EQ_INT(amx, 2); /* amx-bf16, amx-int8 */
    CHECK(sb_kernel_ran_amx("amx-bf16", "bf16", NULL) == 1);
    CHECK(sb_kernel_ran_amx("avx512-bf16", "bf16", "") == 0);
    /* a vendor: what it reported, else unknown except for f32 */
    CHECK(sb_kernel_ran_amx("onednn-bf16", "bf16", "brg:avx512_core_amx_bf16") == 1);
    CHECK(sb_kernel_ran_amx("onednn-bf16", "bf16", "brg:avx512_core_bf16") == 0);
    CHECK(sb_kernel_ran_amx("onednn-bf16", "bf16", "") == -1);
    CHECK(sb_kernel_ran_amx("mkl-int8", "int8", NULL) == -1);
    CHECK(sb_kernel_ran_amx("mkl-f32", "f32", NULL) == 0);
    /* a name this build does not register, and none */
    CHECK(sb_kernel_ran_amx("nosuch-f32", "f32", NULL) == 0);
    CHECK(sb_kernel_ran_amx(NULL, "f32", NULL) == 0);
    return test_report("kernel capabilities");
}
