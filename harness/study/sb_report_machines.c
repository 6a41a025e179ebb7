#include "sb_report_machines.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <stdint.h>
#include "sb_report_points.h"
#include "sb_report_words.h"
#include "sb_envdiff.h"
#include "sb_stack.h"
#include "sb_stackdiff.h"
#include "sb_query.h"
#include "sb_result.h"

/* A machine's stored description, with its ISA flags and CPU frequency
 * governor taken out of their JSON texts; NULL when not recorded. */
json_t *sb_rp_machine_info(sb_rp_out *o, const sb_rp_model *m, int64_t id)
{
    json_t *info;
    sb_err e = {0};
    int rc = sb_rp_machine(m, id, &info, &e);
    if (rc) {
        sb_rp_read_failed(o, rc, &e);
        return NULL;
    }
    if (info) {
        /* the ISA flags and the governor live in JSON texts */
        const char *isa = json_string_value(json_object_get(info, "isa"));
        json_t *isa_j = isa ? json_loads(isa, 0, NULL) : NULL;
        json_object_set_new(info, "isa_flags", isa_j ? isa_j : json_object());
        const char *all = json_string_value(json_object_get(info, "info_json"));
        json_t *all_j = all ? json_loads(all, 0, NULL) : NULL;
        json_t *gov = json_object_get(all_j, "governor");
        json_object_set_new(info, "governor",
                            json_string(json_is_string(gov) ? json_string_value(gov) : ""));
        json_decref(all_j);
    }
    return info;
}

static void mval(json_t *m, const char *key, char *buf, size_t cap)
{
    json_t *v = json_object_get(m, key);
    if (json_is_string(v))
        snprintf(buf, cap, "%s", json_string_value(v)[0] ? json_string_value(v) : "-");
    else if (json_is_integer(v))
        snprintf(buf, cap, "%lld", (long long)json_integer_value(v));
    else
        snprintf(buf, cap, "unknown");
}

static void bytes_str(json_t *m, const char *key, char *buf, size_t cap)
{
    json_t *v = json_object_get(m, key);
    double b = json_is_integer(v) ? (double)json_integer_value(v) : 0;
    if (b <= 0)
        snprintf(buf, cap, "unknown");
    else if (b >= 1 << 30)
        snprintf(buf, cap, "%.1f GiB", b / (1 << 30));
    else if (b >= 1 << 20)
        snprintf(buf, cap, "%.1f MiB", b / (1 << 20));
    else
        snprintf(buf, cap, "%.0f KiB", b / 1024);
}

static const char *flag(json_t *m, const char *key)
{
    json_t *v = json_object_get(json_object_get(m, "isa_flags"), key);
    return json_is_true(v) ? "yes" : json_is_false(v) ? "no" : "unknown";
}

void sb_rp_section_machines(sb_rp_out *o, const sb_rp_model *mo, int64_t bid, int64_t cid,
                            const char *bname, const char *cname)
{
    sb_rp_heading(o, 2, "Machines");
    json_t *m[2] = {sb_rp_machine_info(o, mo, bid), sb_rp_machine_info(o, mo, cid)};
    const char *hdr[] = {"", bname, cname};
    sb_rp_table t;
    sb_rp_t_init(&t, 3, hdr);
    static const struct {
        const char *label, *key;
        int kind;
    } rows[] = {
        {"CPU", "cpu_model", 0},
        {"vendor", "vendor", 0},
        {"microarchitecture", "microarch", 0},
        {"named by", "microarch_how", 0},
        {"family / model / stepping", NULL, 3},
        {"sockets", "packages", 0},
        {"cores", "cores", 0},
        {"hardware threads", "pus", 0},
        {"NUMA nodes", "numa_nodes", 0},
        {"L2 per core", "l2_bytes", 1},
        {"L3 per instance", "l3_bytes", 1},
        {"memory", "mem_bytes", 1},
        {"AVX-512F", "avx512f", 2},
        {"AVX512_VNNI", "avx512_vnni", 2},
        {"AVX512_BF16", "avx512_bf16", 2},
        {"AVX512_FP16", "avx512_fp16", 2},
        {"AMX tiles (CPU)", "amx_tile", 2},
        {"AMX-BF16 / AMX-INT8", NULL, 4},
        {"AMX granted by the OS", NULL, 5},
        {"OS kernel", "kernel", 0},
        {"CPU frequency governor", "governor", 0},
        {"hostname", "hostname", 0},
        {"fingerprint", "fingerprint", 0},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        char v[2][512];
        for (int s = 0; s < 2; s++) {
            if (!m[s]) {
                snprintf(v[s], sizeof v[s], "not available (machine not recorded)");
                continue;
            }
            switch (rows[r].kind) {
            case 0: mval(m[s], rows[r].key, v[s], sizeof v[s]); break;
            case 1: bytes_str(m[s], rows[r].key, v[s], sizeof v[s]); break;
            case 2: snprintf(v[s], sizeof v[s], "%s", flag(m[s], rows[r].key)); break;
            case 3: {
                char a[32], b[32], c[32];
                mval(m[s], "family", a, sizeof a);
                mval(m[s], "model", b, sizeof b);
                mval(m[s], "stepping", c, sizeof c);
                snprintf(v[s], sizeof v[s], "%s / %s / %s", a, b, c);
                break;
            }
            case 4:
                snprintf(v[s], sizeof v[s], "%s / %s", flag(m[s], "amx_bf16"),
                         flag(m[s], "amx_int8"));
                break;
            default: {
                json_t *p = json_object_get(m[s], "amx_os_permitted");
                const char *why = json_string_value(json_object_get(m[s], "amx_reason"));
                int yes = json_is_integer(p) && json_integer_value(p);
                snprintf(v[s], sizeof v[s], "%s%s%.400s%s", yes ? "yes" : "no",
                         !yes && why && *why ? " (" : "", !yes && why ? why : "",
                         !yes && why && *why ? ")" : "");
            }
            }
        }
        const char *cells[] = {rows[r].label, v[0], v[1]};
        sb_rp_t_row(&t, cells);
    }
    sb_rp_t_emit(o, &t);
    json_decref(m[0]);
    json_decref(m[1]);
}

