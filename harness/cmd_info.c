/* sprbench info: what this machine is and what it can run. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "sb_cli.h"
#include "sb_opts.h"
#include "sb_cmds.h"
#include "sb_cpu.h"
#include "sb_kernel.h"
#include "sb_sysinfo.h"
#include "sb_stack.h"
#include "sb_text.h"
#include "sb_tune_use.h"
#include "sb_vendor.h"

static const char *yesno(int v) { return v ? "yes" : "no"; }

/* The flags of sb_cpu_flags.def, on the lines their rows name. */
static void print_isa_lines(const sb_cpu *cpu)
{
    static const struct {
        const char *name;
        size_t off;
        int line;
    } flags[] = {
#define SB_CPU_FLAG(field, leaf, subleaf, reg, bit, needs_avx, info_line) \
    {#field, offsetof(sb_cpu, field), info_line},
#include "sb_cpu_flags.def"
#undef SB_CPU_FLAG
    };
    for (int line = 1; line <= 2; line++) {
        int n = 0;
        for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
            if (flags[i].line != line) continue;
            int v = *(const int *)((const char *)cpu + flags[i].off);
            printf("%s%s %s",
                   n++             ? ", "
                       : line == 1 ? "isa          "
                                   : "             ",
                   flags[i].name, yesno(v));
        }
        printf("\n");
    }
}

/* Whether this machine has been tuned: the file, and per kernel its classes
 * and the latest time; "error" when the file cannot be used. */
static json_t *tuning_json(const char *given, const char *fp)
{
    char path[1024];
    sb_err e = {0};
    json_t *o = json_object();
    if (sb_tune_use_path(given, path, sizeof path, &e)) {
        json_object_set_new(o, "tuned", json_false());
        json_object_set_new(o, "error", json_string(e.msg));
        return o;
    }
    json_object_set_new(o, "file", json_string(path));
    sb_tune_table t;
    int exists = 0;
    if (sb_tune_load(path, fp, &t, &exists, &e)) {
        json_object_set_new(o, "tuned", json_false());
        json_object_set_new(o, "error", json_string(e.msg));
        return o;
    }
    json_object_set_new(o, "tuned", json_boolean(t.n > 0));
    json_t *ks = json_array();
    for (int i = 0; i < sb_kernel_count(); i++) {
        const char *name = sb_kernel_at(i)->name;
        int n = sb_tune_count(&t, name), kept = 0;
        if (!n) continue;
        const char *when = "";
        for (int x = 0; x < t.n; x++)
            if (!strcmp(t.e[x].kernel, name)) {
                kept += t.e[x].kept_default;
                if (strcmp(t.e[x].when, when) > 0) when = t.e[x].when;
            }
        json_array_append_new(ks, json_pack("{s:s, s:i, s:i, s:s}", "name", name, "classes", n,
                                            "kept_default", kept, "tuned_at", when));
    }
    json_object_set_new(o, "kernels", ks);
    sb_tune_free(&t);
    return o;
}

/* Which vendor libraries the onednn-* and mkl-* kernels run on: PyPI's
 * oneDNN 3.x or Debian's 2.6.3 fallback, MKL or why not (the text form is
 * the software stack's oneDNN and MKL lines). */
static json_t *vendors_json(void)
{
    json_t *a = json_array();
    for (int i = 0; i < SB_VENDOR_COUNT; i++) {
        const sb_vendor_lib *l = sb_vendor_get((sb_vendor_id)i);
        json_array_append_new(a, json_pack("{s:s, s:b, s:s, s:s, s:s, s:s}", "name", l->name,
                                           "loaded", l->loaded, "version", l->version, "origin",
                                           l->origin, "runtime", l->runtime, "reason", l->why));
    }
    return a;
}

static void print_tuning(json_t *o)
{
    const char *file = json_string_value(json_object_get(o, "file"));
    const char *err = json_string_value(json_object_get(o, "error"));
    if (err) {
        printf("tuning       not usable: %s\n", err);
        return;
    }
    if (!json_is_true(json_object_get(o, "tuned"))) {
        printf("tuning       not tuned (no %s; run sprbench tune)\n", file ? file : "tune file");
        return;
    }
    printf("tuning       tuned (%s)\n", file);
    json_t *ks = json_object_get(o, "kernels");
    for (size_t i = 0; i < json_array_size(ks); i++) {
        json_t *k = json_array_get(ks, i);
        printf("  %-14s %d shape class(es), %d kept the built-in blocking, %s\n",
               json_string_value(json_object_get(k, "name")),
               (int)json_integer_value(json_object_get(k, "classes")),
               (int)json_integer_value(json_object_get(k, "kept_default")),
               json_string_value(json_object_get(k, "tuned_at")));
    }
}

static void info_help(void)
{
    printf("usage: sprbench info [--json]\n\n"
           "Describes this machine: CPU vendor, model, family/model/stepping and\n"
           "microarchitecture (from the model number where the features agree, else\n"
           "inferred from the features and caches, and said so; SB_CPU_UARCH=NAME\n"
           "sets it, recorded as set by SB_CPU_UARCH); ISA flags from CPUID; whether\n"
           "the OS grants AMX (XCR0, CPUID 0x1D, arch_prctl); hwloc topology and\n"
           "caches; memory; the kernels\n"
           "this machine can run; the machine fingerprint results are keyed by; and\n"
           "whether this machine has been tuned (sprbench tune): which kernels, how\n"
           "many shape classes, when.\n"
           "  --json         one JSON object instead of text\n"
           "  --tune-file F  the tune file to look at (default: tune-<fingerprint>.json\n"
           "                 beside the database; $SPRBENCH_TUNE_FILE; a file named\n"
           "                 here must exist and be usable)\n");
}

