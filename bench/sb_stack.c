/* sb_stack: see sb_stack.h. */
#include "sb_stack.h"
#include <ctype.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "sb_sysinfo.h"
#include "sb_vendor.h"

/* bench/CMakeLists.txt passes what built this file; a build without them
 * (another build system) records the compiler it knows of itself. */
#ifndef SB_C_COMPILER
#if defined(__clang__)
#define SB_C_COMPILER "Clang " __clang_version__
#elif defined(__GNUC__)
#define SB_C_COMPILER "GNU " __VERSION__
#else
#define SB_C_COMPILER ""
#endif
#endif
#ifndef SB_BUILD_TYPE
#define SB_BUILD_TYPE ""
#endif
#ifndef SB_C_FLAGS
#define SB_C_FLAGS ""
#endif

static const sb_stack_field g_fields[] = {
    {"compiler", "compiler", "compiler", SB_STACK_OWN},
    {"build_type", "build type", "build type", SB_STACK_OWN},
    {"c_flags", "C flags (the ISA files add their -m flags)", "C flags", SB_STACK_OWN},
    {"onednn", "oneDNN", "oneDNN", SB_STACK_ONEDNN},
    {"onednn_origin", "oneDNN build", "oneDNN build", SB_STACK_NEVER},
    {"mkl", "MKL", "MKL", SB_STACK_MKL},
    {"mkl_origin", "MKL build", "MKL build", SB_STACK_NEVER},
    {"mpi", "MPI library", "MPI", SB_STACK_MPI},
    {"kernel", "OS kernel", "OS kernel", SB_STACK_NEVER},
    {"hypervisor", "hypervisor", "hypervisor", SB_STACK_ANY},
    {"threads_per_core", "SMT: hardware threads per core", "SMT threads per core", SB_STACK_ANY},
    {"smt_control", "SMT control (sysfs)", "SMT control", SB_STACK_NEVER},
    {"smt_active", "SMT active (sysfs)", "SMT active", SB_STACK_NEVER},
    {"thp", "transparent huge pages", "THP", SB_STACK_ANY},
    {"governor", "CPU frequency governor", "governor", SB_STACK_ANY},
    {"turbo", "turbo", "turbo", SB_STACK_ANY},
};

int sb_stack_nfields(void) { return (int)(sizeof g_fields / sizeof g_fields[0]); }

const sb_stack_field *sb_stack_field_at(int i)
{
    return i >= 0 && i < sb_stack_nfields() ? &g_fields[i] : NULL;
}

/* The first line of a sysfs file; 0 when it cannot be read or is empty. */
static int read_line(const char *path, char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    if (!fgets(out, (int)cap, f)) out[0] = '\0';
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
    return out[0] != '\0';
}

int sb_stack_bracketed(const char *line, char *out, size_t cap)
{
    const char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
    if (!a || !b || b == a + 1) return 0;
    snprintf(out, cap, "%.*s", (int)(b - a - 1), a + 1);
    return 1;
}

void sb_stack_hypervisor_name(const char sig[12], char *out, size_t cap)
{
    static const char *const known[][2] = {
        {"KVMKVMKVM", "KVM"},       {"Microsoft Hv", "Hyper-V"}, {"VMwareVMware", "VMware"},
        {"XenVMMXenVMM", "Xen"},    {"TCGTCGTCGTCG", "QEMU (TCG)"}, {"ACRNACRNACRN", "ACRN"},
        {"bhyve bhyve ", "bhyve"},  {" lrpepyh  vr", "Parallels"}, {"VBoxVBoxVBox", "VirtualBox"},
        {"QNXQVMBSQG", "QNX"},      {"EVMMEVMMEVMM", "Intel EVMM"},
    };
    char s[13];
    memcpy(s, sig, 12);
    s[12] = '\0';
    /* the signature pads with NULs: compare what is there */
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(s, known[i][0])) {
            snprintf(out, cap, "%s", known[i][1]);
            return;
        }
    size_t o = 0;
    for (int i = 0; i < 12 && s[i] && o + 1 < cap; i++)
        out[o++] = isprint((unsigned char)s[i]) ? s[i] : '?';
    if (cap) out[o < cap ? o : cap - 1] = '\0';
    if (o == 0) snprintf(out, cap, "present (unnamed)");
}

/* CPUID.1:ECX[31] says a hypervisor is there and leaf 0x40000000 names
 * it; Xen's paravirtualised guests say so in /sys/hypervisor/type. */
static void hypervisor(char *out, size_t cap)
{
    out[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 31))) {
        char sig[12];
        __cpuid(0x40000000, a, b, c, d);
        memcpy(sig, &b, 4);
        memcpy(sig + 4, &c, 4);
        memcpy(sig + 8, &d, 4);
        sb_stack_hypervisor_name(sig, out, cap);
        return;
    }