/* ---- environment ---- */

/* The software each side's results were measured on (their "stack"), side
 * by side: the compiler and flags, the vendor libraries, MPI, the kernel,
 * the hypervisor, SMT, huge pages, governor and turbo. */
static void section_stack(sb_rp_out *o, const sb_rp_model *m)
{
    sb_rp_heading(o, 3, "Software stack");
    if (m->stack_rc[0] || m->stack_rc[1]) {
        sb_rp_para(o, "The recorded software stacks could not be read: %s.", m->stack_e.msg);
        return;
    }
    const sb_stackside *b = &m->stack[0], *c = &m->stack[1];
    if (b->unrecorded == b->points && c->unrecorded == c->points) {
        sb_rp_para(o, "Neither side's results recorded their software stack (records of a"
                      " sprbench before it did): not recorded.");
    } else {
        sb_rp_para(o, "As each side's points that ran ok recorded it (\"not readable\": the"
                      " machine did not say; \"not recorded\": a record from before sprbench"
                      " recorded its stack).");
        static const char *const hdr[] = {"", "baseline", "candidate", "differs"};
        sb_rp_table t;
        sb_rp_t_init(&t, 4, hdr);
        for (int i = 0; i < sb_stack_nfields(); i++) {
            const sb_stack_field *f = sb_stack_field_at(i);
            char vb[600], vc[600];
            sb_stackside_cell(b, f->key, vb, sizeof vb);
            sb_stackside_cell(c, f->key, vc, sizeof vc);
            const char *cells[] = {f->label, vb, vc,
                                   sb_stackside_differs(b, c, f->key) ? "yes" : ""};
            sb_rp_t_row(&t, cells);
        }
        sb_rp_t_emit(o, &t);
    }
}

/* Which of the variables that change results (OMP_*, ONEDNN_*, LD_PRELOAD,
 * ...) the two sides' runs differed in, as recorded in each result: one
 * line per distinct difference over the matched point pairs. */
void sb_rp_section_env(sb_rp_out *o, const sb_rp_model *m, const sb_rp_pair *pr, int n)
{
    sb_rp_heading(o, 2, "Environment");
    if (m->env_rc) {
        sb_rp_para(o, "The recorded environments could not be read: %s.", m->env_e.msg);
        return;
    }
    const sb_envmap *bm = &m->env[0], *cm = &m->env[1];
    sb_envdiffs d = {0};
    for (int i = 0; i < n; i++) {
        /* a point that did not run ok (a crash) recorded no environment */
        if (!sb_rp_ok(pr[i].b) || !sb_rp_ok(pr[i].c)) continue;
        char label[320];
        sb_pt_label(pr[i].c, label, sizeof label);
        /* only the variables the pair's workload reads */
        sb_envdiffs_add_for(&d, pr[i].c->workload, pr[i].b->id, sb_envmap_get(bm, pr[i].b->id),
                            pr[i].c->id, sb_envmap_get(cm, pr[i].c->id), label);
    }
    if (!d.pairs) {
        sb_rp_para(o, "No point ran on both sides: no environments to compare.");
    } else if (!sb_envdiffs_nlines(&d)) {
        sb_rp_para(o,
                   "Both sides ran every one of the %d matched point(s) with the same recorded"
                   " environment variables that their workload reads (%s; an SB_ variable only"
                   " where the binary reads it for that workload).",
                   d.pairs, sb_env_scope());
    } else {
        for (int i = 0; i < sb_envdiffs_nlines(&d); i++) {
            char line[1400];
            sb_envdiffs_line(&d, i, line, sizeof line);
            sb_rp_para(o, "%s.", line);
        }
    }
    sb_envdiffs_free(&d);
    section_stack(o, m);
}