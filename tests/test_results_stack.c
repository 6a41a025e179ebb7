/* The software stack (bench/sb_stack, harness/study/sb_stackdiff): the field
 * table, what this process records, the sysfs and CPUID parsing, and which
 * differences the report's headline names (only where they can change the
 * compared figures, never for a field a side did not record). */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include "sb_stack.h"
#include "sb_stackdiff.h"
#include "testutil.h"

static void test_table(void)
{
    int n = sb_stack_nfields();
    CHECK(n >= 14);
    for (int i = 0; i < n; i++) {
        const sb_stack_field *f = sb_stack_field_at(i);
        CHECK(f && f->key && *f->key && f->label && *f->label && f->word && *f->word);
        for (int j = 0; j < i; j++) CHECKF(strcmp(f->key, sb_stack_field_at(j)->key), "%s twice", f->key);
    }
    CHECK(sb_stack_field_at(n) == NULL);
    CHECK(sb_stack_field_at(-1) == NULL);
    /* each field the issue names is there */
    static const char *const need[] = {"compiler", "c_flags", "onednn", "mkl", "mpi", "kernel",
                                       "hypervisor", "threads_per_core", "thp", "governor", "turbo"};
    for (size_t k = 0; k < sizeof need / sizeof need[0]; k++) {
        int found = 0;
        for (int i = 0; i < n; i++) found |= !strcmp(sb_stack_field_at(i)->key, need[k]);
        CHECKF(found, "no field %s", need[k]);
    }
}

static void test_this_process(void)
{
    json_t *s = sb_stack_json();
    CHECK(json_is_object(s));
    /* only keys of the table, only non-empty strings */
    const char *k;
    json_t *v;
    json_object_foreach(s, k, v)
    {
        int known = 0;
        for (int i = 0; i < sb_stack_nfields(); i++) known |= !strcmp(sb_stack_field_at(i)->key, k);
        CHECKF(known, "stack key %s is not in the table", k);
        CHECKF(json_is_string(v) && *json_string_value(v), "stack %s is not a non-empty string", k);
    }
    const char *cc = json_string_value(json_object_get(s, "compiler"));
    CHECKF(cc && (!strncmp(cc, "GNU ", 4) || !strncmp(cc, "Clang ", 6)), "compiler '%s'",
           cc ? cc : "(none)");
    CHECK(json_string_value(json_object_get(s, "c_flags")) != NULL);
    CHECK(json_string_value(json_object_get(s, "onednn")) != NULL);
    CHECK(json_string_value(json_object_get(s, "mkl")) != NULL);
    const char *mpi = json_string_value(json_object_get(s, "mpi"));
    CHECKF(mpi && (strstr(mpi, "Open MPI") || strstr(mpi, "MPICH")), "mpi '%s'", mpi ? mpi : "");
    struct utsname u;
    uname(&u);
    const char *kr = json_string_value(json_object_get(s, "kernel"));
    CHECK(kr && !strcmp(kr, u.release));
    CHECK(json_string_value(json_object_get(s, "hypervisor")) != NULL);
    /* a fresh copy each time: the caller owns it */
    json_t *s2 = sb_stack_json();
    CHECK(s2 != s && json_equal(s, s2));
    json_decref(s);
    json_decref(s2);
}

static void test_parsing(void)
{
    char out[64];
    CHECK(sb_stack_bracketed("always [madvise] never", out, sizeof out) && !strcmp(out, "madvise"));
    CHECK(sb_stack_bracketed("[always] madvise never", out, sizeof out) && !strcmp(out, "always"));
    CHECK(!sb_stack_bracketed("always madvise never", out, sizeof out));
    CHECK(!sb_stack_bracketed("always [] never", out, sizeof out));
    CHECK(!sb_stack_bracketed("always [madvise", out, sizeof out));
    static const struct {
        const char sig[12];
        const char *name;
    } hv[] = {
        {{'K', 'V', 'M', 'K', 'V', 'M', 'K', 'V', 'M', 0, 0, 0}, "KVM"},
        {{'M', 'i', 'c', 'r', 'o', 's', 'o', 'f', 't', ' ', 'H', 'v'}, "Hyper-V"},
        {{'V', 'M', 'w', 'a', 'r', 'e', 'V', 'M', 'w', 'a', 'r', 'e'}, "VMware"},
        {{'X', 'e', 'n', 'V', 'M', 'M', 'X', 'e', 'n', 'V', 'M', 'M'}, "Xen"},
        {{'N', 'e', 'w', 'H', 'V', 0, 0, 0, 0, 0, 0, 0}, "NewHV"},
        {{'A', 'b', '\x01', 0, 0, 0, 0, 0, 0, 0, 0, 0}, "Ab?"},
        {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "present (unnamed)"},
    };
    for (size_t i = 0; i < sizeof hv / sizeof hv[0]; i++) {
        sb_stack_hypervisor_name(hv[i].sig, out, sizeof out);
        CHECKF(!strcmp(out, hv[i].name), "hypervisor %zu: '%s', expected '%s'", i, out, hv[i].name);
    }
}

