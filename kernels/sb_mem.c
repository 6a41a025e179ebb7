#include "sb_mem.h"
#include <stdlib.h>
#include <sys/mman.h>

#define SB_HUGE ((size_t)2 << 20)

static size_t align_for(size_t bytes) { return bytes >= ((size_t)1 << 20) ? SB_HUGE : 4096; }

size_t sb_alloc_big_size(size_t bytes)
{
    size_t a = align_for(bytes);
    return (bytes + a - 1) & ~(a - 1);
}

void *sb_alloc_big(size_t bytes)
{
    size_t a = align_for(bytes), n = sb_alloc_big_size(bytes ? bytes : 1);
    void *p = aligned_alloc(a, n);
    /* advice only: a kernel without THP, or with it off, just ignores it */
    if (p && a == SB_HUGE) madvise(p, n, MADV_HUGEPAGE);
    return p;
}
