#include "sb_cpu.h"
#include <cpuid.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define ARCH_GET_XCOMP_SUPP 0x1021
#define ARCH_GET_XCOMP_PERM 0x1022
#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

static void cpuid2(unsigned leaf, unsigned sub, unsigned r[4])
{
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

/* One bit of a CPUID leaf; 0 when the CPU has no such leaf. */
static int cpuid_bit(unsigned max_leaf, unsigned leaf, unsigned sub, int reg, int bit)
{
    unsigned r[4];
    if (leaf > max_leaf) return 0;
    cpuid2(leaf, sub, r);
    return (r[reg] >> bit) & 1;
}

static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

void sb_cpu_signature(const sb_cpu *c, sb_cpu_sig *s)
{
    memset(s, 0, sizeof *s);
    s->vendor = c->vendor;
    s->family = c->family;
    s->model = c->model;
    s->stepping = c->stepping;
    s->avx512f = c->avx512f;
    s->avx512_bf16 = c->avx512_bf16;
    s->avx512_fp16 = c->avx512_fp16;
    s->avx_vnni = c->avx_vnni;
    s->amx_tile = c->amx_tile;
    s->amx_fp16 = c->amx_fp16;
    s->avx10 = c->avx10;
    s->hypervisor = c->hypervisor;
    s->l2_bytes = c->l2_bytes;
    s->l3_bytes = c->l3_bytes;
}

void sb_cpu_name(sb_cpu *c)
{
    sb_cpu_sig s;
    sb_uarch u;
    sb_cpu_signature(c, &s);
    sb_uarch_identify(&s, &u);
    /* the user knows better than a masked CPUID: recorded as theirs */
    const char *o = getenv("SB_CPU_UARCH");
    if (o && *o) sb_uarch_override(o, "SB_CPU_UARCH", &u);
    snprintf(c->microarch, sizeof c->microarch, "%s", u.name);
    snprintf(c->microarch_how, sizeof c->microarch_how, "%s", u.how);
    c->microarch_source = u.source;
}

/* CPUID leaf 4 (Intel) and 0x8000001D (AMD) share the layout: type in EAX[4:0],
 * level in EAX[7:5], ways/partitions/line size/sets in EBX/ECX. */
static void cache_leaf(sb_cpu *cpu, unsigned leaf)
{
    for (unsigned sub = 0; sub < 16; sub++) {
        unsigned a, b, c, d;
        __cpuid_count(leaf, sub, a, b, c, d);
        unsigned type = a & 31, level = (a >> 5) & 7;
        if (type == 0) break;
        if (type == 2) continue; /* instruction cache */
        size_t size = (size_t)((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) *
            ((size_t)c + 1);
        if (level == 1)
            cpu->l1d_bytes = size;
        else if (level == 2)
            cpu->l2_bytes = size;
        else if (level == 3)
            cpu->l3_bytes = size;
    }
}

static void cache_detect(sb_cpu *cpu, unsigned max_leaf)
{
    unsigned a, b, c, d;
    int amd = !strcmp(cpu->vendor, "AuthenticAMD");
    __cpuid(0x80000000, a, b, c, d);
    if (amd && a >= 0x8000001D) {
        __cpuid(0x80000001, a, b, c, d);
        if ((c >> 22) & 1) { /* TopologyExtensions: leaf 0x8000001D valid */
            cache_leaf(cpu, 0x8000001D);
            return;
        }
    }
    if (max_leaf >= 4) cache_leaf(cpu, 4);
}

void sb_cpu_detect(sb_cpu *c)
{
    unsigned r[4];
    memset(c, 0, sizeof *c);
    cpuid2(0, 0, r);
    unsigned max_leaf = r[0];
    memcpy(c->vendor, &r[1], 4);
    memcpy(c->vendor + 4, &r[3], 4);
    memcpy(c->vendor + 8, &r[2], 4);
    c->vendor[12] = '\0';
    cache_detect(c, max_leaf);

    cpuid2(1, 0, r);
    unsigned base_family = (r[0] >> 8) & 0xF, ext_family = (r[0] >> 20) & 0xFF;
    unsigned base_model = (r[0] >> 4) & 0xF, ext_model = (r[0] >> 16) & 0xF;
    c->stepping = r[0] & 0xF;
    c->family = base_family == 0xF ? base_family + ext_family : base_family;
    c->model = (base_family == 0x6 || base_family == 0xF) ? (ext_model << 4) | base_model
                                                          : base_model;
    int osxsave = (r[2] >> 27) & 1;
    if (osxsave) {
        c->xcr0 = read_xcr0();
        c->os_avx = (c->xcr0 & 0x6) == 0x6;
        c->os_avx512 = (c->xcr0 & 0xE6) == 0xE6;
        c->xcr0_amx = (c->xcr0 & (3ull << 17)) == (3ull << 17);
    }
    /* every row's bit, then the VEX-encoded ones are dropped without AVX */
#define SB_CPU_FLAG(field, leaf, subleaf, reg, bit, needs_avx, info_line) \
    c->field = cpuid_bit(max_leaf, leaf, subleaf, reg, bit);
#include "sb_cpu_flags.def"
#undef SB_CPU_FLAG
#define SB_CPU_FLAG(field, leaf, subleaf, reg, bit, needs_avx, info_line) \
    if (needs_avx) c->field = c->field && c->avx;
#include "sb_cpu_flags.def"
#undef SB_CPU_FLAG
    if (max_leaf >= 0x1D && c->amx_tile) {
        cpuid2(0x1D, 0, r);
        if (r[0] >= 1) {
            c->amx_palette1 = 1;
            cpuid2(0x1D, 1, r);
            c->amx_bytes_per_row = r[1] & 0xFFFF;
            c->amx_tiles = r[1] >> 16;
            c->amx_max_rows = r[2] & 0xFFFF;
        }
    }
    cpuid2(0x80000000, 0, r);
    if (r[0] >= 0x80000004) {
        char b[49];
        for (unsigned i = 0; i < 3; i++) {
            cpuid2(0x80000002 + i, 0, r);
            memcpy(b + 16 * i, r, 16);
        }
        b[48] = '\0';
        char *s = b;
        while (*s == ' ') s++;
        size_t n = strlen(s);
        while (n && s[n - 1] == ' ') s[--n] = '\0';
        snprintf(c->brand, sizeof c->brand, "%s", s);
    }
    sb_cpu_name(c);
}

/* The flags a test can force off, and what each takes with it. */
static const char *const g_force_flags[] = {"AVX2",     "AVX512", "AVX512_BF16", "AVX512_VNNI",
                                            "AVX_VNNI", "AMX",    "ONEDNN", "MKL"};
#define NFORCE (sizeof g_force_flags / sizeof g_force_flags[0])

int sb_cpu_forced_off(const char *flag)
{
    char name[64];
    snprintf(name, sizeof name, "SB_FORCE_NO_%s", flag);
    const char *v = getenv(name);
    return v && v[0] && strcmp(v, "0") != 0;
}

static void no_amx(sb_cpu *c)
{
    c->amx_tile = c->amx_bf16 = c->amx_int8 = c->amx_fp16 = c->amx_palette1 = 0;
}

static void no_avx512(sb_cpu *c)
{
    c->avx512f = c->avx512bw = c->avx512vl = c->avx512dq = 0;
    c->avx512_vnni = c->avx512_bf16 = c->avx512_fp16 = 0;
    c->os_avx512 = 0;
    no_amx(c); /* no CPU has AMX without AVX-512, and our AMX code packs with it */
}

void sb_cpu_apply_forces(sb_cpu *c)
{
    size_t off = 0;
    c->forced[0] = '\0';
    for (size_t i = 0; i < NFORCE; i++) {
        if (!sb_cpu_forced_off(g_force_flags[i])) continue;
        const char *f = g_force_flags[i];
        if (!strcmp(f, "AVX2")) {
            c->avx2 = c->fma = c->avx_vnni = 0;
            no_avx512(c);
        } else if (!strcmp(f, "AVX512")) {
            no_avx512(c);
        } else if (!strcmp(f, "AVX512_BF16")) {
            c->avx512_bf16 = 0;
        } else if (!strcmp(f, "AVX512_VNNI")) {
            c->avx512_vnni = 0;
        } else if (!strcmp(f, "AVX_VNNI")) {
            c->avx_vnni = 0;
        } else if (!strcmp(f, "AMX")) {
            no_amx(c);
        }
        if (off < sizeof c->forced)
            off += (size_t)snprintf(c->forced + off, sizeof c->forced - off, "%sSB_FORCE_NO_%s",
                                    off ? " " : "", f);
    }
}

int sb_cpu_check_forces(char *why, size_t whylen)
{
    extern char **environ;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "SB_FORCE_NO_", 12) != 0) continue;
        const char *eq = strchr(*e, '=');
        if (!eq) continue;
        size_t nlen = (size_t)(eq - (*e + 12));
        int known = 0;
        for (size_t i = 0; i < NFORCE; i++)
            if (strlen(g_force_flags[i]) == nlen && !strncmp(*e + 12, g_force_flags[i], nlen))
                known = 1;
        if (!known) {
            snprintf(why, whylen,
                     "unknown variable %.*s (known: SB_FORCE_NO_ + AVX2, AVX512, AVX512_BF16, "
                     "AVX512_VNNI, AVX_VNNI, AMX, ONEDNN, MKL)",
                     (int)(eq - *e > 64 ? 64 : eq - *e), *e);
            return -1;
        }
        const char *v = eq + 1;
        if (v[0] && strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
            snprintf(why, whylen, "%.*s='%.32s': the value must be 1 (forced off), 0 or empty",
                     (int)(eq - *e), *e, v);
            return -1;
        }
    }
    return 0;
}

