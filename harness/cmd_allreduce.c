/* sprbench allreduce: OSU-style MPI_Allreduce latency and bus bandwidth per
 * message size, including DistilBERT's gradient; runs under mpirun or alone. */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_result.h"
#include "sb_allreduce.h"
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_plan.h"
#include "sb_sysinfo.h"

extern char **environ;

static void allreduce_help(void)
{
    printf("usage: sprbench allreduce [--sizes LIST] [--iters N] [--warmup W] [--result-file F]\n\n"
           "Times MPI_Allreduce (float, sum) on MPI_COMM_WORLD the way the OSU\n"
           "micro-benchmarks do: a barrier, W warm-up calls not timed, N calls timed\n"
           "one by one with MPI_Wtime, then min/avg/max over ranks of each rank's mean.\n"
           "Bus bandwidth = 2(n-1)/n x bytes / avg latency (0 for a single rank).\n"
           "Run it under mpirun for several ranks, or alone as one rank.\n\n"
           "  --sizes LIST       sizes in bytes: '4..512M' walks powers of two, '64K,1M' lists,\n"
           "                     'grad' is DistilBERT's gradient (%zu bytes, f32);\n"
           "                     default '4..512M,grad'\n"
           "  --iters N          timed calls per size up to 1 MiB (default 50); larger\n"
           "                     sizes run max(2, N x 1MiB/bytes)\n"
           "  --warmup W         warm-up calls, scaled the same way (default 5)\n"
           "  --result-file F    rank 0 writes one JSON object: metrics lat_us_<bytes>\n"
           "                     (avg), lat_min_us_<bytes>, lat_max_us_<bytes>,\n"
           "                     busbw_gbs_<bytes>, algbw_gbs_<bytes>, the same for the\n"
           "                     gradient as *_grad, and a 'table' array of rows\n\n"
           "Exit status: 0 ok, 1 the run failed, 2 bad usage.\n",
           sb_distilbert_grad_bytes());
}

/* Under mpirun every rank parses the same argv; only one should complain. */
static int is_first_rank(void)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r) r = getenv("PMI_RANK");
    return !r || !strcmp(r, "0");
}

