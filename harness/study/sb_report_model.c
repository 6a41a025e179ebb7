#include "sb_report_model.h"
#include <stdlib.h>
#include <string.h>
#include "sb_report_points.h"

/* ---- loading ---- */

/* Appends id to v unless it is there; -1 for want of memory. */
static int add_id(sb_rp_read **v, int *n, int64_t id)
{
    for (int i = 0; i < *n; i++)
        if ((*v)[i].id == id) return 0;
    sb_rp_read *nv = realloc(*v, sizeof *nv * (size_t)(*n + 1));
    if (!nv) return -1;
    *v = nv;
    memset(&nv[*n], 0, sizeof nv[*n]);
    nv[(*n)++].id = id;
    return 0;
}

static int load_ids(sb_db *db, sb_rp_model *m, const sb_ptset *bs, const sb_ptset *cs,
                    const int64_t *machines, int nm, const int64_t *const sweeps[2],
                    const int ns[2])
{
    for (int side = 0; side < 2; side++) {
        const sb_ptset *s = side ? cs : bs;
        for (int i = 0; i < s->n; i++)
            if (add_id(&m->results, &m->nresults, s->p[i].id) ||
                add_id(&m->machines, &m->nmachines, s->p[i].machine_id) ||
                add_id(&m->sweeps, &m->nsweeps, s->p[i].sweep_id))
                return -1;
    }
    for (int i = 0; i < nm; i++)
        if (add_id(&m->machines, &m->nmachines, machines[i])) return -1;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < ns[s]; i++)
            if (add_id(&m->sweeps, &m->nsweeps, sweeps[s][i])) return -1;
    for (int i = 0; i < m->nresults; i++) {
        sb_rp_read *r = &m->results[i];
        r->rc = sb_db_point_result(db, r->id, &r->doc, &r->e);
        if (r->rc) r->doc = NULL;
    }
    for (int i = 0; i < m->nmachines; i++) {
        sb_rp_read *r = &m->machines[i];
        r->rc = sb_db_machine_info(db, r->id, &r->doc, &r->e);
        if (r->rc) r->doc = NULL;
    }
    for (int i = 0; i < m->nsweeps; i++) {
        sb_rp_read *r = &m->sweeps[i];
        if (r->id) r->rc = sb_db_sweep_header(db, r->id, &r->h, &r->found, &r->e);
    }
    return 0;
}

