#include "sb_uarch.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)

/* Feature levels, the newest features a CPU reports. Intel: 1 AVX512-BF16
 * (Cooper Lake); 2 AMX or AVX512-FP16 (Sapphire Rapids and later server
 * parts; AVX512-BF16 with AVX-VNNI too, which only they pair); 3 AMX-FP16 or
 * AVX10 (Granite Rapids and later). AMD: 1 AVX-512 (Zen 4); 2 AVX-VNNI
 * beside it (Zen 5). A hypervisor can hide features, never add them: a
 * level above what the model number's part has is the model number wrong. */
static int intel_level(const sb_cpu_sig *s)
{
    if (s->amx_fp16 == 1 || s->avx10 == 1) return 3;
    if (s->amx_tile == 1 || s->avx512_fp16 == 1) return 2;
    if (s->avx512_bf16 == 1) return s->avx_vnni == 1 ? 2 : 1;
    return 0;
}

static int amd_level(const sb_cpu_sig *s)
{
    if (s->avx512f != 1) return 0;
    return s->avx_vnni == 1 ? 2 : 1;
}

/* One model number: its part, the highest feature level that part reports,
 * and for server parts the largest L3 any SKU of it has (MiB; 0: not
 * checked), which a bigger one contradicts. */
typedef struct {
    unsigned model, min_stepping;
    const char *name;
    int level;
    double max_l3_mib;
} intel_part;

/* family 6, by model number (Intel SDM vol. 4 and the kernel's intel-family.h) */
static const intel_part g_intel[] = {
    {0x3C, 0, "Haswell", 0, 0},
    {0x3F, 0, "Haswell", 0, 0},
    {0x45, 0, "Haswell", 0, 0},
    {0x46, 0, "Haswell", 0, 0},
    {0x3D, 0, "Broadwell", 0, 0},
    {0x47, 0, "Broadwell", 0, 0},
    {0x4F, 0, "Broadwell", 0, 0},
    {0x56, 0, "Broadwell", 0, 0},
    /* Kaby, Coffee, Whiskey and Comet Lake keep the Skylake core */
    {0x4E, 0, "Skylake", 0, 0},
    {0x5E, 0, "Skylake", 0, 0},
    {0x8E, 0, "Skylake", 0, 0},
    {0x9E, 0, "Skylake", 0, 0},
    {0xA5, 0, "Skylake", 0, 0},
    {0xA6, 0, "Skylake", 0, 0},
    /* one model number, three parts told apart by stepping (highest first) */
    {0x55, 10, "Cooper Lake", 1, 0},
    {0x55, 5, "Cascade Lake", 0, 0},
    {0x55, 0, "Skylake-SP", 0, 0},
    {0x6A, 0, "Ice Lake", 0, 0}, /* Ice Lake-SP (the server part) */
    {0x6C, 0, "Ice Lake", 0, 0}, /* Ice Lake-D */
    {0x7D, 0, "Ice Lake (client)", 0, 0},
    {0x7E, 0, "Ice Lake (client)", 0, 0},
    {0x8C, 0, "Tiger Lake", 0, 0},
    {0x8D, 0, "Tiger Lake", 0, 0},
    {0xA7, 0, "Rocket Lake", 0, 0},
    {0x97, 0, "Alder Lake", 0, 0},
    {0x9A, 0, "Alder Lake", 0, 0},
    {0xB7, 0, "Raptor Lake", 0, 0},
    {0xBA, 0, "Raptor Lake", 0, 0},
    {0xBF, 0, "Raptor Lake", 0, 0},
    {0x8F, 0, "Sapphire Rapids", 2, 112.5}, /* 60 cores x 1.875 MiB */
    {0xCF, 0, "Emerald Rapids", 2, 320},    /* 64 cores x 5 MiB */
    {0xAD, 0, "Granite Rapids", 3, 0},
    {0xAE, 0, "Granite Rapids", 3, 0}, /* Granite Rapids-D */
    {0xAF, 0, "Sierra Forest", 0, 0},
};

static const intel_part *intel_model(unsigned model, unsigned stepping)
{
    for (size_t i = 0; i < sizeof g_intel / sizeof g_intel[0]; i++)
        if (g_intel[i].model == model && stepping >= g_intel[i].min_stepping) return &g_intel[i];
    return NULL;
}

/* family 0x17 and 0x19 by model range (AMD's revision guides); 0x1A is Zen 5 */
static const char *amd_model(unsigned family, unsigned model, int *level)
{
    *level = 0;
    if (family == 0x17) return model >= 0x30 ? "Zen 2" : "Zen";
    if (family == 0x19) {
        if (model <= 0x0F || (model >= 0x20 && model <= 0x5F)) return "Zen 3";
        if ((model >= 0x10 && model <= 0x1F) || (model >= 0x60 && model <= 0x7F) ||
            (model >= 0xA0 && model <= 0xAF)) {
            *level = 1;
            return "Zen 4";
        }
        return NULL;
    }
    if (family == 0x1A) {
        *level = 2;
        return "Zen 5";
    }
    return NULL;
}

