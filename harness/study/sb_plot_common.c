/* sb_plot_common: what every figure family of the plot shares
 * (sb_plot_int.h): the palette (one colour and point type per kernel), the
 * figure files (gnuplot text, PNG, SVG, data), a template filled, the x axis
 * of threads, and the sweep opened; the driver (sb_plot.c) and the families
 * (sb_plot_*.c) call it, and it calls none of them. */
#include "sb_plot.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sb_db.h"
#include "sb_db_sweep.h"
#include "sb_gnuplot.h"
#include "sb_io.h"
#include "sb_kernel.h"
#include "sb_plot_int.h"
#include "sb_query.h"


/* ---- the palette: one colour and one point type per kernel ----
 *
 * Sixteen colours and fifteen point types, each kernel keeping its own pair
 * in every figure (its place in the kernel registry), so amx-bf16 is the same
 * colour on the throughput, speedup and report charts. Colours repeat only
 * past sixteen kernels, and then with another point type. */
static const char *const g_colour[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
    "#7f7f7f", "#bcbd22", "#000000", "#0b3d91", "#a6761d", "#66a61e", "#e7298a", "#1b9e77"};
static const int g_ptype[] = {7, 5, 9, 11, 13, 15, 6, 4, 8, 10, 12, 14, 1, 2, 3};
#define NCOLOUR ((int)(sizeof g_colour / sizeof *g_colour))
#define NPTYPE ((int)(sizeof g_ptype / sizeof *g_ptype))

/* A kernel's place: its registry index, or past the registry in the order
 * unknown names (an imported database) first appear in this figure. */
int sb_plot_kernel_slot(const char *kernel, char unknown[][160], int *nunknown)
{
    for (int i = 0; i < sb_kernel_count(); i++)
        if (!strcmp(sb_kernel_at(i)->name, kernel)) return i;
    for (int i = 0; i < *nunknown; i++)
        if (!strcmp(unknown[i], kernel)) return sb_kernel_count() + i;
    if (*nunknown < 64) snprintf(unknown[(*nunknown)++], 160, "%s", kernel);
    return sb_kernel_count() + *nunknown - 1;
}

const char *sb_plot_colour(int slot) { return g_colour[slot % NCOLOUR]; }

void sb_plot_style_clause(sb_gp *c, int slot)
{
    sb_gp_add(c, " lc rgb %T pt %d", sb_plot_colour(slot), g_ptype[slot % NPTYPE]);
}

/* ---- files ---- */

static int add_file(char ***files, int *n, const char *path)
{
    if (!files) return 0;
    char **nf = realloc(*files, sizeof **files * (size_t)(*n + 1));
    if (!nf) return -1;
    *files = nf;
    if (!(nf[*n] = strdup(path))) return -1;
    (*n)++;
    return 0;
}

void sb_plot_slug(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    for (; *in && o + 1 < cap; in++)
        out[o++] = ((*in >= 'a' && *in <= 'z') || (*in >= 'A' && *in <= 'Z') ||
                    (*in >= '0' && *in <= '9') || *in == '-')
            ? *in
            : '_';
    out[o] = '\0';
    if (!o) snprintf(out, cap, "all");
}

int sb_plot_write_figure(const sb_gp *g, int w, int h, const char *dir, const char *base, int svg,
                         char ***files, int *nfiles, sb_err *e)
{
    static const char *const exts[] = {"png", "svg"};
    char path[4096];
    for (int i = 0; i < 1 + !!svg; i++) {
        snprintf(path, sizeof path, "%s/%s.%s", dir, base, exts[i]);
        int rc = sb_gnuplot_render(g, exts[i], w, h, path, e);
        if (rc) return rc;
        if (add_file(files, nfiles, path)) return sb_errf(e, SB_EFAIL, "out of memory");
    }
    /* the script and its data beside the image: the figure can be drawn
     * again and edited without sprbench */
    snprintf(path, sizeof path, "%s/%s.gp", dir, base);
    int rc = sb_gp_write_script(g, w, h, path, e);
    if (rc) return rc;
    if (add_file(files, nfiles, path)) return sb_errf(e, SB_EFAIL, "out of memory");
    char *dat = sb_gp_data_text(g);
    if (!dat) return sb_errf(e, SB_EFAIL, "out of memory");
    snprintf(path, sizeof path, "%s/%s.dat", dir, base);
    rc = sb_write_file_atomic(path, dat, strlen(dat), e);
    free(dat);
    if (rc) return rc;
    return add_file(files, nfiles, path) ? sb_errf(e, SB_EFAIL, "out of memory") : SB_OK;
}