static void test_diff(void)
{
    json_t *b = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "compiler", "GNU 12.2.0", "onednn",
                          "2.6.3", "mkl", "2026.2.1", "thp", "always", "kernel", "6.1.0",
                          "mpi", "Open MPI v4.1.4", "turbo", "on (intel_pstate)");
    json_t *c = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "compiler", "GNU 13.2.0", "onednn",
                          "3.2.0", "mkl", "2026.2.1", "thp", "madvise", "kernel", "6.8.0",
                          "mpi", "Open MPI v5.0.3");
    char buf[512];
    /* oneDNN against an own kernel: the compiler and oneDNN count, MKL is
     * the same, the OS kernel is never named, MPI not on one rank, turbo
     * only one side recorded */
    int r = sb_stack_relevant("onednn-bf16", "amx-bf16", 1, 1);
    CHECK(r & SB_STACK_ONEDNN && r & SB_STACK_OWN && !(r & SB_STACK_MKL) && !(r & SB_STACK_MPI));
    int n = sb_stack_diff_words(b, c, r, buf, sizeof buf);
    CHECK_EQ_INT(n, 3);
    CHECKF(!strcmp(buf, "compiler GNU 13.2.0 vs GNU 12.2.0, oneDNN 3.2.0 vs 2.6.3 and THP madvise vs"
                        " always"),
           "diff '%s'", buf);
    /* two vendor kernels of oneDNN: the compiler of the project's own does not count */
    n = sb_stack_diff_words(b, c, sb_stack_relevant("onednn-f32", "onednn-f32", 1, 1), buf,
                            sizeof buf);
    CHECK_EQ_INT(n, 2);
    CHECKF(!strcmp(buf, "oneDNN 3.2.0 vs 2.6.3 and THP madvise vs always"), "diff '%s'", buf);
    /* own kernels on two ranks: MPI counts, oneDNN does not */
    n = sb_stack_diff_words(b, c, sb_stack_relevant("avx512-f32", "avx512-f32", 2, 1), buf,
                            sizeof buf);
    CHECKF(n == 3 && !strcmp(buf, "compiler GNU 13.2.0 vs GNU 12.2.0, MPI Open MPI v5.0.3 vs Open"
                                  " MPI v4.1.4 and THP madvise vs always"),
           "diff %d '%s'", n, buf);
    /* MKL kernels: oneDNN does not count, MKL is the same */
    n = sb_stack_diff_words(b, c, sb_stack_relevant("mkl-f32", "mkl-f32", 1, 1), buf, sizeof buf);
    CHECKF(n == 1 && !strcmp(buf, "THP madvise vs always"), "diff %d '%s'", n, buf);
    /* the same stacks, or a side without one: nothing named */
    CHECK_EQ_INT(sb_stack_diff_words(b, b, ~0, buf, sizeof buf), 0);
    CHECK(buf[0] == '\0');
    CHECK_EQ_INT(sb_stack_diff_words(NULL, c, ~0, buf, sizeof buf), 0);
    CHECK_EQ_INT(sb_stack_diff_words(b, NULL, ~0, buf, sizeof buf), 0);
    /* a small buffer is cut, never overrun */
    char tiny[8];
    sb_stack_diff_words(b, c, ~0, tiny, sizeof tiny);
    CHECK(strlen(tiny) < sizeof tiny);
    json_decref(b);
    json_decref(c);
}

int main(void)
{
    test_table();
    test_this_process();
    test_parsing();
    test_diff();
    printf("test_results_stack: %d checks, %d failed\n", g_test_checks, g_test_failures);
    return g_test_failures != 0;
}