/* The Intel server part the features (and a large L3) name: the L3 decides
 * between the parts of level 2 only when no smaller generation had one so
 * large (Sapphire Rapids 112.5 MiB, Emerald Rapids 320 MiB at most). */
static const char *intel_class(int level, unsigned long long l3, int *by_l3)
{
    *by_l3 = 0;
    if (level >= 3) return "Granite Rapids";
    if (level == 2) {
        *by_l3 = l3 > 112.5 * MIB;
        return l3 > 320 * MIB  ? "Granite Rapids"
            : l3 > 112.5 * MIB ? "Emerald Rapids"
                               : "Sapphire Rapids";
    }
    if (level == 1) return "Cooper Lake";
    return NULL;
}

static void cat(char *buf, size_t cap, const char *fmt, const char *s)
{
    size_t l = strlen(buf);
    if (l < cap) snprintf(buf + l, cap - l, fmt, s);
}

static void size_words(unsigned long long b, char *buf, size_t cap)
{
    double m = b / MIB;
    if (b >= (unsigned long long)MIB && b % (1024ull * 1024) == 0)
        snprintf(buf, cap, "%.0f MiB", m);
    else if (b >= (unsigned long long)MIB)
        snprintf(buf, cap, "%.1f MiB", m);
    else
        snprintf(buf, cap, "%llu KiB", b >> 10);
}

/* "AMX, AVX512-FP16, a 2 MiB L2 and a 480 MiB L3": the evidence a name was
 * inferred from, joined as a sentence. */
static void evidence(const sb_cpu_sig *s, int amd, int l3_used, char *out, size_t cap)
{
    const char *item[8];
    char l2[48], l3[48];
    int n = 0;
    if (amd) {
        if (s->avx512f == 1) item[n++] = "AVX-512";
        if (s->avx_vnni == 1 && s->avx512f == 1) item[n++] = "AVX-VNNI";
    } else {
        if (s->amx_fp16 == 1) item[n++] = "AMX-FP16";
        if (s->avx10 == 1) item[n++] = "AVX10";
        if (s->amx_tile == 1) item[n++] = "AMX";
        if (s->avx512_fp16 == 1) item[n++] = "AVX512-FP16";
        if (s->amx_tile != 1 && s->avx512_fp16 != 1 && s->avx512_bf16 == 1) {
            item[n++] = "AVX512-BF16";
            if (s->avx_vnni == 1) item[n++] = "AVX-VNNI";
        }
        /* server cores have 2 MiB of L2 since Sapphire Rapids */
        if (s->l2_bytes >= 2 * MIB) {
            char w[32];
            size_words(s->l2_bytes, w, sizeof w);
            snprintf(l2, sizeof l2, "a %s L2", w);
            item[n++] = l2;
        }
        if (s->l3_bytes && (l3_used || s->l3_bytes > 64 * MIB)) {
            char w[32];
            size_words(s->l3_bytes, w, sizeof w);
            snprintf(l3, sizeof l3, "a %s L3", w);
            item[n++] = l3;
        }
    }
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        cat(out, cap, i == 0 ? "%s" : i == n - 1 ? " and %s" : ", %s", item[i]);
    }
}

static void set(sb_uarch *u, const char *table, int inferred, int source)
{
    snprintf(u->table, sizeof u->table, "%s", table);
    snprintf(u->name, sizeof u->name, "%s%s", table, inferred ? "-class" : "");
    u->source = source;
}

/* "model 167 reported under a hypervisor": the number, not the part it
 * would be (the name a reader must not take away) */
static void reported(const sb_cpu_sig *s, char *buf, size_t cap)
{
    snprintf(buf, cap, "model %u %s", s->model,
             s->hypervisor == 1       ? "reported under a hypervisor"
                 : s->hypervisor == 0 ? "reported on bare metal"
                                      : "reported");
}

