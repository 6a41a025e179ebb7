#include "sb_dp.h"
#include "sb_bind.h"
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t off, len;
    size_t ready; /* elements reported final this step */
    int queued;   /* handed to a comm thread (or to wait_all's loop) */
    int done;
    double comm_s;
    double bytes; /* all-reduced this step */
} bucket;

struct sb_dp {
    int rank, world, local_rank, local_size, nodes;
    char host[MPI_MAX_PROCESSOR_NAME];
    int provided, we_init, use_threads;
    sb_dp_config cfg;
    MPI_Comm comm;   /* dup of world for the main thread's collectives */
    MPI_Comm *tcomm; /* one dup per comm thread: concurrent collectives
                                on one communicator would be erroneous */
    float *grad;
    size_t count;
    bucket *b;
    int nb;
    /* Buckets in the order they became ready this step; thread t takes the
     * entries with bucket % nthreads == t, in this order. */
    int *order;
    int norder;
    int *cursor;
    int ndone;
    pthread_t *threads;
    int nthreads, nstarted, stop;
    /* A row-sparse bucket (the word embeddings): only the rows some rank
     * used this step are all-reduced (see sb_dp_set_sparse_rows). */
    int sp_bucket; /* -1: none */
    size_t sp_off, sp_rows, sp_rowlen, sp_words;
    uint64_t *sp_mine, *sp_union;
    float *sp_pack;
    size_t sp_pack_cap;  /* floats */
    double sp_sent_rows; /* union rows of this step */
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_done;
    double t_begin;
    char *comm_cpuset; /* own copy: threads read it after init returns */
};

static double now(void) { return MPI_Wtime(); }
static int find_bucket(const sb_dp *dp, size_t off);

/* The row-sparse bucket: OR the ranks' row bitmaps (rows/8 bytes), pack the
 * union's rows in row order, all-reduce the packed rows, average, unpack.
 * Rows outside the union are zero on every rank, so their average is zero
 * and already in place: the result equals the dense all-reduce. 0 when the
 * packed buffer cannot be had (the caller then reduces densely). */