typedef struct info_opts {
    int json;
    const char *tune_file;
} info_opts;

#define O(f) offsetof(info_opts, f)
static const sb_opt g_info_opts[] = {
    {"json", SB_OPT_FLAG, O(json), SB_OPT_NOSET, "j"},
    {"tune-file", SB_OPT_STR, O(tune_file), SB_OPT_NOSET, NULL},
    {NULL}};
#undef O

int sb_cmd_info(int argc, char **argv)
{
    info_opts o = {0};
    /* info has always said it so */
    static const sb_opts_more more = {.unknown = "unknown option (see --help)"};
    int rc = sb_cli_opts_more("info", argc, argv, g_info_opts, &o, NULL, &more, info_help);
    if (rc >= 0) return rc;
    int json = o.json;
    const char *tune_file = o.tune_file;
    sb_sysinfo si;
    sb_err e = {0};
    if (sb_sysinfo_get(&si, &e)) return sb_cli_report("info", &e);
    if (tune_file && *tune_file) { /* named, it must be there and usable */
        sb_tune_table t;
        int exists = 0;
        if (sb_tune_load(tune_file, si.fingerprint, &t, &exists, &e))
            return sb_cli_report("info", &e);
        sb_tune_free(&t);
        if (!exists) return sb_cli_usage_error("info", "--tune-file %s: no such file", tune_file);
    }
    json_t *doc = sb_sysinfo_json(&si);
    json_t *kernels = json_array();
    for (int i = 0; i < sb_kernel_count(); i++) {
        const sb_kernel *k = sb_kernel_at(i);
        char why[256] = "";
        int ok = k->probe(why, sizeof why);
        json_array_append_new(kernels,
                              json_pack("{s:s, s:s, s:b, s:s}", "name", k->name, "dtype",
                                        sb_dtype_name(k->dtype), "available", ok, "reason",
                                        ok ? "" : why));
    }
    json_object_set_new(doc, "kernels", kernels);
    json_object_set_new(doc, "vendors", vendors_json());
    json_object_set_new(doc, "tuning", tuning_json(tune_file, si.fingerprint));
    json_object_set_new(doc, "sprbench_version", json_string(sb_version()));
    json_object_set_new(doc, "stack", sb_stack_json());
    if (json) {
        sb_text_json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        putchar('\n');
        json_decref(doc);
        return 0;
    }
    const sb_cpu *cpu = sb_cpu_get();
    const sb_amx_status *amx = sb_amx_request();
    printf("machine      %s (fingerprint %s)\n", si.hostname, si.fingerprint);
    printf("cpu          %s, %s\n", cpu->brand[0] ? cpu->brand : "unknown", cpu->vendor);
    printf("             family %u model %u stepping %u -> microarchitecture %s (%s)\n",
           cpu->family, cpu->model, cpu->stepping, cpu->microarch, cpu->microarch_how);
    print_isa_lines(cpu);
    printf("os           XCR0 0x%llx (AVX state %s, AVX-512 state %s, AMX state %s), kernel %s\n",
           (unsigned long long)cpu->xcr0, cpu->os_avx ? "on" : "off", cpu->os_avx512 ? "on" : "off",
           cpu->xcr0_amx ? "on" : "off", si.kernel);
    if (cpu->forced[0])
        printf("forced off   %s (a test's setting: the flags above are what runs may use)\n",
               cpu->forced);
    printf("amx          %s\n",
           amx->permitted ? "permitted (ARCH_REQ_XCOMP_PERM granted)" : amx->why);
    printf("topology     %d package(s), %d NUMA node(s), %d core(s), %d PU(s)\n", si.packages,
           si.numa_nodes, si.cores, si.pus);
    printf("caches       L1d %llu KiB, L2 %llu KiB, L3 %llu MiB (per instance)\n",
           si.l1d_bytes >> 10, si.l2_bytes >> 10, si.l3_bytes >> 20);
    printf("memory       %.1f GiB\n", si.mem_bytes / 1073741824.0);
    printf("governor     %s\n", si.governor[0] ? si.governor : "(not readable)");
    /* what every result records as its "stack" (sb_stack) */
    printf("software stack\n");
    json_t *stack = json_object_get(doc, "stack");
    for (int i = 0; i < sb_stack_nfields(); i++) {
        const sb_stack_field *f = sb_stack_field_at(i);
        const char *v = json_string_value(json_object_get(stack, f->key));
        printf("  %-21s %s\n", f->word, v ? v : "(not readable)");
    }
    printf("kernels\n");
    size_t nk = json_array_size(kernels);
    for (size_t i = 0; i < nk; i++) {
        json_t *k = json_array_get(kernels, i);
        int ok = json_is_true(json_object_get(k, "available"));
        printf("  %-14s %s\n", json_string_value(json_object_get(k, "name")),
               ok ? "available" : json_string_value(json_object_get(k, "reason")));
    }
    print_tuning(json_object_get(doc, "tuning"));
    json_decref(doc);
    return 0;
}
