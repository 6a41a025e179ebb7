/* sprbench plot: draw a sweep's plots from the database. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_plot.h"

int sb_cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {{"db", required_argument, 0, 'd'},
                                         {"sweep", required_argument, 0, 's'},
                                         {"out", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    sb_plot_opts o = {.db_path = sb_default_db()};
    sb_err e = {0};
    long v;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': o.db_path = optarg; break;
        case 'o': o.out_dir = optarg; break;
        case 's':
            if (sb_parse_long(optarg, 1, 1L << 40, "--sweep", &v, &e)) return sb_cli_report("plot", &e);
            o.sweep_id = v;
            break;
        case 'h':
            printf("usage: sprbench plot [--db PATH] [--sweep ID] --out DIR\n\n"
                   "Draws, for each shape (or training configuration) of a sweep, PNG and SVG of\n"
                   "throughput against threads per kernel (median with p10-p90 spread), and of\n"
                   "speedup against threads with the y = x ideal and a parallel-efficiency panel.\n"
                   "  --db PATH    database (default %s; $SPRBENCH_DB sets another)\n"
                   "  --sweep ID   sweep to draw (default: the newest)\n"
                   "  --out DIR    where the images go (created if missing; its parent must exist)\n",
                   sb_default_db());
            return 0;
        default:
            return sb_cli_usage_error("plot", "unknown or incomplete option '%s' (see --help)",
                                      argv[optind - 1]);
        }
    }
    if (optind < argc) return sb_cli_usage_error("plot", "unexpected argument '%s'", argv[optind]);
    if (!o.out_dir) return sb_cli_usage_error("plot", "--out DIR is required");
    /* --out may be created (its last component only): checked before the
     * database is opened */
    if (sb_cli_check_path("--db", o.db_path, &e) || sb_cli_check_out_dir("--out", o.out_dir, 1, &e))
        return sb_cli_report("plot", &e);
    char **files = NULL;
    int n = 0;
    if (sb_plot_sweep(&o, &files, &n, &e)) return sb_cli_report("plot", &e);
    for (int i = 0; i < n; i++) {
        printf("%s\n", files[i]);
        free(files[i]);
    }
    free(files);
    return 0;
}
