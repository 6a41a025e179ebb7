/* sb_stack: the software stack a result was measured on: the compiler and
 * flags that built sprbench, the vendor libraries (sb_vendor), the MPI
 * library, the OS kernel, the hypervisor, SMT, transparent huge pages, the
 * CPU frequency governor and turbo. The hardware alone does not explain a
 * figure: the same CPU under oneDNN 2.6 and 3.2, or with turbo off, runs at
 * other speeds. Every result document records it as "stack" (sb_result_seal),
 * `info` prints it, and the report, the CSV export and scripts/machines-readme
 * read it back through the field table below.
 *
 * A field that cannot be read here is left out of the object, never guessed:
 * a reader shows it as not readable, and a record from before this existed
 * (no "stack" at all) as not recorded. */
#ifndef SB_STACK_H
#define SB_STACK_H
#include <jansson.h>
#include <stddef.h>

/* Which compared figures a field can change: the report's headline names a
 * difference only where it can explain the gap it reports. */
enum {
    SB_STACK_NEVER = 0,  /* informative (where a library came from, the OS kernel) */
    SB_STACK_OWN = 1,    /* the project's own kernels: how they were compiled */
    SB_STACK_ONEDNN = 2, /* oneDNN's kernels (onednn-*) */
    SB_STACK_MKL = 4,    /* MKL's kernels (mkl-*) */
    SB_STACK_MPI = 8,    /* runs of more than one rank */
    SB_STACK_ANY = 16,   /* every figure: the machine's clock, threads and pages */
};

typedef struct sb_stack_field {
    const char *key;   /* in the "stack" object, and the CSV column "stack_<key>" */
    const char *label; /* a row of the report's table */
    const char *word;  /* in the headline's clause: "oneDNN 3.2.0 vs 2.6.3" */
    int affects;       /* SB_STACK_* */
} sb_stack_field;

int sb_stack_nfields(void);
const sb_stack_field *sb_stack_field_at(int i);

/* This process's stack, a new object of strings (keys of the table only;
 * an unreadable field is absent). Read once per process. */
json_t *sb_stack_json(void);

/* The bracketed choice of a sysfs selection ("always [madvise] never" ->
 * "madvise") into out; 0 when there is none. */
int sb_stack_bracketed(const char *line, char *out, size_t cap);
/* A hypervisor's CPUID vendor (leaf 0x40000000, 12 bytes) in words: "KVM",
 * "Hyper-V", "VMware", "Xen", ...; an unknown one as its printable text. */
void sb_stack_hypervisor_name(const char sig[12], char *out, size_t cap);

#endif
