/* sprbench predict: answers for every question of a SQuAD file with a
 * trained checkpoint (the forward path of sprbench infer), in the official
 * predictions format that sprbench evaluate scores. */
#include <omp.h>
#include <stddef.h>
#include <stdio.h>
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_opts.h"
#include "sb_squad_eval.h"
#include "sb_sysinfo.h"
#include "sb_train_job.h"
#include "sb_workload.h"

/* A worker's numbers have its workload's ranges (sb_workload). */
static const sb_opt_ranges g_ranges = {sb_worker_opt_long, NULL, NULL, NULL};

static void predict_help(void)
{
    printf("usage: sprbench predict --init DIR --data dev.json --out preds.json [--vocab F]\n"
           "                        [--kernel K] [--threads T] [--batch 32] [--seq 384]\n"
           "                        [--stride 128]\n\n"
           "Predicts an answer for every question of a SQuAD v1.1 file with the model in DIR\n"
           "(config.json + model.safetensors), with run_qa.py's post-processing (n-best 20,\n"
           "max answer length 30), and writes the official predictions format (id -> text),\n"
           "which `sprbench evaluate` scores.\n\n"
           "  --vocab F   the checkpoint's vocab.txt (default: the built-in synthetic vocab,\n"
           "              which fits checkpoints trained on squad-synth)\n"
           "Exit status: 0 ok, 1 failed, 2 bad usage or input, 3 the kernel cannot run here.\n");
}

#define P(f) offsetof(sb_predict_opts, f)
static const sb_opt g_predict_opts[] = {
    {"init", SB_OPT_STR, P(init), SB_OPT_NOSET, NULL},
    {"vocab", SB_OPT_STR, P(vocab), SB_OPT_NOSET, NULL},
    {"data", SB_OPT_STR, P(data), SB_OPT_NOSET, NULL},
    {"out", SB_OPT_STR, P(out), SB_OPT_NOSET, NULL},
    {"kernel", SB_OPT_STR, P(kernel), SB_OPT_NOSET, NULL},
    {"threads", SB_OPT_INT, P(threads), SB_OPT_NOSET, "threads"},
    {"batch", SB_OPT_INT, P(batch), SB_OPT_NOSET, "batch"},
    {"seq", SB_OPT_INT, P(seq), SB_OPT_NOSET, "seq"},
    {"stride", SB_OPT_INT, P(stride), SB_OPT_NOSET, "stride"},
    {NULL, 0, 0, 0, NULL}};
#undef P

int sb_cmd_predict(int argc, char **argv)
{
    sb_predict_opts o = {.batch = 32, .seq = 384, .stride = 128};
    sb_err e = {0};
    int help = 0;
    if (sb_opts_parse(argc, argv, g_predict_opts, &o, &g_ranges, &help, &e))
        return sb_cli_report("predict", &e);
    if (help) {
        predict_help();
        return 0;
    }
    if (!o.init || !o.data || !o.out)
        return sb_cli_usage_error("predict", "--init, --data and --out are required");
    if (sb_cli_check_path("--init", o.init, &e) || sb_cli_check_path("--data", o.data, &e) ||
        (o.vocab && sb_cli_check_path("--vocab", o.vocab, &e)) ||
        (o.kernel && sb_cli_check_path("--kernel", o.kernel, &e)) ||
        sb_cli_check_out_file("--out", o.out, &e))
        return sb_cli_report("predict", &e);
    if (o.stride >= o.seq / 2)
        return sb_cli_usage_error("predict", "--stride %d must be below half of --seq %d", o.stride,
                                  o.seq);
    const sb_sysinfo *si = sb_sysinfo_cached();
    if (o.threads <= 0) o.threads = si && si->cores > 0 ? si->cores : omp_get_max_threads();
    omp_set_num_threads(o.threads);
    if (sb_train_pick_kernel(o.kernel, &o.k, &e)) return sb_cli_report("predict", &e);
    sb_squad_predictions preds = {0};
    int nf = 0;
    double t0 = sb_now();
    int rc = sb_predict_run(&o, &preds, &nf, &e);
    if (!rc) rc = sb_squad_predictions_write(o.out, &preds, &e);
    if (!rc)
        printf("predicted %d questions (%d features) with %s in %.1f s -> %s\n", preds.n, nf,
               o.k->name, sb_now() - t0, o.out);
    sb_squad_predictions_free(&preds);
    if (!rc) return 0;
    int code = sb_cli_report("predict", &e);
    return code == SB_EUSAGE ? SB_EUSAGE : 1;
}