void sb_uarch_identify(const sb_cpu_sig *s, sb_uarch *u)
{
    memset(u, 0, sizeof *u);
    const char *vendor = s->vendor ? s->vendor : "";
    int intel = !strcmp(vendor, "GenuineIntel"), amd = !strcmp(vendor, "AuthenticAMD");
    const char *model_name = NULL, *feat_name = NULL;
    int model_level = 0, level = 0, by_l3 = 0, contradicted = 0;
    if (intel) {
        const intel_part *p = s->family == 6 ? intel_model(s->model, s->stepping) : NULL;
        level = intel_level(s);
        feat_name = intel_class(level, s->l3_bytes, &by_l3);
        if (p) {
            model_name = p->name;
            model_level = p->level;
            /* an L3 larger than any SKU of the part had: a later part */
            contradicted = p->max_l3_mib > 0 && s->l3_bytes > p->max_l3_mib * MIB;
        }
    } else if (amd) {
        model_name = amd_model(s->family, s->model, &model_level);
        level = amd_level(s);
        feat_name = level == 2 ? "Zen 5" : level == 1 ? "Zen 4" : NULL;
    }
    char rep[128], ev[200];
    if (model_name && level <= model_level && !contradicted) {
        set(u, model_name, 0, SB_UARCH_MODEL);
        /* a record from before the features were kept has only the number */
        int none = s->avx512f < 0 && s->amx_tile < 0 && s->avx512_bf16 < 0;
        snprintf(u->how, sizeof u->how, "by the model number; %s",
                 none ? "no features recorded" : "the features agree");
        return;
    }
    reported(s, rep, sizeof rep);
    if (feat_name && (!model_name || strcmp(feat_name, model_name))) {
        set(u, feat_name, 1, SB_UARCH_FEATURES);
        evidence(s, amd, by_l3 || contradicted, ev, sizeof ev);
        snprintf(u->how, sizeof u->how, "%s; inferred from %s", rep, ev);
        return;
    }
    if (model_name) { /* the model number, its L3 too large, and no later class named */
        char w[32];
        size_words(s->l3_bytes, w, sizeof w);
        set(u, model_name, 0, SB_UARCH_MODEL);
        snprintf(u->how, sizeof u->how,
                 "by the model number, though its %s L3 is larger than that part has; no"
                 " feature names a later one",
                 w);
        return;
    }
    snprintf(u->name, sizeof u->name, "unknown");
    u->source = SB_UARCH_UNKNOWN;
    snprintf(u->how, sizeof u->how,
             "%s family %u model %u is not in the table and its features"
             " name no class",
             *vendor ? vendor : "an unknown vendor's", s->family, s->model);
}

/* "Zen 4", "zen4", "ZEN-4" and "zen_4" are one name: letters and digits
 * only, lower case. */
static void squash(const char *s, char *buf, size_t cap)
{
    size_t w = 0;
    for (; s && *s && w + 1 < cap; s++)
        if (isalnum((unsigned char)*s)) buf[w++] = (char)tolower((unsigned char)*s);
    buf[w] = '\0';
}

/* "...class" dropped from a squashed name */
static void declass(char *s)
{
    size_t n = strlen(s);
    if (n > 5 && !strcmp(s + n - 5, "class")) s[n - 5] = '\0';
}

/* Every name sb_uarch_identify gives, for the override's spelling. */
static const char *const g_names[] = {
    "Haswell",
    "Broadwell",
    "Skylake",
    "Skylake-SP",
    "Cascade Lake",
    "Cooper Lake",
    "Ice Lake",
    "Ice Lake (client)",
    "Tiger Lake",
    "Rocket Lake",
    "Alder Lake",
    "Raptor Lake",
    "Sapphire Rapids",
    "Emerald Rapids",
    "Granite Rapids",
    "Sierra Forest",
    "Zen",
    "Zen 2",
    "Zen 3",
    "Zen 4",
    "Zen 5",
};

void sb_uarch_override(const char *name, const char *var, sb_uarch *u)
{
    char was[sizeof u->name + sizeof u->how + 8];
    snprintf(was, sizeof was, "%s (%s)", u->name, u->how);
    const char *known = NULL;
    for (size_t i = 0; i < sizeof g_names / sizeof g_names[0] && !known; i++)
        if (sb_uarch_matches(name, g_names[i])) known = g_names[i];
    snprintf(u->name, sizeof u->name, "%s", known ? known : name);
    snprintf(u->table, sizeof u->table, "%s", known ? known : "");
    u->source = SB_UARCH_OVERRIDE;
    snprintf(u->how, sizeof u->how, "set by %s; the CPU's signature names it %.*s", var,
             (int)(sizeof u->how - 64), was);
}

static const char *const g_sources[] = {"unknown", "model", "features", "override"};

const char *sb_uarch_source_name(int source)
{
    return source >= 0 && source < 4 ? g_sources[source] : "unknown";
}

int sb_uarch_source_from(const char *word)
{
    for (int i = 0; word && i < 4; i++)
        if (!strcmp(word, g_sources[i])) return i;
    return -1;
}

int sb_uarch_matches(const char *spec, const char *name)
{
    static const char *const alias[][2] = {
        {"icelakeserver", "icelake"}, {"icelakesp", "icelake"},           {"icx", "icelake"},
        {"spr", "sapphirerapids"},    {"emr", "emeraldrapids"},           {"gnr", "graniterapids"},
        {"srf", "sierraforest"},      {"icelakeclient", "icelakeclient"},
    };
    char a[96], b[96];
    squash(spec, a, sizeof a);
    squash(name, b, sizeof b);
    if (!*a || !*b) return 0;
    if (!strcmp(a, b)) return 1;
    declass(a);
    declass(b);
    if (!*a || !*b) return 0;
    if (!strcmp(a, b)) return 1;
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (!strcmp(a, alias[i][0]) && !strcmp(b, alias[i][1])) return 1;
    return 0;
}

const char *sb_uarch_table_of(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", name ? name : "");
    size_t n = strlen(buf);
    if (n > 6 && !strcmp(buf + n - 6, "-class")) buf[n - 6] = '\0';
    return buf;
}

void sb_uarch_display(const char *name, int amx, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s", name && *name ? name : "unknown",
             amx == 1       ? " (AMX)"
                 : amx == 0 ? " (no AMX)"
                            : "");
}
