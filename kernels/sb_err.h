/* sb_err: the one way library code reports failure. A function fills an
 * sb_err and returns its code; only the CLI prints it (one line on stderr)
 * and turns the code into the exit status. */
#ifndef SB_ERR_H
#define SB_ERR_H
#include <stddef.h>

enum {
    SB_OK = 0,
    SB_EFAIL = 1,  /* the work failed (or a gate found a regression) */
    SB_EUSAGE = 2, /* bad usage or bad input */
    SB_ESKIP = 3,  /* this machine cannot run what was named (a kernel or an
                       instruction path): skipped, with the reason */
};

typedef struct sb_err {
    int code;
    char msg[1024];
} sb_err;

/* Sets e (if non-NULL) and returns code, so callers can `return sb_errf(...)`. */
int sb_errf(sb_err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void sb_err_clear(sb_err *e);

#endif
