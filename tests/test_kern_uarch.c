/* The microarchitecture from what a CPU reports (sb_uarch): a table of real
 * signatures (family, model, features, caches, hypervisor) of Intel and AMD
 * parts, and of masked ones (a hypervisor reporting another part's model
 * number, or hiding AMX), each mapped to the name and to how it was named;
 * no CPU with AMX is ever named as a client part; the override and the
 * selectors' spellings. */
#include <string.h>
#include "sb_uarch.h"
#include "testutil.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)
#define I "GenuineIntel"
#define A "AuthenticAMD"

/* features: avx512f, avx512_bf16, avx512_fp16, avx_vnni, amx_tile, amx_fp16,
 * avx10 (1 yes, 0 no, -1 not recorded), then hypervisor, L2, L3 */
static const struct {
    const char *what;
    sb_cpu_sig sig;
    const char *name;
    int source;
    const char *how; /* a piece of the explanation, "" none checked */
} g_cases[] = {
    /* ---- Intel, named by the model number ---- */
    {"Ice Lake-SP 8380 (bare metal)",
     {I, 6, 106, 6, 1, 0, 0, 0, 0, 0, 0, 0, 1280 * KIB, 60 * MIB},
     "Ice Lake",
     SB_UARCH_MODEL,
     "model number"},
    {"Ice Lake-D",
     {I, 6, 108, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1280 * KIB, 15 * MIB},
     "Ice Lake",
     SB_UARCH_MODEL,
     ""},
    {"Sapphire Rapids 8480+",
     {I, 6, 143, 8, 1, 1, 1, 1, 1, 0, 0, 0, 2 * MIB, 105 * MIB},
     "Sapphire Rapids",
     SB_UARCH_MODEL,
     ""},
    {"Sapphire Rapids KVM guest",
     {I, 6, 143, 8, 1, 1, 1, 1, 1, 0, 0, 1, 2 * MIB, 105 * MIB},
     "Sapphire Rapids",
     SB_UARCH_MODEL,
     ""},
    {"Emerald Rapids 8592+",
     {I, 6, 207, 2, 1, 1, 1, 1, 1, 0, 0, 0, 2 * MIB, 320 * MIB},
     "Emerald Rapids",
     SB_UARCH_MODEL,
     ""},
    /* results/machines/emr-xeon-2026-12-01-amx.json */
    {"Emerald Rapids record, AMX granted",
     {I, 6, 207, 2, 1, 1, -1, 1, 1, -1, -1, -1, 2 * MIB, 300 * MIB},
     "Emerald Rapids",
     SB_UARCH_MODEL,
     ""},
    /* results/machines/emr-xeon-noamx-2026-12-03.json: the hypervisor hides
     * AMX; hiding never makes another part */
    {"Emerald Rapids record, AMX hidden",
     {I, 6, 207, 2, 1, 1, -1, 1, 0, -1, -1, -1, 2 * MIB, 260 * MIB},
     "Emerald Rapids",
     SB_UARCH_MODEL,
     ""},
    {"Emerald Rapids, AMX and FP16 hidden",
     {I, 6, 207, 2, 1, 0, 0, 0, 0, 0, 0, 1, 2 * MIB, 0},
     "Emerald Rapids",
     SB_UARCH_MODEL,
     ""},
    {"Granite Rapids 6980P",
     {I, 6, 173, 1, 1, 1, 1, 1, 1, 1, 1, 0, 2 * MIB, 504 * MIB},
     "Granite Rapids",
     SB_UARCH_MODEL,
     ""},
    {"Granite Rapids-D",
     {I, 6, 174, 1, 1, 1, 1, 1, 1, 1, 1, 0, 2 * MIB, 96 * MIB},
     "Granite Rapids",
     SB_UARCH_MODEL,
     ""},
    {"Sierra Forest 6780E",
     {I, 6, 175, 3, 0, 0, 0, 1, 0, 0, 0, 0, 4 * MIB, 108 * MIB},
     "Sierra Forest",
     SB_UARCH_MODEL,
     ""},
    {"Rocket Lake i9-11900K",
     {I, 6, 167, 1, 1, 0, 0, 0, 0, 0, 0, 0, 512 * KIB, 16 * MIB},
     "Rocket Lake",
     SB_UARCH_MODEL,
     ""},
    {"Rocket Lake KVM guest",
     {I, 6, 167, 1, 1, 0, 0, 0, 0, 0, 0, 1, 512 * KIB, 16 * MIB},
     "Rocket Lake",
     SB_UARCH_MODEL,
     ""},
    {"Alder Lake i9-12900K",
     {I, 6, 151, 2, 0, 0, 0, 1, 0, 0, 0, 0, 1280 * KIB, 30 * MIB},
     "Alder Lake",
     SB_UARCH_MODEL,
     ""},
    {"Alder Lake-P",
     {I, 6, 154, 3, 0, 0, 0, 1, 0, 0, 0, 0, 1280 * KIB, 24 * MIB},
     "Alder Lake",
     SB_UARCH_MODEL,
     ""},
    /* a client with 2 MiB of L2 stays a client */
    {"Raptor Lake i9-13900K",
     {I, 6, 183, 1, 0, 0, 0, 1, 0, 0, 0, 0, 2 * MIB, 36 * MIB},
     "Raptor Lake",
     SB_UARCH_MODEL,
     ""},
    {"Raptor Lake-P",
     {I, 6, 186, 2, 0, 0, 0, 1, 0, 0, 0, 0, 1280 * KIB, 24 * MIB},
     "Raptor Lake",
     SB_UARCH_MODEL,
     ""},
    {"Raptor Lake-S refresh",
     {I, 6, 191, 2, 0, 0, 0, 1, 0, 0, 0, 0, 2 * MIB, 36 * MIB},
     "Raptor Lake",
     SB_UARCH_MODEL,
     ""},
    {"Cascade Lake 8280",
     {I, 6, 85, 7, 1, 0, 0, 0, 0, 0, 0, 0, 1 * MIB, 38 * MIB},
     "Cascade Lake",
     SB_UARCH_MODEL,
     ""},
    {"Cooper Lake 8380H",
     {I, 6, 85, 11, 1, 1, 0, 0, 0, 0, 0, 0, 1 * MIB, 38 * MIB},
     "Cooper Lake",
     SB_UARCH_MODEL,
     ""},
    {"Skylake-SP 8180",
     {I, 6, 85, 4, 1, 0, 0, 0, 0, 0, 0, 0, 1 * MIB, 38 * MIB},
     "Skylake-SP",
     SB_UARCH_MODEL,
     ""},
    /* the L3 says a later part, no feature does (all hidden): the number stands */
    {"model 143, features hidden, a 300 MiB L3",
     {I, 6, 143, 8, 1, 0, 0, 0, 0, 0, 0, 1, 2 * MIB, 300 * MIB},
     "Sapphire Rapids",
     SB_UARCH_MODEL,
     "300 MiB L3 is larger than that part has"},
    /* a record that kept no features (scripts/gen-synthetic-db) */
    {"model 143, no features recorded",
     {I, 6, 143, 8, -1, -1, -1, -1, -1, -1, -1, -1, 2 * MIB, 105 * MIB},
     "Sapphire Rapids",
     SB_UARCH_MODEL,
     "no features recorded"},
    /* ---- AMD ---- */
    {"Zen 2 EPYC 7742 (Rome)",
     {A, 23, 0x31, 0, 0, 0, 0, 0, 0, 0, 0, 0, 512 * KIB, 16 * MIB},
     "Zen 2",
     SB_UARCH_MODEL,
     ""},
    {"Zen 2 Ryzen 3900X (Matisse)",
     {A, 23, 0x71, 0, 0, 0, 0, 0, 0, 0, 0, 0, 512 * KIB, 16 * MIB},
     "Zen 2",
     SB_UARCH_MODEL,
     ""},
    {"Zen 2 Renoir",
     {A, 23, 0x60, 1, 0, 0, 0, 0, 0, 0, 0, 0, 512 * KIB, 4 * MIB},
     "Zen 2",
     SB_UARCH_MODEL,
     ""},
    /* results/machines/zen3-epyc-2026-12-01.json */
    {"Zen 3 EPYC (Milan) KVM guest",
     {A, 25, 0x01, 1, 0, 0, -1, 0, 0, -1, -1, -1, 512 * KIB, 32 * MIB},
     "Zen 3",
     SB_UARCH_MODEL,
     ""},
    {"Zen 3 Ryzen 5950X (Vermeer)",
     {A, 25, 0x21, 0, 0, 0, 0, 0, 0, 0, 0, 0, 512 * KIB, 32 * MIB},
     "Zen 3",
     SB_UARCH_MODEL,
     ""},
    {"Zen 3 Cezanne",
     {A, 25, 0x50, 0, 0, 0, 0, 0, 0, 0, 0, 0, 512 * KIB, 16 * MIB},
     "Zen 3",
     SB_UARCH_MODEL,
     ""},
    /* results/machines/zen4-epyc-2026-12-03.json */
    {"Zen 4 EPYC 9654 (Genoa)",
     {A, 25, 0x11, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1 * MIB, 32 * MIB},
     "Zen 4",
     SB_UARCH_MODEL,
     ""},
    {"Zen 4 Ryzen 7950X (Raphael)",
     {A, 25, 0x61, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1 * MIB, 32 * MIB},
     "Zen 4",
     SB_UARCH_MODEL,
     ""},
    {"Zen 4c EPYC 9754 (Bergamo)",
     {A, 25, 0xA0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1 * MIB, 16 * MIB},
     "Zen 4",
     SB_UARCH_MODEL,
     ""},
    {"Zen 4, AVX-512 hidden",
     {A, 25, 0x11, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1 * MIB, 32 * MIB},
     "Zen 4",
     SB_UARCH_MODEL,
     ""},
    {"Zen 5 EPYC 9755 (Turin)",
     {A, 26, 0x02, 1, 1, 1, 0, 1, 0, 0, 0, 0, 1 * MIB, 32 * MIB},
     "Zen 5",
     SB_UARCH_MODEL,
     ""},
    {"Zen 5 Ryzen 9950X",
     {A, 26, 0x44, 0, 1, 1, 0, 1, 0, 0, 0, 0, 1 * MIB, 32 * MIB},
     "Zen 5",
     SB_UARCH_MODEL,
     ""},
    /* ---- masked: the model number says one part, the features another ---- */
    /* the KVM guest of issue #40: Rocket Lake's number with AMX, AVX512-FP16,
     * a 2 MiB L2 and a 480 MiB L3 */
    {"model 167 with AMX and a 480 MiB L3 under KVM",
     {I, 6, 167, 1, 1, 1, 1, 1, 1, 0, 0, 1, 2 * MIB, 480 * MIB},
     "Granite Rapids-class",
     SB_UARCH_FEATURES,
     "model 167 reported under a hypervisor; inferred from AMX, AVX512-FP16, a 2 MiB L2 and a"
     " 480 MiB L3"},
    /* the same machine's record, taken before AVX512-FP16 and the
     * hypervisor bit were recorded (masked-amx-xeon-2026-12-04.json) */
    {"model 167 record with AMX and a 480 MiB L3",
     {I, 6, 167, 1, 1, 1, -1, 1, 1, -1, -1, -1, 2 * MIB, 503316480ull},
     "Granite Rapids-class",
     SB_UARCH_FEATURES,
     "inferred from AMX, a 2 MiB L2 and a 480 MiB L3"},
    {"model 167 with AMX and a small L3",
     {I, 6, 167, 1, 1, 1, 1, 1, 1, 0, 0, 1, 2 * MIB, 105 * MIB},
     "Sapphire Rapids-class",
     SB_UARCH_FEATURES,
     "inferred from AMX"},
    {"model 167 with AMX-FP16",
     {I, 6, 167, 1, 1, 1, 1, 1, 1, 1, 0, 1, 2 * MIB, 0},
     "Granite Rapids-class",
     SB_UARCH_FEATURES,
     "AMX-FP16"},
    {"model 167 with AVX512-FP16, AMX hidden",
     {I, 6, 167, 1, 1, 1, 1, 1, 0, 0, 0, 1, 2 * MIB, 0},
     "Sapphire Rapids-class",
     SB_UARCH_FEATURES,
     "AVX512-FP16"},
    /* a guest given Sapphire Rapids' model on a newer host */
    {"model 143 with AMX-FP16 and AVX10",
     {I, 6, 143, 8, 1, 1, 1, 1, 1, 1, 1, 1, 2 * MIB, 0},
     "Granite Rapids-class",
     SB_UARCH_FEATURES,
     "AMX-FP16, AVX10"},
    {"model 143 with a 300 MiB L3",
     {I, 6, 143, 8, 1, 1, 1, 1, 1, 0, 0, 1, 2 * MIB, 300 * MIB},
     "Emerald Rapids-class",
     SB_UARCH_FEATURES,
     "300 MiB L3"},
    {"model 207 with a 480 MiB L3",
     {I, 6, 207, 2, 1, 1, 1, 1, 1, 0, 0, 1, 2 * MIB, 480 * MIB},
     "Granite Rapids-class",
     SB_UARCH_FEATURES,
     "480 MiB L3"},
    {"Alder Lake's number with AMX",
     {I, 6, 151, 2, 1, 1, 1, 1, 1, 0, 0, 1, 2 * MIB, 60 * MIB},
     "Sapphire Rapids-class",
     SB_UARCH_FEATURES,
     "model 151 reported under a hypervisor"},
    {"Cascade Lake's number with AVX512-BF16",
     {I, 6, 85, 7, 1, 1, 0, 0, 0, 0, 0, 1, 1 * MIB, 0},
     "Cooper Lake-class",
     SB_UARCH_FEATURES,
     "AVX512-BF16"},
    {"an unknown Intel model with AMX",
     {I, 6, 0xD7, 0, 1, 1, 1, 1, 1, 0, 0, 1, 2 * MIB, 0},
     "Sapphire Rapids-class",
     SB_UARCH_FEATURES,
     "model 215 reported under a hypervisor"},
    {"Zen 3's number with AVX-512",
     {A, 25, 0x01, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1 * MIB, 32 * MIB},
     "Zen 4-class",
     SB_UARCH_FEATURES,
     "inferred from AVX-512"},
    {"Zen 4's number with AVX-VNNI",
     {A, 25, 0x11, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1 * MIB, 32 * MIB},
     "Zen 5-class",
     SB_UARCH_FEATURES,
     "AVX-512 and AVX-VNNI"},
    /* ---- neither ---- */
    {"an unknown Intel model without news",
     {I, 6, 0xD7, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0},
     "unknown",
     SB_UARCH_UNKNOWN,
     "not in the table"},
    {"another vendor",
     {"HygonGenuine", 24, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0},
     "unknown",
     SB_UARCH_UNKNOWN,
     ""},
};