#endif
    char t[64];
    if (read_line("/sys/hypervisor/type", t, sizeof t))
        snprintf(out, cap, "%s", t);
#if defined(__x86_64__) || defined(__i386__)
    else
        snprintf(out, cap, "none"); /* the CPUID bit is clear: bare metal */
#endif
}

/* The MPI library this process runs with (not the headers it was built
 * against): MPI_Get_library_version may be called before MPI_Init. Its
 * first clause ("Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4"). */
static void mpi_library(char *out, size_t cap)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    out[0] = '\0';
    if (MPI_Get_library_version(v, &len) != MPI_SUCCESS) return;
    v[len > 0 && len < (int)sizeof v ? len : (int)sizeof v - 1] = '\0';
    v[strcspn(v, ",\n")] = '\0';
    size_t o = 0;
    for (const char *p = v; *p && o + 1 < cap; p++) {
        char ch = isspace((unsigned char)*p) ? ' ' : *p;
        if (ch == ' ' && (o == 0 || out[o - 1] == ' ')) continue;
        out[o++] = isprint((unsigned char)ch) ? ch : '?';
    }
    while (o && out[o - 1] == ' ') o--;
    out[o] = '\0';
}

/* intel_pstate says no_turbo (1: off), acpi-cpufreq says boost (1: on). */
static void turbo(char *out, size_t cap)
{
    char v[16];
    out[0] = '\0';
    if (read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", v, sizeof v) &&
        (!strcmp(v, "0") || !strcmp(v, "1")))
        snprintf(out, cap, "%s (intel_pstate)", v[0] == '0' ? "on" : "off");
    else if (read_line("/sys/devices/system/cpu/cpufreq/boost", v, sizeof v) &&
             (!strcmp(v, "0") || !strcmp(v, "1")))
        snprintf(out, cap, "%s (cpufreq boost)", v[0] == '1' ? "on" : "off");
}

static void put(json_t *o, const char *key, const char *v)
{
    if (v && *v) json_object_set_new(o, key, json_string(v));
}

static json_t *g_stack;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void stack_init(void)
{
    json_t *o = json_object();
    if (!o) return;
    char buf[512];
    put(o, "compiler", SB_C_COMPILER);
    put(o, "build_type", SB_BUILD_TYPE);
    put(o, "c_flags", SB_C_FLAGS);
    static const char *const keys[SB_VENDOR_COUNT][2] = {{"onednn", "onednn_origin"},
                                                         {"mkl", "mkl_origin"}};
    for (int i = 0; i < SB_VENDOR_COUNT; i++) {
        const sb_vendor_lib *l = sb_vendor_get((sb_vendor_id)i);
        /* not loaded is a fact of the run (its kernels were skipped), not
         * an unreadable field */
        put(o, keys[i][0], l->loaded ? l->version : "not loaded");
        if (l->loaded)
            snprintf(buf, sizeof buf, "%.440s%s%.30s", l->origin, l->runtime[0] ? ", " : "", l->runtime);
        else
            snprintf(buf, sizeof buf, "%s", l->why);
        put(o, keys[i][1], buf);
    }
    mpi_library(buf, sizeof buf);
    put(o, "mpi", buf);
    struct utsname u;
    if (uname(&u) == 0) put(o, "kernel", u.release);
    hypervisor(buf, sizeof buf);
    put(o, "hypervisor", buf);
    const sb_sysinfo *si = sb_sysinfo_cached();
    if (si && si->cores > 0 && si->pus >= si->cores && si->pus % si->cores == 0) {
        snprintf(buf, sizeof buf, "%d", si->pus / si->cores);
        put(o, "threads_per_core", buf);
    }
    if (read_line("/sys/devices/system/cpu/smt/control", buf, sizeof buf))
        put(o, "smt_control", buf);
    if (read_line("/sys/devices/system/cpu/smt/active", buf, sizeof buf))
        put(o, "smt_active", !strcmp(buf, "1") ? "yes" : !strcmp(buf, "0") ? "no" : buf);
    char line[256];
    if (read_line("/sys/kernel/mm/transparent_hugepage/enabled", line, sizeof line) &&
        sb_stack_bracketed(line, buf, sizeof buf))
        put(o, "thp", buf);
    if (read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", buf, sizeof buf))
        put(o, "governor", buf);
    turbo(buf, sizeof buf);
    put(o, "turbo", buf);
    g_stack = o;
}

json_t *sb_stack_json(void)
{
    pthread_once(&g_once, stack_init);
    return g_stack ? json_deep_copy(g_stack) : json_object();
}
