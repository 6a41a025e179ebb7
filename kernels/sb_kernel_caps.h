/* sb_kernel_caps: what a recorded run of a kernel used, as capabilities a
 * reader of results asks the registry for instead of spelling kernel
 * names: whether it ran on AMX tiles. For results of any machine: the
 * registry is the same on every machine (a kernel this CPU cannot run is
 * still registered), and nothing here probes the CPU. */
#ifndef SB_KERNEL_CAPS_H
#define SB_KERNEL_CAPS_H

/* 1 when the instruction path (an sb_kernel.isa, a row of sb_isa.def)
 * computes on AMX tiles ("amx_bf16", "amx_int8"), else 0. */
int sb_isa_uses_amx(const char *isa);

/* Whether a run of the named kernel used AMX: 1 yes, 0 no, -1 unknown.
 * A project kernel by its instruction path; a vendor kernel by the
 * implementation it reported (impl, oneDNN's "brg:avx512_core_amx_bf16"),
 * else 0 when the run's dtype (as recorded: "f32") is f32, which a library
 * never runs on AMX unasked, and -1 for its bf16 or int8 (a vendor kernel
 * by its name's vendor, sb_vendor_of_kernel, registered here or not); any
 * other name this build does not register: 0. */
int sb_kernel_ran_amx(const char *kernel, const char *dtype, const char *impl);

#endif
