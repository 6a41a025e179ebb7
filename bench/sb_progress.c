#include "sb_progress.h"
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double sb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void sb_progress_start(sb_progress *p, const char *label, long total)
{
    memset(p, 0, sizeof *p);
    p->enabled = isatty(STDERR_FILENO);
    p->total = total;
    p->t0 = sb_now();
    snprintf(p->label, sizeof p->label, "%s", label);
}

void sb_progress_update(sb_progress *p, long done, const char *extra)
{
    if (!p->enabled) return;
    double frac = p->total > 0 ? (double)done / p->total : 0;
    if (frac > 1) frac = 1;
    int width = 30, fill = (int)(frac * width);
    double el = sb_now() - p->t0;
    double eta = done > 0 ? el * (p->total - done) / done : 0;
    char bar[64];
    for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
    bar[width] = '\0';
    fprintf(stderr, "\r\033[K%s [%s] %ld/%ld %3.0f%% ETA %02d:%02d %s", p->label, bar, done,
            p->total, frac * 100, (int)(eta / 60), (int)eta % 60, extra ? extra : "");
    fflush(stderr);
}

void sb_progress_end(sb_progress *p)
{
    if (p->enabled) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}
