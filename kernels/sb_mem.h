/* sb_mem: big buffers (packing panels, activations, parameters, optimizer
 * state) 2 MB aligned and advised to be backed by transparent huge pages,
 * which this kind of machine often grants only on request
 * (/sys/kernel/mm/transparent_hugepage/enabled = madvise): they are walked in
 * long runs, and 4 KB pages would cost a TLB miss every 4 KB. */
#ifndef SB_MEM_H
#define SB_MEM_H
#include <stddef.h>

/* bytes rounded up to the alignment; NULL when out of memory; release with
 * free(). Under 1 MB: 4 KB aligned, no advice. Contents undefined. */
void *sb_alloc_big(size_t bytes);
/* The size sb_alloc_big really reserves for bytes. */
size_t sb_alloc_big_size(size_t bytes);

#endif
