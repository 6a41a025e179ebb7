/* sb_vendor: the vendor libraries behind the reference kernels (oneDNN's
 * onednn-*, MKL's mkl-*): which build is in use, its version, where it was
 * loaded from, or why it is not there; and which vendor a kernel name is.
 *
 * Both are opened at run time (dlopen), never linked: a missing or broken
 * library means its kernels are skipped with the reason, never a failed
 * start. Where they are looked for:
 *   oneDNN  built against oneDNN 3.x headers (the PyPI cache was there at
 *           configure time): $SB_ONEDNN_LIB, else libdnnl.so.3 in the cache;
 *           built against Debian's 2.6.3 headers: libdnnl.so.2
 *   MKL     $SB_MKL_LIB, else libmkl_rt.so.3 in the cache, with its GNU
 *           OpenMP threading layer (the runtime every other kernel uses)
 *   the cache: $SB_VENDOR_CACHE, else $XDG_CACHE_HOME/sprbench/vendor, else
 *           ~/.cache/sprbench/vendor, else the one seen at configure time
 *           (scripts/vendor-libs fills it) */
#ifndef SB_VENDOR_H
#define SB_VENDOR_H

typedef enum { SB_VENDOR_ONEDNN = 0, SB_VENDOR_MKL, SB_VENDOR_COUNT } sb_vendor_id;

typedef struct sb_vendor_lib {
    const char *name;    /* "oneDNN", "MKL" */
    int loaded;          /* 1: its kernels can run */
    char version[64];    /* "3.2.0", "2026.2", "" when not loaded */
    char origin[512];    /* which build, from where: "PyPI onednn-cpu-gomp
                            (/root/.cache/sprbench/vendor/onednn/lib/libdnnl.so.3)",
                            "Debian libdnnl2, the fallback (libdnnl.so.2)" */
    char runtime[32];    /* its CPU threading runtime: "OpenMP", "GNU OpenMP" */
    char why[512];        /* not loaded: why, and what would load it */
} sb_vendor_lib;

/* Opens the library once (thread-safe) and describes it. Never NULL. */
const sb_vendor_lib *sb_vendor_get(sb_vendor_id id);
/* A symbol of the opened library; NULL when it is not loaded or lacks it.
 * For the vendor kernels' files (gemm_onednn.c, gemm_mkl.c) only. */
void *sb_vendor_sym(sb_vendor_id id, const char *name);
/* The vendor a kernel name belongs to ("oneDNN" for onednn-*, "MKL" for
 * mkl-*), NULL for the project's own kernels. By name, so that records of
 * other machines and older versions classify the same way. */
const char *sb_vendor_of_kernel(const char *kernel);
/* One line: "oneDNN 3.2.0 (PyPI onednn-cpu-gomp (PATH), OpenMP)", or
 * "MKL: not loaded (why)". */
const char *sb_vendor_describe(sb_vendor_id id, char *buf, unsigned cap);
/* The oneDNN headers this binary was built against: 3 or 2 (the major). */
int sb_vendor_onednn_built_major(void);

#endif
