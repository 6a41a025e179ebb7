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
#define SB_CMD(fn, name, summary) {name, sb_cmd_##fn, summary},
#include "sb_cmds.def"
#undef SB_CMD
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
