/* The SQL function behind every machine name the store gives: sb_uarch()
 * names a stored machine from its recorded signature (vendor, family/model,
 * features, caches, hypervisor) with the function that names this CPU, not
 * from the microarch string an older sprbench stored ("Rocket Lake" for a
 * masked Granite Rapids-class Xeon). */
#include <jansson.h>
#include <string.h>
#include "sb_db_internal.h"
#include "sb_uarch.h"

/* A feature as a record keeps it: 1, 0, or -1 when the record predates it. */
static int flag(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    if (json_is_boolean(v)) return json_is_true(v);
    if (json_is_integer(v)) return json_integer_value(v) != 0;
    return -1;
}

static json_t *json_arg(sqlite3_value *v)
{
    const char *s = (const char *)sqlite3_value_text(v);
    return s && *s ? json_loads(s, 0, NULL) : NULL;
}

/* sb_uarch(vendor, family, model, stepping, isa, l2_bytes, l3_bytes,
 * info_json, microarch): the name; sb_uarch_how(the same): how it was found */
static void uarch_fn(sqlite3_context *cx, int argc, sqlite3_value **v)
{
    (void)argc;
    const char *vendor = (const char *)sqlite3_value_text(v[0]);
    const char *stored = (const char *)sqlite3_value_text(v[8]);
    json_t *isa = json_arg(v[4]), *info = json_arg(v[7]);
    json_t *cpu = json_object_get(info, "cpu");
    const char *src = json_string_value(json_object_get(cpu, "microarch_source"));
    sb_uarch u = {.source = SB_UARCH_UNKNOWN};
    /* the user's own name (SB_CPU_UARCH) is kept as they gave it; so is the
     * stored name of a machine recorded without a signature (a test's) */
    int keep = stored && *stored &&
        ((src && sb_uarch_source_from(src) == SB_UARCH_OVERRIDE) || !vendor ||
         sqlite3_value_type(v[1]) == SQLITE_NULL);
    if (!keep) {
        sb_cpu_sig s = {
            .vendor = vendor,
            .family = (unsigned)sqlite3_value_int(v[1]),
            .model = (unsigned)sqlite3_value_int(v[2]),
            .stepping = (unsigned)sqlite3_value_int(v[3]),
            .avx512f = flag(isa, "avx512f"),
            .avx512_bf16 = flag(isa, "avx512_bf16"),
            .avx512_fp16 = flag(isa, "avx512_fp16"),
            .avx_vnni = flag(isa, "avx_vnni"),
            .amx_tile = flag(isa, "amx_tile"),
            .amx_fp16 = flag(isa, "amx_fp16"),
            .avx10 = flag(isa, "avx10"),
            .hypervisor = flag(cpu, "hypervisor"),
            .l2_bytes = (unsigned long long)sqlite3_value_int64(v[5]),
            .l3_bytes = (unsigned long long)sqlite3_value_int64(v[6]),
        };
        sb_uarch_identify(&s, &u);
        /* a part newer than our table, named by a newer sprbench */
        keep = u.source == SB_UARCH_UNKNOWN && stored && *stored;
    }
    const char *out = keep ? stored : u.name;
    if (sqlite3_user_data(cx)) { /* sb_uarch_how: how the name was found */
        const char *was = json_string_value(json_object_get(cpu, "microarch_how"));
        out = !keep ? u.how : was && *was ? was : "the name stored with the record";
    }
    sqlite3_result_text(cx, out, -1, SQLITE_TRANSIENT);
    json_decref(isa);
    json_decref(info);
}

int sb_db_add_functions(sqlite3 *h)
{
    static int how = 1;
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    int rc = sqlite3_create_function_v2(h, "sb_uarch", 9, flags, NULL, uarch_fn, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function_v2(h, "sb_uarch_how", 9, flags, &how, uarch_fn, NULL, NULL,
                                        NULL);
    return rc;
}