static int usage_error(const sb_err *e)
{
    if (is_first_rank()) return sb_cli_report("allreduce", e);
    return SB_EUSAGE;
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

int sb_cmd_allreduce(int argc, char **argv)
{
    static const struct option opts[] = {
        {"sizes", required_argument, 0, 's'},  {"iters", required_argument, 0, 'i'},
        {"warmup", required_argument, 0, 'w'}, {"result-file", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    const char *sizes_spec = "4..512M,grad", *result_file = NULL;
    long iters = 50, warmup = 5;
    sb_err e = {0};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's': sizes_spec = optarg; break;
        case 'i':
            if (sb_worker_opt_long("iters", optarg, "--iters", &iters, &e)) return usage_error(&e);
            break;
        case 'w':
            if (sb_worker_opt_long("warmup", optarg, "--warmup", &warmup, &e))
                return usage_error(&e);
            break;
        case 'o': result_file = optarg; break;
        case 'h': allreduce_help(); return 0;
        default:
            sb_errf(&e, SB_EUSAGE, "unknown or incomplete option '%s' (see --help)",
                    argv[optind - 1]);
            return usage_error(&e);
        }
    }
    if (optind < argc) {
        sb_errf(&e, SB_EUSAGE, "unexpected argument '%s'", argv[optind]);
        return usage_error(&e);
    }
    size_t *sizes = NULL;
    int nsizes = 0;
    /* "64K,,1M" or "1M,1M": a typo the size parser would quietly absorb */
    if (sb_check_list(sizes_spec, "--sizes", &e)) return usage_error(&e);
    if (sb_allreduce_parse_sizes(sizes_spec, &sizes, &nsizes, &e)) return usage_error(&e);
    /* rank 0 writes the result: its path is checked before MPI starts */
    if (result_file && is_first_rank() && sb_cli_check_out_file("--result-file", result_file, &e)) {
        free(sizes);
        return usage_error(&e);
    }

    int inited = 0, provided = 0;
    MPI_Initialized(&inited);
    if (!inited) MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
    int rank, world, local_rank, local_size, nodes, leader;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &local_rank);
    MPI_Comm_size(local, &local_size);
    MPI_Comm_free(&local);
    leader = local_rank == 0;
    MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* Where each rank ran: the proof that a multi-host run really spanned hosts. */
    char myhost[MPI_MAX_PROCESSOR_NAME] = "", *hosts = NULL;
    int hlen = 0;
    MPI_Get_processor_name(myhost, &hlen);
    if (rank == 0) hosts = calloc((size_t)world, MPI_MAX_PROCESSOR_NAME);
    MPI_Gather(myhost, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    char libver[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int lvlen = 0;
    MPI_Get_library_version(libver, &lvlen);
    char *nl = strchr(libver, ','); /* "Open MPI v4.1.4, package: ..." -> first part */
    if (nl) *nl = 0;

    size_t grad = sb_distilbert_grad_bytes();
    sb_allreduce_config cfg = {sizes, nsizes, (int)iters, (int)warmup, grad};
    sb_allreduce_row *rows = calloc((size_t)nsizes, sizeof *rows);
    double *samples = NULL;
    int nsamples = 0, rc = SB_OK;
    if (!rows)
        rc = sb_errf(&e, SB_EFAIL, "out of memory");
    else
        rc = sb_allreduce_run(&cfg, rows, &samples, &nsamples, &e);

    int exit_code = rc ? 1 : 0;
    if (rank == 0) {
        if (!rc) {
            printf("# sprbench allreduce: %d rank(s) on %d node(s), %s, float sum, MPI_Wtime\n",
                   world, nodes, libver);
            printf("# hosts:");
            for (int i = 0; hosts && i < world; i++)
                printf(" %s", hosts + (size_t)i * MPI_MAX_PROCESSOR_NAME);
            printf("\n");
            printf("# %12s %6s %12s %12s %12s %11s %11s\n", "bytes", "iters", "avg_us", "min_us",
                   "max_us", "algbw_GB/s", "busbw_GB/s");
            for (int i = 0; i < nsizes; i++)
                printf("  %12zu %6d %12.2f %12.2f %12.2f %11.3f %11.3f%s\n", rows[i].bytes,
                       rows[i].iters, rows[i].lat_avg_us, rows[i].lat_min_us, rows[i].lat_max_us,
                       rows[i].algbw_gbs, rows[i].busbw_gbs,
                       rows[i].bytes == grad ? "  <- DistilBERT gradient" : "");
        } else {
            sb_cli_report("allreduce", &e);
        }
        if (result_file) {
            const char *omp = getenv("OMP_NUM_THREADS");
            json_t *doc = sb_result_new(&(sb_result_head){
                "allreduce", "mpi-allreduce", "f32", omp && atoi(omp) > 0 ? atoi(omp) : 1, world,
                local_size, nodes, rc ? "failed" : "ok", rc ? e.msg : ""});
            json_t *cfgj = json_object_get(doc, "config"),
                   *metrics = json_object_get(doc, "metrics"),
                   *units = json_object_get(doc, "units"), *smp = json_object_get(doc, "samples"),
                   *table = json_array(), *szs = json_array();
            for (int i = 0; i < nsizes; i++)
                json_array_append_new(szs, json_integer((json_int_t)sizes[i]));
            json_object_set_new(cfgj, "sizes", szs);
            json_object_set_new(cfgj, "iters", json_integer(iters));
            json_object_set_new(cfgj, "warmup", json_integer(warmup));
            json_object_set_new(cfgj, "op", json_string("MPI_SUM"));
            json_object_set_new(cfgj, "datatype", json_string("MPI_FLOAT"));
            json_object_set_new(cfgj, "grad_bytes", json_integer((json_int_t)grad));
            size_t sampled = sizes[nsizes - 1];
            for (int i = 0; i < nsizes; i++)
                if (sizes[i] == grad) sampled = grad;
            /* samples[] are rank 0's per-call seconds at this size. */
            json_object_set_new(cfgj, "samples_of_bytes", json_integer((json_int_t)sampled));
            json_object_set_new(cfgj, "mpi_library", json_string(libver));
            json_t *hj = json_array();
            for (int i = 0; hosts && i < world; i++)
                json_array_append_new(hj, json_string(hosts + (size_t)i * MPI_MAX_PROCESSOR_NAME));
            json_object_set_new(cfgj, "hosts", hj);
            for (int i = 0; i < nsamples; i++) json_array_append_new(smp, json_real(samples[i]));
            for (int i = 0; !rc && i < nsizes; i++) {
                const sb_allreduce_row *r = &rows[i];
                char k[64];
                const char *suffix[2] = {NULL, r->bytes == grad ? "grad" : NULL};
                char num[32];
                snprintf(num, sizeof num, "%zu", r->bytes);
                suffix[0] = num;
                const struct {
                    const char *name, *unit;
                    double v;
                } m[] = {
                    {"lat_us", "us", r->lat_avg_us},     {"lat_min_us", "us", r->lat_min_us},
                    {"lat_max_us", "us", r->lat_max_us}, {"algbw_gbs", "GB/s", r->algbw_gbs},
                    {"busbw_gbs", "GB/s", r->busbw_gbs},
                };
                for (int s = 0; s < 2 && suffix[s]; s++)
                    for (size_t j = 0; j < sizeof m / sizeof m[0]; j++) {
                        snprintf(k, sizeof k, "%s_%s", m[j].name, suffix[s]);
                        json_object_set_new(metrics, k, json_real(m[j].v));
                        json_object_set_new(units, k, json_string(m[j].unit));
                    }
                json_array_append_new(
                    table,
                    json_pack("{s:I, s:i, s:f, s:f, s:f, s:f, s:f}", "bytes", (json_int_t)r->bytes,
                              "iters", r->iters, "lat_avg_us", r->lat_avg_us, "lat_min_us",
                              r->lat_min_us, "lat_max_us", r->lat_max_us, "algbw_gbs", r->algbw_gbs,
                              "busbw_gbs", r->busbw_gbs));
            }
            json_object_set_new(doc, "projected", json_object());
            json_object_set_new(doc, "table", table);
            json_object_set_new(doc, "mpi_env", mpi_env_json());
            /* The worker's own command; under a sweep the launcher records mpirun's. */
            const sb_sysinfo *si = sb_sysinfo_cached();
            sb_result_seal(doc, argc, argv, NULL, si ? si->fingerprint : NULL);
            sb_err we = {0};
            if (sb_result_write(result_file, doc, &we)) {
                sb_cli_report("allreduce", &we);
                exit_code = 1;
            }
            json_decref(doc);
        }
    }
    /* Every rank leaves with rank 0's verdict (the result file write included). */
    MPI_Bcast(&exit_code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(rows);
    free(hosts);
    free(samples);
    free(sizes);
    if (!inited) MPI_Finalize();
    return exit_code;
}
