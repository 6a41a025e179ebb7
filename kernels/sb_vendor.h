/* sb_vendor: the vendor libraries behind the reference kernels (oneDNN's
 * onednn-*, MKL's mkl-*): which build is in use, its version, where it was
 * loaded from, or why it is not there; and which vendor a kernel name is. The
 * libraries are opened at run time, so a missing or broken one means its
 * kernels are skipped with the reason, never a failed start. */
#ifndef SB_VENDOR_H
#define SB_VENDOR_H

typedef enum { SB_VENDOR_ONEDNN = 0, SB_VENDOR_MKL, SB_VENDOR_COUNT } sb_vendor_id;

typedef struct sb_vendor_lib {
    const char *name;    /* "oneDNN", "MKL" */
    int loaded;          /* 1: its kernels can run */
    char version[64];    /* "3.2.0", "2026.2.1", "" when not loaded */
    char origin[256];    /* what was loaded: "PyPI onednn-cpu-gomp 2023.2.0 (/path/libdnnl.so.3)",
                            "Debian libdnnl2 (libdnnl.so.2)" */
    char runtime[64];    /* its CPU threading runtime ("OpenMP"), "" unknown */
    char why[256];       /* not loaded: why ("no MKL in ~/.cache/sprbench/vendor/mkl:
                            scripts/setup --with-vendors installs it") */
} sb_vendor_lib;

/* Opens the library once (thread-safe) and describes it. Never NULL. */
const sb_vendor_lib *sb_vendor_get(sb_vendor_id id);
/* The vendor a kernel name belongs to ("oneDNN" for onednn-*, "MKL" for
 * mkl-*), NULL for the project's own kernels. By name, so that records of
 * other machines and older versions classify the same way. */
const char *sb_vendor_of_kernel(const char *kernel);
/* The library's version line as one string ("oneDNN 3.2.0 (PyPI onednn-cpu-gomp,
 * OpenMP)"), or "oneDNN: not loaded (why)". */
const char *sb_vendor_describe(sb_vendor_id id, char *buf, unsigned cap);

#endif