static sb_cpu g_cpu, g_cpu_hw;
static pthread_once_t g_cpu_once = PTHREAD_ONCE_INIT;
static void cpu_init(void)
{
    sb_cpu_detect(&g_cpu_hw);
    g_cpu = g_cpu_hw;
    sb_cpu_apply_forces(&g_cpu);
}

const sb_cpu *sb_cpu_hw(void)
{
    pthread_once(&g_cpu_once, cpu_init);
    return &g_cpu_hw;
}

const sb_cpu *sb_cpu_get(void)
{
    pthread_once(&g_cpu_once, cpu_init);
    return &g_cpu;
}

static sb_amx_status g_amx;
static pthread_once_t g_amx_once = PTHREAD_ONCE_INIT;

static void amx_init(void)
{
    const sb_cpu *c = sb_cpu_get();
    sb_amx_status *s = &g_amx;
    struct utsname u;
    const char *rel = uname(&u) == 0 ? u.release : "?";
    if (!c->amx_tile) {
        snprintf(s->why, sizeof s->why, "CPU has no AMX (CPUID.7.0:EDX[24] amx_tile = 0)");
        return;
    }
    if (!c->xcr0_amx) {
        snprintf(s->why, sizeof s->why,
                 "OS has not enabled AMX state in XCR0 (bits 17-18; XCR0=0x%llx, kernel %s)",
                 (unsigned long long)c->xcr0, rel);
        return;
    }
    unsigned long mask = 0;
    if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_SUPP, &mask) == 0) {
        s->supp_ok = 1;
        s->supp_mask = mask;
    }
    if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) != 0) {
        s->req_errno = errno;
        snprintf(s->why, sizeof s->why,
                 "kernel refused arch_prctl(ARCH_REQ_XCOMP_PERM, 18): %s (errno %d, kernel %s)",
                 strerror(s->req_errno), s->req_errno, rel);
        return;
    }
    mask = 0;
    if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &mask) == 0) s->perm_mask = mask;
    if (!(s->perm_mask & (1ul << XFEATURE_XTILEDATA))) {
        snprintf(s->why, sizeof s->why,
                 "ARCH_GET_XCOMP_PERM does not include XTILEDATA (mask 0x%llx, kernel %s)",
                 (unsigned long long)s->perm_mask, rel);
        return;
    }
    if (!c->amx_palette1) {
        snprintf(s->why, sizeof s->why, "CPUID leaf 0x1D reports no palette 1");
        return;
    }
    s->permitted = 1;
}

const sb_amx_status *sb_amx_request(void)
{
    pthread_once(&g_amx_once, amx_init);
    return &g_amx;
}

int sb_cpu_vector_level(void)
{
    const sb_cpu *c = sb_cpu_get();
    if (!c) return 0;
    if (c->avx512f && c->avx512dq && c->avx512bw && c->avx512vl && c->os_avx512 && c->fma) return 2;
    if (c->avx2 && c->fma && c->os_avx) return 1;
    return 0;
}
