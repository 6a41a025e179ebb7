/* sprbench: dispatch to a subcommand, then make sure what it printed on
 * standard output was really written. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "sb_cli.h"
#include "sb_cpu.h"
#include "sb_cmds.h"
#include "sb_db.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command g_commands[] = {
    {"info", sb_cmd_info, "describe this machine: CPU, ISA, AMX permission, topology"},
    {"peak", sb_cmd_peak, "measure peak FLOP/s per instruction path"},
    {"gemm", sb_cmd_gemm, "check and time one GEMM with one kernel"},
    {"sweep", sb_cmd_sweep, "run a matrix of points, store every sample in SQLite"},
    {"plot", sb_cmd_plot, "draw GFLOP/s, speedup and efficiency plots from the database"},
    {"db", sb_cmd_db, "inspect, export, import and merge results databases"},
    {"report", sb_cmd_report, "compare two machines or sweeps: Markdown + HTML report"},
    {"gate", sb_cmd_gate, "fail when a candidate run is significantly slower than a baseline"},
    {"tokenize", sb_cmd_tokenize, "BERT uncased WordPiece tokenisation, one JSON line per input"},
    {"features", sb_cmd_features, "SQuAD features as run_qa.py makes them"},
    {"evaluate", sb_cmd_evaluate, "official SQuAD v1.1 exact match and F1"},
    {"squad-synth", sb_cmd_squad_synth, "write a synthetic SQuAD-format data set"},
    {"train", sb_cmd_train, "fine-tune DistilBERT for SQuAD on the chosen kernel"},
    {"predict", sb_cmd_predict, "predict answers for a SQuAD file from a checkpoint"},
    {"infer", sb_cmd_infer,
     "SQuAD inference on any kernel (int8, bf16, f32): latency, throughput, accuracy"},
    {"allreduce", sb_cmd_allreduce, "OSU-style MPI_Allreduce latency and bus bandwidth"},
    {"model", sb_cmd_model, "project epoch time for N nodes from measured step and allreduce"},
};
#define NCOMMANDS (sizeof g_commands / sizeof g_commands[0])

static void usage(FILE *f)
{
    fprintf(f,
            "usage: sprbench <command> [options]   (sprbench <command> --help)\n\n"
            "CPU deep-learning training benchmarks and scaling studies.\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-12s %s\n", g_commands[i].name, g_commands[i].summary);
    fprintf(f,
            "\nsprbench help COMMAND is sprbench COMMAND --help; sprbench --version prints\n"
            "the version and the commit it was built from. SPRBENCH_DB names the database\n"
            "every command with --db uses by default (%s otherwise).\n",
            SB_DEFAULT_DB);
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        (!strcmp(argv[1], "help") && argc == 2)) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "help")) {
        /* `sprbench help CMD` is `sprbench CMD --help`, whatever CMD parses */
        if (argc > 3) {
            fprintf(stderr, "sprbench help: name one command (see sprbench help)\n");
            return 2;
        }
        for (size_t i = 0; i < NCOMMANDS; i++)
            if (!strcmp(argv[2], g_commands[i].name)) {
                char *av[] = {argv[2], "--help", NULL};
                return g_commands[i].run(2, av);
            }
        fprintf(stderr, "sprbench help: unknown command '%s' (see sprbench help)\n", argv[2]);
        return 2;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("sprbench %s (commit %s)\n", sb_version(), sb_commit());
        return 0;
    }
    char why[256];
    if (sb_cpu_check_forces(why, sizeof why) != 0) {
        fprintf(stderr, "sprbench: %s\n", why);
        return 2;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], g_commands[i].name)) return g_commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "sprbench: unknown command '%s' (see sprbench --help)\n", argv[1]);
    return 2;
}

/* stdio keeps write errors to itself until the buffer is flushed, which
 * exit() does without telling anyone: `sprbench info --json > /dev/full` would
 * print nothing and exit 0. Flushing and closing here turns a lost output
 * into exit 1. A command that already failed keeps its own code and its one
 * line. Closing an stdout that was never open (`>&-`) with nothing left to
 * write is no error, as in coreutils. */
static int finish_stdout(int rc)
{
    int failed = ferror(stdout) != 0;
    errno = 0;
    int flush_failed = fflush(stdout) != 0;
    int err = flush_failed || failed ? errno : 0;
    if (fclose(stdout) != 0 && (failed || flush_failed || errno != EBADF)) {
        if (!err) err = errno;
        failed = 1;
    }
    failed = failed || flush_failed;
    if (!failed) return rc;
    if (rc == 0)
        fprintf(stderr, "sprbench: error writing standard output: %s\n", strerror(err ? err : EIO));
    return rc ? rc : 1;
}

int main(int argc, char **argv) { return finish_stdout(run(argc, argv)); }
