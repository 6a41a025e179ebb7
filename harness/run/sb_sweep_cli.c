#include "sb_sweep_cli.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "sb_cpu.h"
#include "sb_slurm.h"
#include "sb_sysinfo.h"
#include "sb_workload.h"

void sb_sweep_args_init(sb_sweep_args *a, int argc, char **argv, const char *db_path)
{
    memset(a, 0, sizeof *a);
    a->argc = argc;
    a->argv = argv;
    a->db_path = db_path;
    a->pair = (sb_pair_opts)SB_PAIR_OPTS_INIT;
}

int sb_sweep_args_key(sb_sweep_args *a, const char *key, const char *value, sb_err *e)
{
    /* the same flag twice: the last would silently win */
    for (int i = 0; i < a->nkv; i++)
        if (!strcmp(a->keys[i], key)) return sb_errf(e, SB_EUSAGE, "--%s given twice", key);
    if (a->nkv == SB_SWEEP_KEYS_MAX) return sb_errf(e, SB_EUSAGE, "too many options");
    a->keys[a->nkv] = key;
    a->values[a->nkv++] = value ? value : "1";
    return SB_OK;
}

/* The paired options: both binaries or neither, found once (a bare name on
 * PATH, as exec finds it), and that file runs. */
static int check_pair(sb_sweep_args *a, sb_err *e)
{
    sb_pair_opts *pair = &a->pair;
    if (!pair->baseline != !pair->candidate)
        return sb_errf(e, SB_EUSAGE, "--pair-baseline and --pair-candidate go together");
    if (a->pair_opts && !pair->baseline)
        return sb_errf(e, SB_EUSAGE, "--pair-* options need --pair-baseline and --pair-candidate");
    if (pair->baseline && a->resume)
        return sb_errf(e, SB_EUSAGE,
                       "--resume takes the stored plan, its pairing too: give no --pair-* options");
    if (pair->baseline && a->sbatch)
        return sb_errf(e, SB_EUSAGE, "a paired sweep runs here and now: not with --sbatch");
    for (int s = 0; pair->baseline && s < 2; s++) {
        const char *bin = s ? pair->candidate : pair->baseline;
        int rc = sb_pair_resolve(s ? "--pair-candidate" : "--pair-baseline", bin, a->pair_bin[s],
                                 sizeof a->pair_bin[s], e);
        if (rc) return rc;
    }
    if (pair->baseline) {
        pair->baseline = a->pair_bin[0];
        pair->candidate = a->pair_bin[1];
    }
    return SB_OK;
}

int sb_sweep_args_check(sb_sweep_args *a, sb_err *e)
{
    if (a->resume && (a->plan_file || a->nkv))
        return sb_errf(e, SB_EUSAGE, "--resume takes the stored plan; give no plan options");
    if (a->submit && !a->sbatch) return sb_errf(e, SB_EUSAGE, "--submit needs --sbatch FILE");
    int rc = check_pair(a, e);
    if (rc) return rc;
    if (a->as_json && (a->dry || a->sbatch))
        return sb_errf(e, SB_EUSAGE, "--json is the summary of a sweep that runs: not with %s",
                       a->dry ? "--dry-run" : "--sbatch");
    if (a->sbatch && (a->resume || a->dry))
        return sb_errf(e, SB_EUSAGE, "--sbatch writes a new sweep's batch script: give no %s",
                       a->resume ? "--resume (resume inside an allocation instead)" : "--dry-run");
    return SB_OK;
}

/* A sweep without --label is named after the machine it runs on, which a
 * cloud guest's host name ("vm") does not tell: "zen4-default-gemm" for the
 * default plan, "emerald-rapids-train" for another. */
static void default_label(sb_plan *plan, int default_plan)
{
    const sb_cpu *c = sb_cpu_hw();
    const char *ua = c && c->microarch[0] ? c->microarch : "unknown";
    char u[64];
    size_t w = 0;
    for (const char *s = ua; *s && w + 1 < sizeof u; s++) {
        if (isalnum((unsigned char)*s))
            u[w++] = (char)tolower((unsigned char)*s);
        else if (w && u[w - 1] != '-')
            u[w++] = '-';
    }
    while (w && u[w - 1] == '-') w--;
    u[w] = '\0';
    /* "zen-4" reads as people write it: "zen4" */
    if (!strncmp(u, "zen-", 4)) memmove(u + 3, u + 4, strlen(u + 4) + 1);
    snprintf(plan->label, sizeof plan->label, "%s-%s%s", w ? u : "unknown",
             default_plan ? "default-" : "", (plan->wl ? plan->wl : sb_workload_default())->name);
}

int sb_sweep_args_plan(const sb_sweep_args *a, sb_plan *plan, int *user_launcher, sb_err *e)
{
    int rc;
    if (a->plan_file && (rc = sb_plan_read_file(plan, a->plan_file, e))) return rc;
    for (int i = 0; i < a->nkv; i++) {
        char where[80];
        snprintf(where, sizeof where, "--%s", a->keys[i]);
        if ((rc = sb_plan_set(plan, a->keys[i], a->values[i], where, e))) return rc;
    }
    *user_launcher = plan->launcher != NULL;
    if (!a->resume && (rc = sb_slurm_plan_launcher(plan, a->sbatch != NULL, e))) return rc;
    const sb_sysinfo *si = sb_sysinfo_cached();
    if (!a->resume && (rc = sb_plan_finish(plan, si ? si->cores : 1, e))) return rc;
    if (!a->resume && !a->dry && (rc = sb_plan_check_inputs(plan, e))) return rc;
    /* the paired runs' worker is the row's with a shape axis (GEMM's) */
    if (a->pair.baseline && !sb_wl_is(plan->wl, SB_WL_PAIRED))
        return sb_errf(e, SB_EUSAGE, "--pair-baseline: paired runs are for GEMM sweeps, not %s",
                       plan->wl ? plan->wl->name : "");
    if (!a->resume && !plan->label[0]) default_label(plan, !a->plan_file && a->nkv == 0);
    return SB_OK;
}

int sb_sweep_args_batch(const sb_sweep_args *a, const sb_plan *p, const char *exe,
                        int user_launcher, FILE *out, sb_err *e)
{
    char **av = calloc((size_t)a->argc + 4, sizeof *av);
    if (!av) return sb_errf(e, SB_EFAIL, "out of memory");
    int n = 0;
    av[n++] = (char *)exe;
    av[n++] = "sweep";
    for (int i = 1; i < a->argc; i++)
        if (!a->batch_skip[i]) av[n++] = a->argv[i];
    if (!user_launcher) {
        av[n++] = "--launcher";
        av[n++] = "slurm";
    }
    sb_slurm_batch b;
    int rc = sb_slurm_plan_batch(p, a->sbatch, av, &b, e);
    free(av);
    if (rc) return rc;
    char limit[64];
    sb_slurm_time_format(b.time_limit_s, limit, sizeof limit);
    fprintf(out,
            "batch script %s: %d node(s), %d task(s) per node, %d CPU(s) per task, time limit %s,"
            " exclusive\n",
            a->sbatch, b.nodes, b.ppn, b.cpus_per_task, limit);
    if (!a->submit) {
        fprintf(out, "submit it with: sbatch %s\n", a->sbatch);
        return SB_OK;
    }
    char job[64];
    if ((rc = sb_slurm_submit(a->sbatch, job, sizeof job, e))) return rc;
    fprintf(out, "submitted batch job %s\n", job);
    return SB_OK;
}
