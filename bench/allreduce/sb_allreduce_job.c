#include "sb_allreduce_job.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_result.h"
#include "sb_scaling.h"

extern char **environ;

int sb_allreduce_job_run(sb_allreduce_job *j, sb_err *e)
{
    int inited = 0, provided = 0;
    MPI_Initialized(&inited);
    if (!inited) MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
    j->mpi_started = !inited;
    int local_rank, leader;
    MPI_Comm_rank(MPI_COMM_WORLD, &j->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &j->world);
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, j->rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &local_rank);
    MPI_Comm_size(local, &j->local_size);
    MPI_Comm_free(&local);
    leader = local_rank == 0;
    MPI_Allreduce(&leader, &j->nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* Where each rank ran: the proof that a multi-host run really spanned hosts. */
    char myhost[MPI_MAX_PROCESSOR_NAME] = "";
    int hlen = 0;
    MPI_Get_processor_name(myhost, &hlen);
    if (j->rank == 0) j->hosts = calloc((size_t)j->world, MPI_MAX_PROCESSOR_NAME);
    MPI_Gather(myhost, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, j->hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
               0, MPI_COMM_WORLD);
    int lvlen = 0;
    MPI_Get_library_version(j->mpi_library, &lvlen);
    char *nl = strchr(j->mpi_library, ','); /* "Open MPI v4.1.4, package: ..." -> first part */
    if (nl) *nl = 0;

    sb_allreduce_config cfg = {j->sizes, j->nsizes, (int)j->iters, (int)j->warmup,
                               sb_distilbert_grad_bytes()};
    j->rows = calloc((size_t)j->nsizes, sizeof *j->rows);
    if (!j->rows) return sb_errf(e, SB_EFAIL, "out of memory");
    return sb_allreduce_run(&cfg, j->rows, &j->samples, &j->nsamples, e);
}

void sb_allreduce_job_finish(sb_allreduce_job *j)
{
    free(j->rows);
    free(j->hosts);
    free(j->samples);
    free(j->sizes);
    if (j->mpi_started) MPI_Finalize();
}

/* Open MPI's own settings (OMPI_MCA_*: transports, interfaces) as this rank
 * saw them; kept apart from "env" because mpirun also sets per-launch ones
 * (job ids, ranks) that differ between any two runs. */
static json_t *mpi_env_json(void)
{
    json_t *env = json_object();
    for (char **p = environ; *p; p++) {
        if (strncmp(*p, "OMPI_MCA_", 9)) continue;
        const char *eq = strchr(*p, '=');
        if (!eq || eq - *p > 200) continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - *p), *p);
        json_t *v = json_string(eq + 1); /* NULL (skipped) for invalid UTF-8 */
        if (v) json_object_set_new(env, name, v);
    }
    return env;
}

static void config_json(const sb_allreduce_job *j, json_t *cfgj)
{
    size_t grad = sb_distilbert_grad_bytes();
    json_t *szs = json_array();
    for (int i = 0; i < j->nsizes; i++)
        json_array_append_new(szs, json_integer((json_int_t)j->sizes[i]));
    json_object_set_new(cfgj, "sizes", szs);
    json_object_set_new(cfgj, "iters", json_integer(j->iters));
    json_object_set_new(cfgj, "warmup", json_integer(j->warmup));
    json_object_set_new(cfgj, "op", json_string("MPI_SUM"));
    json_object_set_new(cfgj, "datatype", json_string("MPI_FLOAT"));
    json_object_set_new(cfgj, "grad_bytes", json_integer((json_int_t)grad));
    size_t sampled = j->sizes[j->nsizes - 1];
    for (int i = 0; i < j->nsizes; i++)
        if (j->sizes[i] == grad) sampled = grad;
    /* samples[] are rank 0's per-call seconds at this size. */
    json_object_set_new(cfgj, "samples_of_bytes", json_integer((json_int_t)sampled));
    json_object_set_new(cfgj, "mpi_library", json_string(j->mpi_library));
    json_t *hj = json_array();
    for (int i = 0; j->hosts && i < j->world; i++)
        json_array_append_new(hj, json_string(j->hosts + (size_t)i * MPI_MAX_PROCESSOR_NAME));
    json_object_set_new(cfgj, "hosts", hj);
}

/* Metrics <name>_<bytes> (and <name>_grad for the gradient's size) and the row. */
static void row_json(const sb_allreduce_row *r, json_t *metrics, json_t *units, json_t *table)
{
    char num[32];
    snprintf(num, sizeof num, "%zu", r->bytes);
    const char *suffix[2] = {num, r->bytes == sb_distilbert_grad_bytes() ? "grad" : NULL};
    const struct {
        const char *name, *unit;
        double v;
    } m[] = {
        {"lat_us", "us", r->lat_avg_us},     {"lat_min_us", "us", r->lat_min_us},
        {"lat_max_us", "us", r->lat_max_us}, {"algbw_gbs", "GB/s", r->algbw_gbs},
        {"busbw_gbs", "GB/s", r->busbw_gbs},
    };
    for (int s = 0; s < 2 && suffix[s]; s++)
        for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
            char k[64];
            snprintf(k, sizeof k, "%s_%s", m[i].name, suffix[s]);
            sb_result_metric(metrics, units, k, m[i].v, m[i].unit);
        }
    json_array_append_new(
        table,
        json_pack("{s:I, s:i, s:f, s:f, s:f, s:f, s:f}", "bytes", (json_int_t)r->bytes, "iters",
                  r->iters, "lat_avg_us", r->lat_avg_us, "lat_min_us", r->lat_min_us, "lat_max_us",
                  r->lat_max_us, "algbw_gbs", r->algbw_gbs, "busbw_gbs", r->busbw_gbs));
}

json_t *sb_allreduce_result_json(const sb_allreduce_job *j, const char *reason, int argc,
                                 char *const argv[], const char *fingerprint)
{
    const char *omp = getenv("OMP_NUM_THREADS");
    json_t *doc = sb_result_new(&(sb_result_head){
        "allreduce", "mpi-allreduce", "f32", omp && atoi(omp) > 0 ? atoi(omp) : 1, j->world,
        j->local_size, j->nodes, reason ? "failed" : "ok", reason ? reason : ""});
    if (!doc) return NULL;
    config_json(j, json_object_get(doc, "config"));
    json_t *smp = json_object_get(doc, "samples"), *table = json_array();
    for (int i = 0; i < j->nsamples; i++) json_array_append_new(smp, json_real(j->samples[i]));
    for (int i = 0; !reason && i < j->nsizes; i++)
        row_json(&j->rows[i], json_object_get(doc, "metrics"), json_object_get(doc, "units"),
                 table);
    json_object_set_new(doc, "projected", json_object());
    json_object_set_new(doc, "table", table);
    json_object_set_new(doc, "mpi_env", mpi_env_json());
    /* The worker's own command; under a sweep the launcher records mpirun's. */
    sb_result_seal(doc, argc, argv, NULL, fingerprint);
    return doc;
}
