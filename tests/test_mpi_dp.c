/* sb_dp under one rank and under mpirun -np N: buckets are averaged exactly,
 * every rank ends bitwise identical, overlap equals no-overlap, late and
 * double-reported ranges are handled, the DistributedSampler shard is right. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_dp.h"

#include "testutil.h"

/* A value every rank can compute for every rank, with step-dependent bits. */
static float grad_value(int rank, size_t i, int step)
{
    return (float)sin(0.37 * (double)i + 1.3 * rank + 0.11 * step) * (float)(1 + rank % 3) +
        1e-3f * (float)(i % 17);
}

static void fill(float *g, size_t n, int rank, int step)
{
    for (size_t i = 0; i < n; i++) g[i] = grad_value(rank, i, step);
}

/* Backward order: ranges from the end of the buffer towards the start, in
 * uneven pieces that straddle bucket edges. */
static int report_reverse(sb_dp *dp, size_t n, size_t skip_lo, size_t skip_hi)
{
    sb_err e = {0};
    size_t end = n, piece = 7919;
    while (end > 0) {
        size_t len = end < piece ? end : piece;
        size_t lo = end - len;
        if (!(lo >= skip_lo && end <= skip_hi) && sb_dp_grad_ready(dp, lo, len, &e)) {
            fprintf(stderr, "grad_ready: %s\n", e.msg);
            return 1;
        }
        end = lo;
        piece = piece * 3 % 10007 + 1000;
    }
    return 0;
}

static void test_sampler(void)
{
    sb_err e = {0};
    const long n = 103;
    for (int world = 1; world <= 5; world++) {
        long per = (n + world - 1) / world;
        int *seen = calloc((size_t)n, sizeof *seen);
        long total = 0;
        for (int r = 0; r < world; r++) {
            long *idx, cnt;
            CHECKF(!sb_dp_shard_indices(42, 1, n, r, world, &idx, &cnt, &e), "shard: %s", e.msg);
            CHECKF(cnt == per, "world %d rank %d: %ld indices, want %ld", world, r, cnt, per);
            for (long k = 0; k < cnt; k++) {
                CHECKF(idx[k] >= 0 && idx[k] < n, "index %ld out of range", idx[k]);
                if (idx[k] >= 0 && idx[k] < n) seen[idx[k]]++;
            }
            total += cnt;
            free(idx);
        }
        int missing = 0, dup = 0;
        for (long i = 0; i < n; i++) {
            missing += seen[i] == 0;
            dup += seen[i] > 1 ? seen[i] - 1 : 0;
        }
        CHECKF(missing == 0, "world %d: %d features never visited", world, missing);
        CHECKF(dup == total - n, "world %d: %d repeats, padding is %ld", world, dup, total - n);
        free(seen);
    }
    long *a, *b, *c, na, nb, nc;
    sb_dp_shard_indices(1, 1, 50, 0, 1, &a, &na, &e);
    sb_dp_shard_indices(1, 1, 50, 0, 1, &b, &nb, &e);
    sb_dp_shard_indices(2, 1, 50, 0, 1, &c, &nc, &e);
    CHECKF(!memcmp(a, b, sizeof *a * (size_t)na), "same seed, different order");
    CHECKF(memcmp(a, c, sizeof *a * (size_t)na), "seeds 1 and 2 give the same order");
    free(a);
    free(b);
    free(c);
    /* Unshuffled with padding: PyTorch's [0..n) + head, strided by rank. */
    sb_dp_shard_indices(0, 0, 5, 1, 4, &a, &na, &e);
    CHECKF(na == 2 && a[0] == 1 && a[1] == 0, "unshuffled rank 1 of 4 over 5: got %ld %ld", a[0],
           na > 1 ? a[1] : -1);
    free(a);
    CHECKF(sb_dp_shard_indices(0, 0, 0, 0, 1, &a, &na, &e) == SB_EUSAGE, "n = 0 accepted");
    CHECKF(sb_dp_shard_indices(0, 0, 5, 2, 2, &a, &na, &e) == SB_EUSAGE, "rank 2 of 2 accepted");
}