static int reduce_sparse(sb_dp *dp, bucket *bk, MPI_Comm comm)
{
    MPI_Allreduce(dp->sp_mine, dp->sp_union, (int)dp->sp_words, MPI_UINT64_T, MPI_BOR, comm);
    size_t u = 0;
    for (size_t wd = 0; wd < dp->sp_words; wd++)
        u += (size_t)__builtin_popcountll(dp->sp_union[wd]);
    size_t need = u * dp->sp_rowlen;
    if (need > (size_t)INT_MAX) return 0;
    if (need > dp->sp_pack_cap) {
        /* every rank takes the same path: the union is the same everywhere */
        float *np = realloc(dp->sp_pack, need * sizeof(float));
        if (!np) {
            /* cannot differ between ranks without deadlock: abort the job */
            fprintf(stderr, "sprbench: out of memory for %zu packed gradient rows\n", u);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        dp->sp_pack = np;
        dp->sp_pack_cap = need;
    }
    const size_t rl = dp->sp_rowlen;
    float *g = dp->grad + bk->off, *pk = dp->sp_pack;
    size_t k = 0;
    for (size_t r = 0; r < dp->sp_rows; r++)
        if (dp->sp_union[r >> 6] >> (r & 63) & 1)
            memcpy(pk + rl * k++, g + rl * r, rl * sizeof(float));
    if (need) MPI_Allreduce(MPI_IN_PLACE, pk, (int)need, MPI_FLOAT, MPI_SUM, comm);
    const float w = (float)dp->world;
    k = 0;
    for (size_t r = 0; r < dp->sp_rows; r++) {
        if (!(dp->sp_union[r >> 6] >> (r & 63) & 1)) continue;
        float *dst = g + rl * r, *src = pk + rl * k++;
        for (size_t i = 0; i < rl; i++) dst[i] = src[i] / w;
    }
    dp->sp_sent_rows = (double)u;
    bk->bytes = (double)need * sizeof(float) + (double)dp->sp_words * 8;
    return 1;
}

/* Reduces one bucket in place and averages it; the division happens here so
 * that it is overlapped too, and identically in both modes. */
static void reduce_bucket(sb_dp *dp, int bi, MPI_Comm comm)
{
    bucket *bk = &dp->b[bi];
    double t0 = now();
    float *p = dp->grad + bk->off;
    const float w = (float)dp->world;
    if (bi == dp->sp_bucket && reduce_sparse(dp, bk, comm)) {
        bk->comm_s = now() - t0;
        return;
    }
    MPI_Allreduce(MPI_IN_PLACE, p, (int)bk->len, MPI_FLOAT, MPI_SUM, comm);
    for (size_t i = 0; i < bk->len; i++) p[i] /= w;
    bk->bytes = (double)bk->len * sizeof(float);
    bk->comm_s = now() - t0;
}

typedef struct {
    sb_dp *dp;
    int tid;
} thread_arg;

static void *comm_thread(void *arg)
{
    thread_arg *ta = arg;
    sb_dp *dp = ta->dp;
    int tid = ta->tid;
    free(ta);
    /* Best effort: a comm thread that cannot be bound still works. */
    sb_bind_this_thread(dp->comm_cpuset, NULL);
    pthread_mutex_lock(&dp->mu);
    for (;;) {
        while (!dp->stop && dp->cursor[tid] >= dp->norder) pthread_cond_wait(&dp->cv_work, &dp->mu);
        if (dp->cursor[tid] >= dp->norder) break; /* stop requested and nothing left */
        int bi = dp->order[dp->cursor[tid]++];
        if (bi % dp->nthreads != tid) continue;
        pthread_mutex_unlock(&dp->mu);
        reduce_bucket(dp, bi, dp->tcomm[tid]);
        pthread_mutex_lock(&dp->mu);
        dp->b[bi].done = 1;
        dp->ndone++;
        pthread_cond_broadcast(&dp->cv_done);
    }
    pthread_mutex_unlock(&dp->mu);
    return NULL;
}

static const char *level_name(int l)
{
    switch (l) {
    case MPI_THREAD_MULTIPLE: return "multiple";
    case MPI_THREAD_SERIALIZED: return "serialized";
    case MPI_THREAD_FUNNELED: return "funneled";
    default: return "single";
    }
}

int sb_dp_init(sb_dp **out, const sb_dp_config *cfg_in, sb_err *e)
{
    *out = NULL;
    sb_dp_config cfg = cfg_in ? *cfg_in : (sb_dp_config)SB_DP_CONFIG_INIT;
    if (cfg.comm_threads < 0 || cfg.comm_threads > 64)
        return sb_errf(e, SB_EUSAGE, "--comm-threads %d: expected 0..64", cfg.comm_threads);
    if (!cfg.bucket_bytes) cfg.bucket_bytes = 25u << 20;
    sb_dp *dp = calloc(1, sizeof *dp);
    if (!dp) return sb_errf(e, SB_EFAIL, "out of memory");
    dp->cfg = cfg;
    dp->sp_bucket = -1;
    if (cfg.comm_cpuset && *cfg.comm_cpuset) dp->comm_cpuset = strdup(cfg.comm_cpuset);
    dp->cfg.comm_cpuset = NULL;
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &dp->provided) != MPI_SUCCESS) {
            free(dp);
            return sb_errf(e, SB_EFAIL, "MPI_Init_thread failed");
        }
        dp->we_init = 1;
    } else {
        MPI_Query_thread(&dp->provided);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &dp->comm);
    MPI_Comm_rank(dp->comm, &dp->rank);
    MPI_Comm_size(dp->comm, &dp->world);
    int len = 0;
    MPI_Get_processor_name(dp->host, &len);
    MPI_Comm local;
    MPI_Comm_split_type(dp->comm, MPI_COMM_TYPE_SHARED, dp->rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &dp->local_rank);
    MPI_Comm_size(local, &dp->local_size);
    MPI_Comm_free(&local);
    int leader = dp->local_rank == 0;
    MPI_Allreduce(&leader, &dp->nodes, 1, MPI_INT, MPI_SUM, dp->comm);

    /* Threads need at least SERIALIZED (and then only one of them, since the
     * main thread stays out of MPI during a step); with less, reduce in
     * wait_all. A single rank has nothing to communicate. */
    int want = cfg.overlap && cfg.comm_threads > 0 && dp->world > 1;
    if (want && dp->provided >= MPI_THREAD_SERIALIZED) {
        dp->nthreads = dp->provided == MPI_THREAD_MULTIPLE ? cfg.comm_threads : 1;
        dp->use_threads = 1;
    }
    pthread_mutex_init(&dp->mu, NULL);
    pthread_cond_init(&dp->cv_work, NULL);
    pthread_cond_init(&dp->cv_done, NULL);
    if (dp->use_threads) {
        dp->tcomm = calloc((size_t)dp->nthreads, sizeof *dp->tcomm);
        dp->cursor = calloc((size_t)dp->nthreads, sizeof *dp->cursor);
        dp->threads = calloc((size_t)dp->nthreads, sizeof *dp->threads);
        if (!dp->tcomm || !dp->cursor || !dp->threads) {
            sb_dp_free(dp);
            return sb_errf(e, SB_EFAIL, "out of memory");
        }
        /* Collective, so done here where every rank is; the threads
         * themselves start with the buckets, after the caller has bound the
         * process and named the comm threads' cores. */
        for (int t = 0; t < dp->nthreads; t++) MPI_Comm_dup(dp->comm, &dp->tcomm[t]);
    }
    *out = dp;
    return SB_OK;
}

