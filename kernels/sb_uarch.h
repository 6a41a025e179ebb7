/* sb_uarch: which microarchitecture a CPU is, from what it says of itself:
 * the model number where the features agree with it, the features (and the
 * caches) where they do not. A hypervisor may report another part's model
 * number (a KVM guest of a Granite Rapids host that says "family 6 model
 * 167", Rocket Lake's), but it cannot give a guest instructions the host
 * lacks: AMX, AVX512-FP16 or AMX-FP16 outrank the number. The same function
 * names this CPU (sb_cpu) and every stored machine (the results store), so a
 * record taken by an older sprbench under a wrong name is shown under the
 * right one. Pure: no I/O, no state. */
#ifndef SB_UARCH_H
#define SB_UARCH_H
#include <stddef.h>

/* What a CPU reports, as sb_cpu reads it or a machine record keeps it. A
 * feature is 1 (reported), 0 (not reported) or -1 (not recorded: an older
 * record); a cache 0 when not recorded. */
typedef struct sb_cpu_sig {
    const char *vendor; /* "GenuineIntel", "AuthenticAMD" */
    unsigned family, model, stepping;
    int avx512f, avx512_bf16, avx512_fp16, avx_vnni, amx_tile, amx_fp16, avx10;
    int hypervisor;                        /* CPUID.1:ECX[31] */
    unsigned long long l2_bytes, l3_bytes; /* per instance */
} sb_cpu_sig;

/* How the name was arrived at. */
enum {
    SB_UARCH_UNKNOWN,  /* neither the model number nor the features name it */
    SB_UARCH_MODEL,    /* the model number, the features agreeing */
    SB_UARCH_FEATURES, /* inferred from the features: the number disagrees or is new */
    SB_UARCH_OVERRIDE  /* set by the user (SB_CPU_UARCH) */
};

typedef struct sb_uarch {
    char name[48];  /* for titles: "Emerald Rapids", "Granite Rapids-class", "unknown" */
    char table[32]; /* the per-cycle throughput tables' row ("Granite Rapids"); "" none */
    char how[400];  /* for `info`: "model 167 reported under a hypervisor; inferred from ..." */
    int source;     /* SB_UARCH_* */
} sb_uarch;

/* Names the CPU of s. Never fails: an unknown CPU is "unknown" with how
 * saying why. */
void sb_uarch_identify(const sb_cpu_sig *s, sb_uarch *u);

/* The user's name for this CPU (SB_CPU_UARCH) over u: recorded as an
 * override, how keeping what the signature said. A spelling of a known name
 * ("granite-rapids", "ZEN4") becomes that name and its tables; any other
 * text is kept as given, without tables. */
void sb_uarch_override(const char *name, const char *var, sb_uarch *u);

/* "model", "features", "override", "unknown": the record's microarch_source. */
const char *sb_uarch_source_name(int source);
/* SB_UARCH_* from such a word; -1 when it is none of them. */
int sb_uarch_source_from(const char *word);

/* Whether a person's spec names the microarchitecture `name`: letters and
 * digits compared, case, spaces and hyphens ignored, "-class" optional
 * ("granite-rapids" names "Granite Rapids-class"), and the usual short
 * names (spr, emr, gnr, icx). */
int sb_uarch_matches(const char *spec, const char *name);

/* The throughput tables' row of a name ("Granite Rapids-class" -> "Granite
 * Rapids"): the name without "-class", written to buf. */
const char *sb_uarch_table_of(const char *name, char *buf, size_t cap);

/* The name with the machine's AMX state, as every title names a machine:
 * "Emerald Rapids (AMX)", "Emerald Rapids (no AMX)"; amx -1 (not recorded):
 * the name alone. */
void sb_uarch_display(const char *name, int amx, char *buf, size_t cap);

#endif
