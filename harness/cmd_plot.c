/* sprbench plot: draw a sweep's plots, or one point key's history, from the
 * database. */
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include "sb_cli.h"
#include "sb_opts.h"
#include "sb_text.h"
#include "sb_cmds.h"
#include "sb_db.h"
#include "sb_db_sweep.h"
#include "sb_plot.h"
#include "sb_ptset.h"
#include "sb_query.h"

static void plot_help(void)
{
    printf("usage: sprbench plot [--db PATH] [--sweep SWEEP] --out DIR [--templates DIR]\n"
           "                     [--y-scale auto|linear|log]\n"
           "       sprbench plot --history --kernel K --threads T [--shape S] [--ppn P]\n"
           "                     [--nodes N] [--metric M] [--workload W] [--db PATH]\n"
           "                     [--sweep SWEEP] --out DIR [--templates DIR]\n\n"
           "Draws, for each shape (or training configuration) of a sweep, throughput\n"
           "against threads per kernel (median with p10-p90 spread, the measured peak of\n"
           "each instruction path dotted), and speedup and parallel efficiency (with\n"
           "spread and the ideal line); for a training sweep over nodes, scaling over\n"
           "nodes and over ranks (projections dashed and labelled; the published study\n"
           "overlaid only on DistilBERT-base at seq 384); for an inference sweep,\n"
           "sequences/s per batch, latency per question at batch 1 per kernel (p50,\n"
           "p90, p99: latency.png) and EM, F1 and answers identical to f32 per kernel,\n"
           "grouped by precision (accuracy.png). Each figure is NAME.png,\n"
           "NAME.svg, NAME.gp (gnuplot NAME.gp > NAME.png draws it again) and NAME.dat.\n"
           "  --db PATH         database (default %s; $SPRBENCH_DB sets another)\n"
           "  --sweep SWEEP     sweep to draw: its id, (a prefix of) its uuid or its label\n"
           "                    (the newest of that label); default: the newest; with\n"
           "                    --history, the machine whose sweeps are drawn is this\n"
           "                    sweep's\n"
           "  --out DIR         where the figures go (created if missing; its parent must "
           "exist)\n"
           "  --templates DIR   gnuplot templates (default: $SPRBENCH_PLOTS, the source\n"
           "                    tree's plots/, then the installed share/sprbench/plots)\n"
           "  --y-scale S       throughput axis: auto (log past a 30x range; default),\n"
           "                    linear or log\n"
           "  --history         one point key's metric over every sweep of the machine,\n"
           "                    oldest first, labelled by tool version and date, with the\n"
           "                    p10-p90 spread: history-KEY.png/.svg/.gp/.dat\n"
           "  --kernel K, --threads T, --shape S, --ppn P, --nodes N\n"
           "                    the point key (shape: as stored, e.g. 256x256x256:NN;\n"
           "                    ppn and nodes default to 1)\n"
           "  --metric M        default gflops (gemm), tokens_per_s (train) or\n"
           "                    sequences_per_s (infer)\n"
           "  --workload W      default: the sweep's\n",
           sb_default_db());
}

/* The sweep drawn: --sweep's, or the newest started (an import may add an
 * older one last), into o->sweep_id, and the line naming it on stderr into
 * drew ("" when the database does not exist yet or the sweep is not
 * found: sb_plot says why). Non-zero with e set when --sweep names none. */
static int resolve_sweep(sb_plot_opts *o, const char *sweep, char *drew, size_t cap, sb_err *e)
{
    if (access(o->db_path, F_OK) != 0) return 0;
    sb_db *db;
    int rc = sb_db_open_readonly(o->db_path, &db, e);
    if (rc) return rc;
    int64_t id = 0;
    if (sweep)
        rc = sb_sweep_resolve(db, sweep, &id, e);
    else
        id = sb_db_latest_sweep(db);
    o->sweep_id = id;
    sb_sweep_header hd;
    int found = 0;
    if (!rc && id > 0 && !sb_db_sweep_header(db, id, &hd, &found, e) && found) {
        char l[160], w[40], h[80];
        snprintf(drew, cap, "sprbench plot: %s sweep %lld, %s (%s on %s)\n",
                 sweep ? "drew" : "no --sweep given: drew the newest,", (long long)id,
                 sb_text_cell(l, sizeof l, hd.label && hd.label[0] ? hd.label : "no label", 60, 0),
                 sb_text_cell(w, sizeof w, hd.workload ? hd.workload : "?", 20, 0),
                 sb_text_cell(h, sizeof h, hd.hostname ? hd.hostname : "?", 40, 0));
    }
    if (found) sb_sweep_header_free(&hd);
    sb_db_close(db);
    return rc;
}