static int start_threads(sb_dp *dp, sb_err *e)
{
    while (dp->nstarted < dp->nthreads) {
        thread_arg *ta = malloc(sizeof *ta);
        if (ta) *ta = (thread_arg){dp, dp->nstarted};
        if (!ta || pthread_create(&dp->threads[dp->nstarted], NULL, comm_thread, ta)) {
            free(ta);
            return sb_errf(e, SB_EFAIL, "cannot start communication thread %d", dp->nstarted);
        }
        dp->nstarted++;
    }
    return SB_OK;
}

int sb_dp_set_comm_cpuset(sb_dp *dp, const char *cpuset, sb_err *e)
{
    if (dp->nstarted)
        return sb_errf(e, SB_EUSAGE,
                       "comm threads already started: set their cpuset before the buckets");
    free(dp->comm_cpuset);
    dp->comm_cpuset = cpuset && *cpuset ? strdup(cpuset) : NULL;
    return SB_OK;
}

void sb_dp_free(sb_dp *dp)
{
    if (!dp) return;
    if (dp->threads) {
        pthread_mutex_lock(&dp->mu);
        dp->stop = 1;
        pthread_cond_broadcast(&dp->cv_work);
        pthread_mutex_unlock(&dp->mu);
        for (int t = 0; t < dp->nstarted; t++) pthread_join(dp->threads[t], NULL);
    }
    if (dp->tcomm)
        for (int t = 0; t < dp->nthreads; t++)
            if (dp->tcomm[t] != MPI_COMM_NULL && dp->tcomm[t]) MPI_Comm_free(&dp->tcomm[t]);
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin && dp->comm) MPI_Comm_free(&dp->comm);
    pthread_mutex_destroy(&dp->mu);
    pthread_cond_destroy(&dp->cv_work);
    pthread_cond_destroy(&dp->cv_done);
    free(dp->tcomm);
    free(dp->cursor);
    free(dp->threads);
    free(dp->b);
    free(dp->order);
    free(dp->comm_cpuset);
    free(dp->sp_mine);
    free(dp->sp_union);
    free(dp->sp_pack);
    if (dp->we_init && !fin) MPI_Finalize();
    free(dp);
}