static void test_table(void)
{
    for (size_t i = 0; i < sizeof g_cases / sizeof g_cases[0]; i++) {
        sb_uarch u;
        sb_uarch_identify(&g_cases[i].sig, &u);
        CHECKF(!strcmp(u.name, g_cases[i].name), "%s: named '%s', expected '%s' (%s)",
               g_cases[i].what, u.name, g_cases[i].name, u.how);
        CHECKF(u.source == g_cases[i].source, "%s: source %s, expected %s", g_cases[i].what,
               sb_uarch_source_name(u.source), sb_uarch_source_name(g_cases[i].source));
        CHECKF(strstr(u.how, g_cases[i].how) != NULL, "%s: how '%s' lacks '%s'", g_cases[i].what,
               u.how, g_cases[i].how);
        /* an inferred name says so, and its tables are its class's */
        if (u.source == SB_UARCH_FEATURES)
            CHECKF(strstr(u.name, "-class") && strstr(u.how, "inferred from ") &&
                       !strncmp(u.name, u.table, strlen(u.table)),
                   "%s: '%s' / '%s' / '%s'", g_cases[i].what, u.name, u.table, u.how);
        printf("  %-48s %-22s %s\n", g_cases[i].what, u.name, u.how);
    }
}

/* Whatever the model number, a CPU with AMX is a server part. */
static void test_amx_never_client(void)
{
    static const char *const client[] = {"Rocket Lake", "Alder Lake",        "Raptor Lake",
                                         "Tiger Lake",  "Ice Lake (client)", "Skylake",
                                         "Haswell",     "Broadwell",         "Sierra Forest",
                                         "Ice Lake",    "Cascade Lake",      "Cooper Lake"};
    for (unsigned model = 0; model < 256; model++) {
        sb_cpu_sig s = {I, 6, model, 11, 1, 1, -1, 1, 1, -1, -1, 1, 2 * MIB, 0};
        sb_uarch u;
        sb_uarch_identify(&s, &u);
        for (size_t k = 0; k < sizeof client / sizeof client[0]; k++)
            CHECKF(strcmp(u.name, client[k]), "model %u with AMX named %s", model, u.name);
        CHECKF(strstr(u.name, "Rapids"), "model %u with AMX named %s", model, u.name);
    }
}