/* What the command line asked for: the plot's options and the command's. */
typedef struct plot_cli {
    sb_plot_opts p;
    const char *sweep;
    int history, key_given; /* key_given: a point key (--kernel ...) was given */
} plot_cli;

static int to_long(const char *key, const char *v, const char *what, long *out, sb_err *e)
{
    (void)key; /* --threads, --ppn, --nodes */
    return sb_parse_long(v, 1, 1 << 20, what, out, e);
}
/* --sweep (not empty) and --y-scale, read as they come */
static int to_custom(const char *key, const char *v, void *opts, sb_err *e)
{
    plot_cli *c = opts;
    if (!strcmp(key, "sweep")) {
        c->sweep = v;
        return *v ? SB_OK : sb_errf(e, SB_EUSAGE, "--sweep: empty value");
    }
    if (!strcmp(v, "auto"))
        c->p.yscale = SB_PLOT_Y_AUTO;
    else if (!strcmp(v, "linear"))
        c->p.yscale = SB_PLOT_Y_LINEAR;
    else if (!strcmp(v, "log"))
        c->p.yscale = SB_PLOT_Y_LOG;
    else
        return sb_errf(e, SB_EUSAGE, "--y-scale: auto, linear or log, not '%s'", v);
    return SB_OK;
}
static const sb_opt_ranges g_ranges = {to_long, NULL, NULL, to_custom};

#define O(f) offsetof(plot_cli, f)
static const sb_opt g_plot_opts[] = {
    {"db", SB_OPT_STR, O(p.db_path), SB_OPT_NOSET, NULL},
    {"sweep", SB_OPT_CUSTOM, O(sweep), SB_OPT_NOSET, "sweep"},
    {"out", SB_OPT_STR, O(p.out_dir), SB_OPT_NOSET, NULL},
    {"templates", SB_OPT_STR, O(p.templates), SB_OPT_NOSET, NULL},
    {"y-scale", SB_OPT_CUSTOM, O(p.yscale), SB_OPT_NOSET, "y-scale"},
    {"history", SB_OPT_FLAG, O(history), SB_OPT_NOSET, NULL},
    {"kernel", SB_OPT_STR, O(p.kernel), O(key_given), NULL},
    {"shape", SB_OPT_STR, O(p.shape), O(key_given), NULL},
    {"threads", SB_OPT_INT, O(p.threads), O(key_given), "threads"},
    {"ppn", SB_OPT_INT, O(p.ppn), O(key_given), "ppn"},
    {"nodes", SB_OPT_INT, O(p.nodes), O(key_given), "nodes"},
    {"metric", SB_OPT_STR, O(p.metric), O(key_given), NULL},
    {"workload", SB_OPT_STR, O(p.workload), O(key_given), NULL},
    {NULL}};
#undef O

int sb_cmd_plot(int argc, char **argv)
{
    plot_cli c = {.p = {.db_path = sb_default_db()}};
    sb_err e = {0};
    int code = sb_cli_opts("plot", argc, argv, g_plot_opts, &c, &g_ranges, plot_help);
    if (code >= 0) return code;
    sb_plot_opts o = c.p;
    const char *sweep = c.sweep;
    int history = c.history, key_given = c.key_given;
    if (!o.out_dir) return sb_cli_usage_error("plot", "--out DIR is required");
    if (history && (!o.kernel || !o.threads))
        return sb_cli_usage_error("plot", "--history needs --kernel K and --threads T");
    if (!history && key_given)
        return sb_cli_usage_error("plot",
                                  "--kernel, --shape, --threads, --ppn, --nodes, --metric "
                                  "and --workload go with --history");
    /* --out may be created (its last component only): after the sweep is
     * found, so that a wrong one leaves nothing behind */
    if (sb_cli_check_path("--db", o.db_path, &e)) return sb_cli_report("plot", &e);
    /* the sweep drawn, named on stderr (stdout lists the files) */
    char drew[400] = "";
    if (resolve_sweep(&o, sweep, drew, sizeof drew, &e)) return sb_cli_report("plot", &e);
    if (sb_cli_check_out_dir("--out", o.out_dir, 1, &e)) return sb_cli_report("plot", &e);
    char **files = NULL;
    int n = 0;
    char note[400] = "";
    int rc = history ? sb_plot_history(&o, &files, &n, note, sizeof note, &e)
                     : sb_plot_sweep(&o, &files, &n, &e);
    if (note[0]) fprintf(stderr, "sprbench plot: %s\n", note);
    if (rc) return sb_cli_report("plot", &e);
    for (int i = 0; i < n; i++) {
        printf("%s\n", files[i]);
        free(files[i]);
    }
    free(files);
    if (!history) fputs(drew, stderr);
    return 0;
}
