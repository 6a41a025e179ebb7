/* sb_sweep_cli: what `sprbench sweep`'s command line makes of a sweep once
 * harness/cmd_sweep.c has parsed it: the options that go together or
 * exclude each other, the plan (the plan file, the flags over it, the
 * launcher, this machine's defaults, the label a sweep without --label is
 * named by), and the Slurm batch script of --sbatch. The command checks
 * the paths, runs the sweep (sb_sweep) and reports. */
#ifndef SB_SWEEP_CLI_H
#define SB_SWEEP_CLI_H
#include <stdio.h>
#include "sb_err.h"
#include "sb_pair_run.h"
#include "sb_plan.h"

#define SB_SWEEP_ARGV_MAX 512 /* words a sweep's command line may have */
#define SB_SWEEP_KEYS_MAX 128 /* plan keys given as --key */

/* What the command line asked for: the plan's keys (as flags) apart. */
typedef struct sb_sweep_args {
    int argc; /* the command line (argv[0] the command), for the batch script */
    char **argv;
    const char *plan_file, *db_path, *plots, *sbatch;
    int dry, no_peak, submit, as_json;
    /* argv words that are --sbatch/--submit: the batch script's sweep leaves them out */
    char batch_skip[SB_SWEEP_ARGV_MAX];
    long resume;
    sb_pair_opts pair;
    int pair_opts;          /* a --pair-* option besides the two binaries */
    char pair_bin[2][4096]; /* the two binaries, resolved once (sb_pair_resolve) */
    const char *keys[SB_SWEEP_KEYS_MAX], *values[SB_SWEEP_KEYS_MAX];
    int nkv;
} sb_sweep_args;

/* a zeroed, with the command line, the database db_path and the pairing's
 * defaults (SB_PAIR_OPTS_INIT). */
void sb_sweep_args_init(sb_sweep_args *a, int argc, char **argv, const char *db_path);
/* A plan key given as --key with its value, or NULL for a flag ("1", as a
 * plan file writes it). SB_EUSAGE "--KEY given twice" for a key given
 * before (the last would silently win), "too many options" past
 * SB_SWEEP_KEYS_MAX. */
int sb_sweep_args_key(sb_sweep_args *a, const char *key, const char *value, sb_err *e);
/* The options that go together or exclude each other (SB_EUSAGE), checked
 * before the first point runs; the paired binaries resolved once, pair's
 * baseline and candidate then their absolute paths (in pair_bin). The
 * paths of --plan, --db, --plots and --sbatch are the command's to check,
 * after these. */
int sb_sweep_args_check(sb_sweep_args *a, sb_err *e);
/* The plan into plan (sb_plan_init'ed): the file's, the flags over it, the
 * launcher, the defaults of this machine and the label; its inputs checked
 * where it will run here. *user_launcher: the plan named its launcher. */
int sb_sweep_args_plan(const sb_sweep_args *a, sb_plan *plan, int *user_launcher, sb_err *e);
/* --sbatch FILE: the batch script of this sweep (sizes from the finished
 * plan p) written, running exe's sweep with a's command line less --sbatch
 * and --submit (with --launcher slurm when the plan did not name one),
 * said on out, and with --submit submitted (its job id on out). */
int sb_sweep_args_batch(const sb_sweep_args *a, const sb_plan *p, const char *exe,
                        int user_launcher, FILE *out, sb_err *e);

#endif
