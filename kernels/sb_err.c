#include "sb_err.h"
#include <stdarg.h>
#include <stdio.h>

int sb_errf(sb_err *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        e->code = code;
    }
    return code;
}

void sb_err_clear(sb_err *e)
{
    if (e) {
        e->code = SB_OK;
        e->msg[0] = '\0';
    }
}