int main(void)
{
    sb_err e = {0};
    sb_dp_config co = SB_DP_CONFIG_INIT, cn = SB_DP_CONFIG_INIT;
    co.comm_threads = 2;
    co.bucket_bytes = 64 << 10;
    cn.overlap = 0;
    cn.bucket_bytes = co.bucket_bytes;
    sb_dp *ov = NULL, *no = NULL;
    if (sb_dp_init(&ov, &co, &e) || sb_dp_init(&no, &cn, &e)) {
        fprintf(stderr, "init: %s\n", e.msg);
        return 1;
    }
    int rank = sb_dp_rank(ov), world = sb_dp_world(ov);
    if (rank == 0)
        printf("world %d, nodes %d, thread level %s, overlap threads %s\n", world, sb_dp_nodes(ov),
               sb_dp_thread_level(ov), sb_dp_overlap_active(ov) ? "on" : "off");
    if (rank == 0) test_sampler();

    /* Broadcast of the initial weights. */
    size_t nw = 100003;
    float *w = malloc(nw * sizeof *w);
    for (size_t i = 0; i < nw; i++) w[i] = rank == 0 ? (float)i * 0.5f : -1.0f;
    CHECKF(!sb_dp_bcast_floats(ov, w, nw, &e), "bcast: %s", e.msg);
    int same = 0;
    for (size_t i = 0; i < nw; i++)
        if (w[i] != (float)i * 0.5f) {
            CHECKF(0, "rank %d: weight %zu is %g after bcast", rank, i, w[i]);
            break;
        }
    sb_dp_check_identical(ov, w, nw, &same, &e);
    CHECKF(same, "weights differ across ranks after bcast");
    free(w);

    /* Gradient buckets cut at "tensor" ends of uneven sizes. */
    const size_t n = 1000003;
    size_t ends[64];
    int nt = 0;
    for (size_t off = 0; off < n && nt < 63;) {
        size_t len = 5000 + (size_t)nt * 3001;
        off = off + len < n ? off + len : n;
        ends[nt++] = off;
    }
    if (ends[nt - 1] != n) ends[nt++] = n;
    float *g1 = malloc(n * sizeof *g1), *g2 = malloc(n * sizeof *g2);
    float *expect = malloc(n * sizeof *expect), *mag = malloc(n * sizeof *mag);
    /* Comm threads start with the buckets, bound to the cores named first. */
    CHECKF(!sb_dp_set_comm_cpuset(ov, "0", &e), "comm cpuset: %s", e.msg);
    CHECKF(!sb_dp_set_grad(ov, g1, n, ends, nt, &e), "set_grad: %s", e.msg);
    if (sb_dp_overlap_active(ov))
        CHECKF(sb_dp_set_comm_cpuset(ov, "0", &e) == SB_EUSAGE, "cpuset accepted after start");
    CHECKF(!sb_dp_set_grad(no, g2, n, ends, nt, &e), "set_grad: %s", e.msg);
    CHECKF(sb_dp_nbuckets(ov) > 4, "only %d buckets", sb_dp_nbuckets(ov));

    for (int step = 0; step < 3; step++) {
        fill(g1, n, rank, step);
        fill(g2, n, rank, step);
        for (size_t i = 0; i < n; i++) {
            double s = 0, a = 0;
            for (int r = 0; r < world; r++) {
                s += grad_value(r, i, step);
                a += fabs(grad_value(r, i, step));
            }
            expect[i] = (float)(s / world);
            mag[i] = (float)(a / world);
        }
        sb_dp_timing t1, t2;
        sb_dp_step_begin(ov);
        /* Step 2 leaves a range unreported: wait_all must still reduce it. */
        size_t skip_lo = step == 2 ? n / 3 : 0, skip_hi = step == 2 ? n / 3 + 20000 : 0;
        CHECKF(!report_reverse(ov, n, skip_lo, skip_hi), "grad_ready failed");
        CHECKF(!sb_dp_wait_all(ov, &t1, &e), "wait_all: %s", e.msg);
        sb_dp_step_begin(no);
        CHECKF(!report_reverse(no, n, 0, 0), "grad_ready failed");
        CHECKF(!sb_dp_wait_all(no, &t2, &e), "wait_all: %s", e.msg);
        if (step == 2 && sb_dp_overlap_active(ov))
            CHECKF(t1.late_buckets > 0, "an unreported range was not counted late");
        CHECKF(t1.buckets == sb_dp_nbuckets(ov), "timing counts %d buckets", t1.buckets);
        CHECKF(t1.wait_s >= 0 && t1.compute_s >= 0 && t1.comm_s >= 0, "negative timing");
        CHECKF(!memcmp(g1, g2, n * sizeof *g1), "step %d: overlap and no-overlap differ", step);
        double maxrel = 0;
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            /* Error relative to the magnitudes summed: sums that cancel
             * keep the absolute rounding of their terms. */
            double d = fabs((double)g1[i] - expect[i]) / ((double)mag[i] + 1e-30);
            if (d > maxrel) maxrel = d;
            /* Two ranks: a+b then /2 is exactly what expect computes; more
             * ranks add in an order MPI chooses (tolerance: world float ulps). */
            if (world <= 2 ? g1[i] != expect[i] : d > world * 1.2e-7) bad++;
        }
        CHECKF(bad == 0, "step %d: %zu elements not the average (max rel diff %g)", step, bad,
               maxrel);
        CHECKF(!sb_dp_check_identical(ov, g1, n, &same, &e) && same,
               "step %d: gradients differ across ranks", step);
    }

    /* A row-sparse range (the word embeddings): only rows some rank used are
     * sent, and the result equals the dense all-reduce, bitwise. The range
     * starts inside a bucket and ends inside another, so it is cut free. */
    {
        const size_t head = 5003, rows = 1000, rl = 16, tail = 7001, ns = head + rows * rl + tail;
        sb_dp_config cs = SB_DP_CONFIG_INIT;
        cs.bucket_bytes = 24 << 10;
        sb_dp *sp = NULL, *dn = NULL;
        CHECKF(!sb_dp_init(&sp, &cs, &e) && !sb_dp_init(&dn, &cs, &e), "init: %s", e.msg);
        float *a = calloc(ns, sizeof *a), *b = calloc(ns, sizeof *b);
        CHECKF(!sb_dp_set_grad(sp, a, ns, NULL, 0, &e), "set_grad: %s", e.msg);
        CHECKF(!sb_dp_set_grad(dn, b, ns, NULL, 0, &e), "set_grad: %s", e.msg);
        CHECKF(!sb_dp_set_sparse_rows(sp, head, rows, rl, &e), "sparse: %s", e.msg);
        CHECKF(sb_dp_set_sparse_rows(sp, head, rows * 100, rl, &e) == SB_EUSAGE,
               "a sparse range beyond the buffer was accepted");
        CHECKF(!sb_dp_set_sparse_rows(sp, head, rows, rl, &e), "sparse again: %s", e.msg);
        /* rank r uses rows r, r + world + 1, ... and row 7 */
        int32_t ids[1000];
        size_t nid = 0;
        for (size_t r = (size_t)rank; r < rows; r += (size_t)world + 1) ids[nid++] = (int32_t)r;
        ids[nid++] = 7;
        ids[nid++] = 7; /* repeats are fine */
        size_t uni = 0;
        for (size_t r = 0; r < rows; r++)
            if (r == 7 || r % ((size_t)world + 1) < (size_t)world) uni++;
        for (int step = 0; step < 2; step++) {
            memset(a, 0, ns * sizeof *a);
            for (size_t i = 0; i < head; i++) a[i] = grad_value(rank, i, step);
            for (size_t i = head + rows * rl; i < ns; i++) a[i] = grad_value(rank, i, step);
            for (size_t k = 0; k < nid; k++)
                for (size_t j = 0; j < rl; j++) {
                    size_t i = head + (size_t)ids[k] * rl + j;
                    a[i] = grad_value(rank, i, step);
                }
            memcpy(b, a, ns * sizeof *a);
            sb_dp_timing ts, td;
            sb_dp_step_begin(sp);
            CHECKF(!sb_dp_sparse_rows(sp, ids, nid, &e), "rows: %s", e.msg);
            CHECKF(!report_reverse(sp, ns, 0, 0), "grad_ready failed");
            CHECKF(!sb_dp_wait_all(sp, &ts, &e), "wait_all: %s", e.msg);
            sb_dp_step_begin(dn);
            CHECKF(!report_reverse(dn, ns, 0, 0), "grad_ready failed");
            CHECKF(!sb_dp_wait_all(dn, &td, &e), "wait_all: %s", e.msg);
            CHECKF(!memcmp(a, b, ns * sizeof *a), "step %d: sparse and dense all-reduce differ",
                   step);
            if (world > 1) {
                CHECKF(ts.sparse_rows == (double)uni, "step %d: %g rows sent, union has %zu", step,
                       ts.sparse_rows, uni);
                CHECKF(ts.bytes < td.bytes, "sparse sent %g bytes, dense %g", ts.bytes, td.bytes);
            }
        }
        int32_t badrow = (int32_t)rows;
        CHECKF(sb_dp_sparse_rows(sp, &badrow, 1, &e) == SB_EUSAGE,
               "a row beyond the range was accepted");
        sb_dp_free(dn);
        sb_dp_free(sp);
        free(a);
        free(b);
    }

    /* Reporting a range twice would start a bucket early: refused. */
    sb_dp_step_begin(ov);
    CHECKF(!sb_dp_grad_ready(ov, 0, 30000, &e), "first report refused");
    CHECKF(sb_dp_grad_ready(ov, 5, 10, &e) == SB_EUSAGE, "double report accepted");
    CHECKF(sb_dp_grad_ready(ov, n - 1, 5, &e) == SB_EUSAGE, "range beyond buffer accepted");
    sb_dp_wait_all(ov, NULL, &e);

    /* Per-rank timings gathered on rank 0. */
    double mine[2] = {rank, rank * 10.0}, *all = calloc((size_t)world * 2, sizeof *all);
    sb_dp_gather_doubles(ov, mine, 2, all, &e);
    if (rank == 0)
        for (int r = 0; r < world; r++)
            CHECKF(all[2 * r] == r && all[2 * r + 1] == r * 10.0, "gather: rank %d wrong", r);
    free(all);

    char mine_s[64], **strs = NULL;
    snprintf(mine_s, sizeof mine_s, "rank-%d%s", rank, rank % 2 ? "-odd" : "");
    CHECKF(!sb_dp_gather_string(ov, mine_s, &strs, &e), "gather strings: %s", e.msg);
    if (rank == 0) {
        for (int r = 0; r < world && strs; r++) {
            char want[64];
            snprintf(want, sizeof want, "rank-%d%s", r, r % 2 ? "-odd" : "");
            CHECKF(strs[r] && !strcmp(strs[r], want), "gathered string %d: %s", r, strs[r]);
        }
        CHECKF(strs && !strs[world], "gathered strings not NULL-terminated");
    } else {
        CHECKF(!strs, "non-root got strings");
    }
    sb_dp_strings_free(strs);

    int total_failures = g_test_failures;
    MPI_Allreduce(MPI_IN_PLACE, &total_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(g1);
    free(g2);
    free(expect);
    free(mag);
    sb_dp_free(no);
    sb_dp_free(ov);
    if (rank == 0)
        printf("%s: %d failure(s) over %d rank(s)\n", total_failures ? "FAIL" : "ok",
               total_failures, world);
    return total_failures ? 1 : 0;
}