int sb_rp_model_load(sb_db *db, const sb_ptset *bs, const sb_ptset *cs, const int64_t *machines,
                     int nm, const int64_t *const sweeps[2], const int ns[2], sb_rp_model *m,
                     sb_err *e)
{
    memset(m, 0, sizeof *m);
    sb_db_now_iso(m->now);
    if (load_ids(db, m, bs, cs, machines, nm, sweeps, ns)) {
        sb_rp_model_free(m);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    /* as the environment section read them: the candidate's only after the
     * baseline's, and the stacks likewise */
    m->env_rc = sb_envmap_load(db, bs, &m->env[0], &m->env_e);
    if (!m->env_rc) m->env_rc = sb_envmap_load(db, cs, &m->env[1], &m->env_e);
    m->stack_rc[0] = sb_stackside_load(db, bs, &m->stack[0], &m->stack_e);
    if (!m->stack_rc[0]) m->stack_rc[1] = sb_stackside_load(db, cs, &m->stack[1], &m->stack_e);
    return SB_OK;
}

void sb_rp_model_free(sb_rp_model *m)
{
    for (int i = 0; i < m->nresults; i++) json_decref(m->results[i].doc);
    for (int i = 0; i < m->nmachines; i++) json_decref(m->machines[i].doc);
    for (int i = 0; i < m->nsweeps; i++)
        if (m->sweeps[i].found) sb_sweep_header_free(&m->sweeps[i].h);
    free(m->results);
    free(m->machines);
    free(m->sweeps);
    for (int s = 0; s < 2; s++) {
        sb_envmap_free(&m->env[s]);
        if (!m->stack_rc[s]) sb_stackside_free(&m->stack[s]);
    }
    memset(m, 0, sizeof *m);
}

/* ---- reading ---- */

static const sb_rp_read *find(const sb_rp_read *v, int n, int64_t id)
{
    for (int i = 0; i < n; i++)
        if (v[i].id == id) return &v[i];
    return NULL;
}

/* a read the load step did not make: a section asking for what the model
 * was not given is the report's own mistake, said as such */
static int not_loaded(sb_err *e, const char *what, int64_t id)
{
    return sb_errf(e, SB_EFAIL, "internal: the report did not load %s %lld", what, (long long)id);
}

static int replay(const sb_rp_read *r, sb_err *e)
{
    if (r->rc && e) *e = r->e;
    return r->rc;
}

int sb_rp_result(const sb_rp_model *m, int64_t point_id, json_t **doc, sb_err *e)
{
    *doc = NULL;
    const sb_rp_read *r = find(m->results, m->nresults, point_id);
    if (!r) return not_loaded(e, "point", point_id);
    *doc = json_incref(r->doc);
    return replay(r, e);
}

int sb_rp_machine(const sb_rp_model *m, int64_t machine_id, json_t **info, sb_err *e)
{
    *info = NULL;
    const sb_rp_read *r = find(m->machines, m->nmachines, machine_id);
    if (!r) return not_loaded(e, "machine", machine_id);
    if (r->doc && !(*info = json_deep_copy(r->doc))) return sb_errf(e, SB_EFAIL, "out of memory");
    return replay(r, e);
}

static char *dup_or_null(const char *s, int *oom)
{
    if (!s) return NULL;
    char *d = strdup(s);
    if (!d) *oom = 1;
    return d;
}

int sb_rp_sweep_header(const sb_rp_model *m, int64_t sweep_id, sb_sweep_header *h, int *found,
                       sb_err *e)
{
    memset(h, 0, sizeof *h);
    *found = 0;
    const sb_rp_read *r = find(m->sweeps, m->nsweeps, sweep_id);
    if (!r) return not_loaded(e, "sweep", sweep_id);
    if (r->rc || !r->found) return replay(r, e);
    int oom = 0;
    *h = r->h;
    h->workload = dup_or_null(r->h.workload, &oom);
    h->label = dup_or_null(r->h.label, &oom);
    h->hostname = dup_or_null(r->h.hostname, &oom);
    h->cpu_model = dup_or_null(r->h.cpu_model, &oom);
    h->microarch = dup_or_null(r->h.microarch, &oom);
    h->tool_version = dup_or_null(r->h.tool_version, &oom);
    h->started = dup_or_null(r->h.started, &oom);
    if (oom) {
        sb_sweep_header_free(h);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    *found = 1;
    return SB_OK;
}

int sb_rp_stack_diff(const sb_rp_model *m, const sb_pt *b, const sb_pt *c, char *buf, size_t cap)
{
    const sb_rp_read *rb = find(m->results, m->nresults, b->id),
                     *rc = find(m->results, m->nresults, c->id);
    return sb_stack_diff_docs(rb ? rb->doc : NULL, rc ? rc->doc : NULL, b, c, buf, cap);
}

int sb_rp_shape_value(const char *shape, const char *key, char *buf, size_t cap)
{
    return sb_db_shape_value(shape, key, buf, cap);
}

/* ---- pairing ---- */

/* models: take the scaling model's points too (they ran nothing: only
 * "Projected figures" shows them, every other section leaves them out). */
int sb_rp_pairs_of(const sb_ptset *bs, const sb_ptset *cs, int (*want)(const sb_pt *), int models,
                   sb_rp_pair **pairs)
{
    int n = 0, cap = bs->n + cs->n + 1;
    sb_rp_pair *v = calloc((size_t)cap, sizeof *v);
    char **keys = calloc((size_t)cap, sizeof *keys);
    if (!v || !keys) {
        free(v);
        free(keys);
        *pairs = NULL;
        return 0;
    }
    for (int side = 0; side < 2; side++) {
        const sb_ptset *s = side ? cs : bs;
        for (int i = 0; i < s->n; i++) {
            const sb_pt *p = &s->p[i];
            if ((!models && sb_rp_is_model_point(p)) || !want(p)) continue;
            char *k = sb_pt_key(p, 0);
            if (!k) continue;
            int j = 0;
            while (j < n && strcmp(keys[j], k)) j++;
            if (j == n) {
                keys[n++] = k;
            } else {
                free(k);
            }
            if (side)
                v[j].c = p;
            else
                v[j].b = p;
        }
    }
    for (int j = 0; j < n; j++) free(keys[j]);
    free(keys);
    *pairs = v;
    return n;
}