/* Fills a template into g (which holds the figure's data blocks). */
int sb_plot_fill(sb_gp *g, const char *tdir, const char *name, const sb_gp_var *vars, int nvars,
                 sb_err *e)
{
    char *text;
    int rc = sb_gp_template_load(tdir, name, &text, e);
    if (rc) return rc;
    rc = sb_gp_template_fill(g, text, name, vars, nvars, e);
    free(text);
    return rc;
}

/* ---- axes that hold at any count ---- */

/* Threads (or ranks) on x: up to 8, every integer; past that a log2 axis
 * with tics at the powers of two and at the largest count, so 56 threads
 * read 1 2 4 8 16 32 56, never 56 labels on top of each other. */
void sb_plot_x_axis(sb_gp *c, int minx, int maxx)
{
    if (maxx <= 8) {
        sb_gp_add(c, "set xrange [%g:%g]\nset xtics 1\n", minx - 0.5, maxx + 0.5);
        return;
    }
    sb_gp_add(c, "set logscale x 2\nset xrange [%g:%g]\nset xtics (", minx / 1.25, maxx * 1.25);
    int first = 1, p = 1;
    for (; p <= maxx; p *= 2) {
        if (p < minx) continue;
        /* the largest count replaces a power of two too close to it to read */
        if (p != maxx && p * 1.3 > maxx && p * 2 > maxx) {
            if (p < maxx && maxx - p < p / 4) continue;
        }
        sb_gp_add(c, first ? "%d" : ", %d", p);
        first = 0;
    }
    if (p / 2 != maxx) sb_gp_add(c, first ? "%d" : ", %d", maxx);
    sb_gp_add(c, ")\n");
}

int sb_plot_open_sweep(const sb_plot_opts *o, sb_plot_ctx *c, sb_err *e)
{
    memset(c, 0, sizeof *c);
    c->out_dir = o->out_dir;
    c->yscale = o->yscale;
    snprintf(c->machine_text, sizeof c->machine_text, "unknown machine");
    if (!sb_gnuplot_available())
        return sb_errf(e, SB_EUSAGE, "gnuplot not found on PATH (install gnuplot-nox)");
    int rc = sb_gp_templates_dir(o->templates, c->tdir, sizeof c->tdir, e);
    if (rc) return rc;
    struct stat st0;
    if (stat(o->db_path, &st0) != 0)
        return sb_errf(e, SB_EUSAGE, "%s: no such database", o->db_path);
    if ((rc = sb_db_open_readonly(o->db_path, &c->db, e))) return rc;
    c->sweep = o->sweep_id > 0 ? o->sweep_id : sb_db_latest_sweep(c->db);
    sb_sweep_header hd;
    int found;
    if ((rc = sb_db_sweep_header(c->db, c->sweep, &hd, &found, e))) {
        sb_db_close(c->db);
        return rc;
    }
    if (found) {
        snprintf(c->workload, sizeof c->workload, "%s",
                 hd.workload ? hd.workload : sb_workload_default()->name);
        c->wl = sb_workload_find(c->workload);
        c->machine = hd.machine_id;
        c->cores = hd.cores;
        if (!hd.has_machine) /* e.g. `sprbench model --db`: computed, no machine */
            snprintf(c->machine_text, sizeof c->machine_text, "%s (no machine)",
                     hd.label ? hd.label : "sweep");
        else
            snprintf(c->machine_text, sizeof c->machine_text, "%s: %s (%s, %d cores)",
                     hd.hostname ? hd.hostname : "?", hd.cpu_model ? hd.cpu_model : "?",
                     hd.microarch ? hd.microarch : "?", hd.cores);
    }
    sb_sweep_header_free(&hd);
    if (!found) {
        sb_db_close(c->db);
        return sb_errf(e, SB_EUSAGE, "%s: no sweep %lld", o->db_path, (long long)c->sweep);
    }
    if (mkdir(o->out_dir, 0755) != 0 && errno != EEXIST) {
        sb_db_close(c->db);
        return sb_errf(e, SB_EUSAGE, "%s: cannot create directory: %s", o->out_dir,
                       strerror(errno));
    }
    return SB_OK;
}