int sb_dp_rank(const sb_dp *dp) { return dp->rank; }
int sb_dp_world(const sb_dp *dp) { return dp->world; }
int sb_dp_local_rank(const sb_dp *dp) { return dp->local_rank; }
int sb_dp_local_size(const sb_dp *dp) { return dp->local_size; }
int sb_dp_nodes(const sb_dp *dp) { return dp->nodes; }
const char *sb_dp_hostname(const sb_dp *dp) { return dp->host; }
const char *sb_dp_thread_level(const sb_dp *dp) { return level_name(dp->provided); }
int sb_dp_overlap_active(const sb_dp *dp) { return dp->use_threads; }
int sb_dp_nbuckets(const sb_dp *dp) { return dp->nb; }

int sb_dp_bcast_floats(sb_dp *dp, float *buf, size_t count, sb_err *e)
{
    (void)e;
    const size_t chunk = (size_t)1 << 28;
    for (size_t off = 0; off < count; off += chunk) {
        size_t n = count - off < chunk ? count - off : chunk;
        MPI_Bcast(buf + off, (int)n, MPI_FLOAT, 0, dp->comm);
    }
    return SB_OK;
}

int sb_dp_set_buckets(sb_dp *dp, float *grad, size_t count, const size_t *bounds, int nbuckets,
                      sb_err *e)
{
    if (nbuckets < 1 || !bounds || bounds[0] != 0 || bounds[nbuckets] != count)
        return sb_errf(e, SB_EUSAGE, "buckets must start at 0 and end at the gradient size %zu",
                       count);
    for (int i = 0; i < nbuckets; i++) {
        if (bounds[i + 1] <= bounds[i])
            return sb_errf(e, SB_EUSAGE, "bucket %d is empty or reversed", i);
        if (bounds[i + 1] - bounds[i] > (size_t)INT_MAX)
            return sb_errf(e, SB_EUSAGE, "bucket %d has more than INT_MAX elements", i);
    }
    bucket *b = calloc((size_t)nbuckets, sizeof *b);
    int *order = calloc((size_t)nbuckets, sizeof *order);
    if (!b || !order) {
        free(b);
        free(order);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    for (int i = 0; i < nbuckets; i++) {
        b[i].off = bounds[i];
        b[i].len = bounds[i + 1] - bounds[i];
    }
    pthread_mutex_lock(&dp->mu);
    free(dp->b);
    free(dp->order);
    dp->b = b;
    dp->order = order;
    dp->nb = nbuckets;
    dp->sp_bucket = -1; /* bucket numbers changed: find the sparse range again */
    if (dp->sp_rows) {
        int bi = find_bucket(dp, dp->sp_off);
        if (dp->b[bi].off == dp->sp_off && dp->b[bi].len == dp->sp_rows * dp->sp_rowlen)
            dp->sp_bucket = bi;
    }
    dp->grad = grad;
    dp->count = count;
    pthread_mutex_unlock(&dp->mu);
    sb_dp_step_begin(dp);
    return dp->use_threads ? start_threads(dp, e) : SB_OK;
}

int sb_dp_set_grad(sb_dp *dp, float *grad, size_t count, const size_t *tensor_ends, int ntensors,
                   sb_err *e)
{
    if (count == 0) return sb_errf(e, SB_EUSAGE, "empty gradient buffer");
    size_t target = dp->cfg.bucket_bytes / sizeof(float);
    if (target == 0) target = 1;
    size_t cap = count / target + (size_t)ntensors + 2;
    size_t *bounds = malloc((cap + 1) * sizeof *bounds);
    if (!bounds) return sb_errf(e, SB_EFAIL, "out of memory");
    int nb = 0;
    bounds[0] = 0;
    size_t start = 0;
    if (tensor_ends && ntensors > 0) {
        /* Close a bucket at the first tensor end that reaches the target, so a
         * bucket never waits on part of a tensor. */
        for (int t = 0; t < ntensors; t++) {
            size_t end = tensor_ends[t];
            if (end <= start || end > count) {
                free(bounds);
                return sb_errf(e, SB_EUSAGE, "tensor end %zu out of order", end);
            }
            if (end - start >= target || end == count) {
                bounds[++nb] = end;
                start = end;
            }
        }
        if (start != count) bounds[++nb] = count;
    } else {
        for (start = 0; start < count; start += target)
            bounds[++nb] = start + target < count ? start + target : count;
    }
    int rc = sb_dp_set_buckets(dp, grad, count, bounds, nb, e);
    free(bounds);
    return rc;
}

int sb_dp_isolate(sb_dp *dp, size_t offset, size_t count, sb_err *e)
{
    if (!dp->nb) return sb_errf(e, SB_EUSAGE, "declare the buckets before isolating a range");
    if (!count || offset > dp->count || count > dp->count - offset)
        return sb_errf(e, SB_EUSAGE, "range [%zu, +%zu) beyond the gradient size %zu", offset,
                       count, dp->count);
    size_t end = offset + count;
    /* Cut at the range's two ends, drop the bucket edges inside it. */
    size_t *bounds = malloc(((size_t)dp->nb + 3) * sizeof *bounds);
    if (!bounds) return sb_errf(e, SB_EFAIL, "out of memory");
    int n = 0, same = 1;
    bounds[n++] = 0;
    for (int i = 0; i < dp->nb; i++) {
        size_t lo = dp->b[i].off, hi = lo + dp->b[i].len;
        if (offset > lo && offset < hi) bounds[n++] = offset, same = 0;
        if (hi > offset && hi < end) {
            same = 0;
            continue;
        }
        if (end > lo && end < hi) bounds[n++] = end, same = 0;
        bounds[n++] = hi;
    }
    int rc = SB_OK;
    if (!same) rc = sb_dp_set_buckets(dp, dp->grad, dp->count, bounds, n - 1, e);
    free(bounds);
    return rc;
}

int sb_dp_set_sparse_rows(sb_dp *dp, size_t offset, size_t rows, size_t row_len, sb_err *e)
{
    if (!rows || !row_len || rows > dp->count / row_len)
        return sb_errf(e, SB_EUSAGE, "sparse range [%zu, +%zu x %zu) beyond the gradient size %zu",
                       offset, rows, row_len, dp->count);
    size_t end = offset + rows * row_len;
    int rc = sb_dp_isolate(dp, offset, rows * row_len, e);
    if (rc) return rc;
    int bi = find_bucket(dp, offset);
    if (dp->b[bi].off != offset || dp->b[bi].len != rows * row_len)
        return sb_errf(e, SB_EUSAGE, "sparse range [%zu, %zu) is not one bucket", offset, end);
    size_t words = (rows + 63) / 64;
    uint64_t *mine = calloc(words, sizeof *mine), *uni = calloc(words, sizeof *uni);
    if (!mine || !uni) {
        free(mine);
        free(uni);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    pthread_mutex_lock(&dp->mu);
    free(dp->sp_mine);
    free(dp->sp_union);
    dp->sp_mine = mine;
    dp->sp_union = uni;
    dp->sp_words = words;
    dp->sp_rows = rows;
    dp->sp_rowlen = row_len;
    dp->sp_off = offset;
    dp->sp_bucket = bi;
    pthread_mutex_unlock(&dp->mu);
    return SB_OK;
}

int sb_dp_sparse_rows(sb_dp *dp, const int32_t *rows, size_t n, sb_err *e)
{
    if (dp->sp_bucket < 0) return SB_OK;
    memset(dp->sp_mine, 0, dp->sp_words * sizeof *dp->sp_mine);
    for (size_t i = 0; i < n; i++) {
        if (rows[i] < 0 || (size_t)rows[i] >= dp->sp_rows)
            return sb_errf(e, SB_EUSAGE, "row %d outside the sparse range of %zu rows",
                           (int)rows[i], dp->sp_rows);
        dp->sp_mine[rows[i] >> 6] |= (uint64_t)1 << (rows[i] & 63);
    }
    return SB_OK;
}

void sb_dp_step_begin(sb_dp *dp)
{
    pthread_mutex_lock(&dp->mu);
    for (int i = 0; i < dp->nb; i++) {
        dp->b[i].ready = 0;
        dp->b[i].queued = dp->b[i].done = 0;
        dp->b[i].comm_s = 0;
        dp->b[i].bytes = 0;
    }
    dp->sp_sent_rows = 0;
    dp->norder = 0;
    dp->ndone = 0;
    for (int t = 0; t < dp->nthreads; t++) dp->cursor[t] = 0;
    pthread_mutex_unlock(&dp->mu);
    dp->t_begin = now();
}

/* First bucket whose end is beyond off (buckets are sorted and contiguous). */
static int find_bucket(const sb_dp *dp, size_t off)
{
    int lo = 0, hi = dp->nb - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (dp->b[mid].off + dp->b[mid].len <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int sb_dp_grad_ready(sb_dp *dp, size_t offset, size_t count, sb_err *e)
{
    if (!dp->nb) return sb_errf(e, SB_EUSAGE, "grad_ready before the buckets were declared");
    if (offset > dp->count || count > dp->count - offset)
        return sb_errf(e, SB_EUSAGE, "grad_ready range [%zu, %zu) beyond the gradient size %zu",
                       offset, offset + count, dp->count);
    int rc = SB_OK, wake = 0;
    pthread_mutex_lock(&dp->mu);
    size_t end = offset + count;
    for (int i = count ? find_bucket(dp, offset) : dp->nb; i < dp->nb && dp->b[i].off < end; i++) {
        bucket *bk = &dp->b[i];
        size_t lo = offset > bk->off ? offset : bk->off;
        size_t hi = end < bk->off + bk->len ? end : bk->off + bk->len;
        bk->ready += hi - lo;
        if (bk->ready > bk->len) {
            rc = sb_errf(e, SB_EUSAGE, "gradient range [%zu, %zu) reported ready twice in a step",
                         lo, hi);
            break;
        }
        if (bk->ready == bk->len && !bk->queued) {
            bk->queued = 1;
            dp->order[dp->norder++] = i;
            wake = 1;
        }
    }
    if (wake && dp->use_threads) pthread_cond_broadcast(&dp->cv_work);
    pthread_mutex_unlock(&dp->mu);
    return rc;
}

int sb_dp_wait_all(sb_dp *dp, sb_dp_timing *t, sb_err *e)
{
    (void)e;
    double t_enter = now();
    int late = 0;
    pthread_mutex_lock(&dp->mu);
    for (int i = 0; i < dp->nb; i++) {
        if (!dp->b[i].queued) {
            dp->b[i].queued = 1;
            dp->order[dp->norder++] = i;
            late++;
        }
    }
    if (dp->world > 1 && dp->use_threads) {
        pthread_cond_broadcast(&dp->cv_work);
        while (dp->ndone < dp->nb) pthread_cond_wait(&dp->cv_done, &dp->mu);
        pthread_mutex_unlock(&dp->mu);
    } else {
        pthread_mutex_unlock(&dp->mu);
        if (dp->world > 1)
            for (int k = 0; k < dp->norder; k++) reduce_bucket(dp, dp->order[k], dp->comm);
        dp->ndone = dp->nb;
    }
    double t_end = now();
    if (t) {
        *t = (sb_dp_timing){0};
        t->compute_s = t_enter - dp->t_begin;
        t->wait_s = t_end - t_enter;
        t->step_s = t_end - dp->t_begin;
        t->buckets = dp->nb;
        t->late_buckets = dp->use_threads ? late : 0;
        for (int i = 0; i < dp->nb; i++) {
            t->comm_s += dp->b[i].comm_s;
            t->bytes += dp->b[i].bytes;
        }
        t->sparse_rows = dp->sp_sent_rows;
    }
    return SB_OK;
}

int sb_dp_gather_doubles(sb_dp *dp, const double *mine, int n, double *all, sb_err *e)
{
    (void)e;
    MPI_Gather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, dp->comm);
    return SB_OK;
}

int sb_dp_gather_string(sb_dp *dp, const char *mine, char ***all, sb_err *e)
{
    *all = NULL;
    int len = (int)strlen(mine ? mine : "") + 1;
    int *lens = NULL, *displ = NULL, total = 0;
    char *buf = NULL;
    char **out = NULL;
    int ok = 1;
    if (dp->rank == 0) {
        lens = calloc((size_t)dp->world, sizeof *lens);
        displ = calloc((size_t)dp->world, sizeof *displ);
        out = calloc((size_t)dp->world + 1, sizeof *out);
        ok = lens && displ && out;
    }
    /* Every rank takes part even when rank 0 is short of memory. */
    MPI_Gather(&len, 1, MPI_INT, ok ? lens : NULL, 1, MPI_INT, 0, dp->comm);
    if (dp->rank == 0 && ok) {
        for (int r = 0; r < dp->world; r++) {
            displ[r] = total;
            total += lens[r];
        }
        buf = malloc((size_t)total);
        ok = buf != NULL;
    }
    MPI_Gatherv(mine ? mine : "", len, MPI_CHAR, buf, ok ? lens : NULL, ok ? displ : NULL, MPI_CHAR,
                0, dp->comm);
    int rc = SB_OK;
    if (dp->rank == 0) {
        if (ok) {
            for (int r = 0; r < dp->world && ok; r++)
                ok = (out[r] = strdup(buf + displ[r])) != NULL;
        }
        if (!ok) {
            sb_dp_strings_free(out);
            out = NULL;
            rc = sb_errf(e, SB_EFAIL, "out of memory gathering %d strings", dp->world);
        }
        *all = out;
    }
    free(buf);
    free(lens);
    free(displ);
    return rc;
}

void sb_dp_strings_free(char **v)
{
    if (!v) return;
    for (char **p = v; *p; p++) free(*p);
    free(v);
}

int sb_dp_check_identical(sb_dp *dp, const float *buf, size_t count, int *identical, sb_err *e)
{
    (void)e;
    /* FNV-1a over the bytes, then compare min and max over ranks. */
    uint64_t h = 1469598103934665603ull;
    const unsigned char *p = (const unsigned char *)buf;
    for (size_t i = 0; i < count * sizeof(float); i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    uint64_t v[2] = {h, ~h}, r[2];
    MPI_Allreduce(v, r, 2, MPI_UINT64_T, MPI_MAX, dp->comm);
    *identical = r[0] == h && ~r[1] == h;
    return SB_OK;
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int sb_dp_shard_indices(uint64_t seed, int shuffle, long n, int rank, int world, long **idx,
                        long *count, sb_err *e)
{
    *idx = NULL;
    *count = 0;
    if (n < 1) return sb_errf(e, SB_EUSAGE, "no features to shard");
    if (world < 1 || rank < 0 || rank >= world)
        return sb_errf(e, SB_EUSAGE, "rank %d of world %d", rank, world);
    long per = (n + world - 1) / world, total = per * world;
    long *all = malloc((size_t)total * sizeof *all), *mine = malloc((size_t)per * sizeof *mine);
    if (!all || !mine) {
        free(all);
        free(mine);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    for (long i = 0; i < n; i++) all[i] = i;
    if (shuffle) {
        uint64_t s = seed;
        for (long i = n - 1; i > 0; i--) {
            long j = (long)(((unsigned __int128)splitmix64(&s) * (uint64_t)(i + 1)) >> 64);
            long tmp = all[i];
            all[i] = all[j];
            all[j] = tmp;
        }
    }
    for (long i = n; i < total; i++) all[i] = all[(i - n) % n];
    for (long k = 0; k < per; k++) mine[k] = all[rank + k * world];
    free(all);
    *idx = mine;
    *count = per;
    return SB_OK;
}