static void test_override(void)
{
    sb_cpu_sig s = {I, 6, 167, 1, 1, 1, 1, 1, 1, 0, 0, 1, 2 * MIB, 480 * MIB};
    sb_uarch u;
    sb_uarch_identify(&s, &u);
    sb_uarch_override("granite-rapids", "SB_CPU_UARCH", &u);
    CHECK(!strcmp(u.name, "Granite Rapids") && !strcmp(u.table, "Granite Rapids"));
    CHECK(u.source == SB_UARCH_OVERRIDE);
    CHECK(strstr(u.how, "set by SB_CPU_UARCH") == u.how);
    CHECK(strstr(u.how, "Granite Rapids-class (model 167") != NULL);
    sb_uarch_identify(&s, &u);
    sb_uarch_override("My Lab Part", "SB_CPU_UARCH", &u);
    CHECK(!strcmp(u.name, "My Lab Part") && !u.table[0]);
    CHECK(sb_uarch_source_from(sb_uarch_source_name(SB_UARCH_OVERRIDE)) == SB_UARCH_OVERRIDE);
    CHECK(sb_uarch_source_from("guess") == -1);
}

static void test_matches(void)
{
    CHECK(sb_uarch_matches("granite-rapids", "Granite Rapids-class"));
    CHECK(sb_uarch_matches("Granite Rapids-class", "Granite Rapids-class"));
    CHECK(sb_uarch_matches("GRANITE RAPIDS", "Granite Rapids"));
    CHECK(sb_uarch_matches("gnr", "Granite Rapids-class"));
    CHECK(sb_uarch_matches("sapphire_rapids", "Sapphire Rapids"));
    CHECK(sb_uarch_matches("spr", "Sapphire Rapids-class"));
    CHECK(sb_uarch_matches("zen4", "Zen 4-class"));
    CHECK(sb_uarch_matches("icelake-server", "Ice Lake"));
    CHECK(!sb_uarch_matches("rocket-lake", "Granite Rapids-class"));
    CHECK(!sb_uarch_matches("zen4", "Zen 5"));
    CHECK(!sb_uarch_matches("class", "Granite Rapids-class"));
    CHECK(!sb_uarch_matches("", "Zen 4"));
    char b[64];
    CHECK(!strcmp(sb_uarch_table_of("Granite Rapids-class", b, sizeof b), "Granite Rapids"));
    CHECK(!strcmp(sb_uarch_table_of("Zen 4", b, sizeof b), "Zen 4"));
    sb_uarch_display("Emerald Rapids", 1, b, sizeof b);
    CHECK(!strcmp(b, "Emerald Rapids (AMX)"));
    sb_uarch_display("Emerald Rapids", 0, b, sizeof b);
    CHECK(!strcmp(b, "Emerald Rapids (no AMX)"));
    sb_uarch_display("Zen 4", -1, b, sizeof b);
    CHECK(!strcmp(b, "Zen 4"));
}

int main(void)
{
    test_table();
    test_amx_never_client();
    test_override();
    test_matches();
    printf("%d checks, %d failures\n", g_test_checks, g_test_failures);
    return g_test_failures ? 1 : 0;
}
