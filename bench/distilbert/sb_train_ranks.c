#include "sb_train_ranks.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sb_train_ranks_launched(void)
{
    const char *w = getenv("OMPI_COMM_WORLD_SIZE");
    if (!w) w = getenv("PMI_SIZE");
    return w && atoi(w) > 1;
}

int sb_train_ranks_first(void)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r) r = getenv("PMI_RANK");
    return !r || !strcmp(r, "0");
}

/* ---- sb_dp's engine behind sb_train_dp's hooks */

static void hook_step_begin(void *u, const int32_t *ids, size_t n)
{
    sb_train_ranks *r = u;
    sb_dp_step_begin(r->dp);
    if (!r->failed && sb_dp_sparse_rows(r->dp, ids, n, &r->err)) r->failed = 1;
}

static void hook_grad_ready(void *u, size_t off, size_t n)
{
    sb_train_ranks *r = u;
    if (!r->failed && sb_dp_grad_ready(r->dp, off, n, &r->err)) r->failed = 1;
}

static int hook_wait_all(void *u, sb_err *e)
{
    sb_train_ranks *r = u;
    if (r->failed) {
        *e = r->err;
        return r->err.code ? r->err.code : SB_EFAIL;
    }
    sb_dp_timing t;
    int rc = sb_dp_wait_all(r->dp, &t, e);
    if (!rc) {
        r->compute_s += t.compute_s;
        r->wait_s += t.wait_s;
        r->comm_s += t.comm_s;
        r->bytes += t.bytes;
        r->sparse_rows += t.sparse_rows;
        r->steps++;
    }
    return rc;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Buckets cut at tensor boundaries; rank 0's weights everywhere. */
static int setup_gradients(sb_train_ranks *r, sb_model *m, sb_err *e)
{
    size_t *ends = malloc(sizeof(size_t) * (size_t)m->ntensors);
    if (!ends) return sb_errf(e, SB_EFAIL, "out of memory");
    for (int i = 0; i < m->ntensors; i++) ends[i] = m->tensors[i].offset + m->tensors[i].count;
    qsort(ends, (size_t)m->ntensors, sizeof(size_t), cmp_size);
    int rc = sb_dp_set_grad(r->dp, m->grads, m->nparams, ends, m->ntensors, e);
    free(ends);
    /* The word embeddings get gradient only in the rows of the batch's tokens:
     * all-reduce just the rows some rank used (the last bucket of backward, so
     * the one overlap cannot hide). */
    if (!rc && r->sparse)
        rc = sb_dp_set_sparse_rows(r->dp, (size_t)(m->w.wte - m->params), (size_t)m->cfg.vocab,
                                   (size_t)m->cfg.dim, e);
    /* The rest of the embeddings are final last too: a bucket of their own,
     * so the first layer's gradient does not wait for them. */
    size_t emb_rest = (size_t)(m->w.wpe - m->params);
    if (!rc) rc = sb_dp_isolate(r->dp, emb_rest, m->block_len[0] - emb_rest, e);
    if (!rc) rc = sb_dp_bcast_floats(r->dp, m->params, m->nparams, e);
    return rc;
}

int sb_train_ranks_start(sb_train_ranks *r, sb_model *m, const sb_train_ranks_opts *o, sb_err *e)
{
    memset(r, 0, sizeof *r);
    r->world = r->nodes = r->ppn = 1;
    r->hooks = (sb_train_dp){.rank = 0, .world = 1};
    int rc;
    if (!sb_train_ranks_launched()) {
        /* One process: bound when asked (--bind) or when mpirun started it
         * (-np 1); left to the OS otherwise, so that runs side by side do
         * not pile onto the same cores. The binding in force is recorded. */
        sb_bind_mode bm = getenv("OMPI_COMM_WORLD_SIZE") ? SB_BIND_CORE : SB_BIND_NONE;
        if (o->bind && (rc = sb_bind_parse_mode(o->bind, &bm, e))) return rc;
        if ((rc = sb_bind_apply(bm, 0, 1, o->threads, 0, &r->bind, e))) return rc;
        r->have_bind = 1;
        return SB_OK;
    }
    sb_dp_config dc = SB_DP_CONFIG_INIT;
    if (o->comm_threads >= 0) dc.comm_threads = o->comm_threads;
    dc.overlap = o->overlap;
    if (o->bucket_mb > 0) dc.bucket_bytes = (size_t)(o->bucket_mb * 1048576.0);
    if ((rc = sb_dp_init(&r->dp, &dc, e))) return rc;
    r->rank = sb_dp_rank(r->dp);
    r->world = sb_dp_world(r->dp);
    r->nodes = sb_dp_nodes(r->dp);
    r->ppn = sb_dp_local_size(r->dp);
    /* Each rank its own cores before any comm thread starts. */
    sb_bind_mode bm = SB_BIND_CORE;
    if (o->bind && (rc = sb_bind_parse_mode(o->bind, &bm, e))) return rc;
    if ((rc = sb_bind_apply(bm, sb_dp_local_rank(r->dp), r->ppn, o->threads, dc.comm_threads,
                            &r->bind, e)))
        return rc;
    r->have_bind = 1;
    if ((rc = sb_dp_set_comm_cpuset(r->dp, r->bind.comm_cpuset, e))) return rc;
    r->sparse = o->sparse;
    if ((rc = setup_gradients(r, m, e))) return rc;
    r->hooks = (sb_train_dp){.rank = r->rank,
                             .world = r->world,
                             .user = r,
                             .step_begin = hook_step_begin,
                             .grad_ready = hook_grad_ready,
                             .wait_all = hook_wait_all};
    return SB_OK;
}

/* "host cpuset: threads c0,c1,..." */
static void bind_desc(const sb_bind_report *b, const char *host, char *desc, size_t cap)
{
    size_t off = (size_t)snprintf(desc, cap, "%s %s:", host, b->rank_cpuset ? b->rank_cpuset : "");
    for (int i = 0; i < b->threads && off < cap; i++)
        off += (size_t)snprintf(desc + off, cap - off, "%s%s", i ? "," : " threads ",
                                b->thread_cpusets[i]);
}

int sb_train_ranks_gather(sb_train_ranks *r, json_t **per_rank, sb_train_ranks_summary *sum,
                          sb_err *e)
{
    memset(sum, 0, sizeof *sum);
    *per_rank = NULL;
    char desc[1024] = "";
    if (!r->dp) {
        if (!r->have_bind) return SB_OK;
        char host[256] = "";
        gethostname(host, sizeof host - 1);
        bind_desc(&r->bind, host, desc, sizeof desc);
        *per_rank = json_pack("[{s:i, s:s}]", "rank", 0, "binding", desc);
        return SB_OK;
    }
    double st = r->steps ? (double)r->steps : 1;
    double mine[3] = {r->compute_s / st, r->wait_s / st, r->comm_s / st};
    sum->mb_per_step = r->bytes / st / 1e6;
    sum->rows_per_step = r->sparse_rows / st;
    double *all = r->rank == 0 ? calloc((size_t)r->world * 3, sizeof(double)) : NULL;
    if (r->rank == 0 && !all) return sb_errf(e, SB_EFAIL, "out of memory");
    bind_desc(&r->bind, sb_dp_hostname(r->dp), desc, sizeof desc);
    char **strs = NULL;
    int rc;
    if ((rc = sb_dp_gather_doubles(r->dp, mine, 3, all, e)) ||
        (rc = sb_dp_gather_string(r->dp, desc, &strs, e))) {
        free(all);
        return rc;
    }
    if (r->rank == 0) {
        json_t *v = json_array();
        double cmin = 1e300, cmax = 0;
        for (int i = 0; i < r->world; i++) {
            const double *x = all + 3 * i;
            json_array_append_new(v,
                                  json_pack("{s:i, s:f, s:f, s:f, s:s}", "rank", i, "compute_s",
                                            x[0], "comm_wait_s", x[1], "comm_busy_s", x[2],
                                            "binding", strs && strs[i] ? strs[i] : ""));
            sum->compute_s += x[0] / r->world;
            sum->wait_s += x[1] / r->world;
            sum->comm_s += x[2] / r->world;
            if (x[0] < cmin) cmin = x[0];
            if (x[0] > cmax) cmax = x[0];
        }
        sum->imbalance = sum->compute_s > 0 ? (cmax - cmin) / sum->compute_s : 0;
        *per_rank = v;
    }
    sb_dp_strings_free(strs);
    free(all);
    return SB_OK;
}

json_t *sb_train_ranks_binding_json(const sb_train_ranks *r, const sb_train_ranks_opts *o)
{
    if (!r->have_bind) return NULL;
    if (!r->dp)
        return json_pack("{s:s, s:s, s:b}", "mode", sb_bind_mode_name(r->bind.mode), "warning",
                         r->bind.warning, "oversubscribed", r->bind.oversubscribed);
    return json_pack("{s:s, s:i, s:b, s:b, s:i, s:f, s:s, s:b}", "mode",
                     sb_bind_mode_name(r->bind.mode), "comm_threads",
                     o->comm_threads >= 0 ? o->comm_threads : 1, "overlap", o->overlap,
                     "sparse_embedding", r->sparse, "buckets", sb_dp_nbuckets(r->dp), "bucket_mb",
                     o->bucket_mb > 0 ? o->bucket_mb : 25.0, "warning", r->bind.warning,
                     "oversubscribed", r->bind.oversubscribed);
}

void sb_train_ranks_end(sb_train_ranks *r)
{
    if (r->have_bind) sb_bind_report_free(&r->bind);
    if (r->dp) sb_dp_free(r->dp);
    r->have_bind = 0;
    r->dp = NULL;
}
