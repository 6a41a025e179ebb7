/* sb_progress: monotonic time, and a progress bar for long work. */
#ifndef SB_PROGRESS_H
#define SB_PROGRESS_H

/* Progress bar on stderr, drawn only when stderr is a terminal (plain lines are
 * the caller's business otherwise). */
typedef struct sb_progress {
    int enabled;
    long total;
    double t0;
    char label[64];
} sb_progress;
void sb_progress_start(sb_progress *p, const char *label, long total);
void sb_progress_update(sb_progress *p, long done, const char *extra);
void sb_progress_end(sb_progress *p);

double sb_now(void); /* monotonic seconds */

#endif
