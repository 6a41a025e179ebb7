#include "sb_shape.h"
#include <stdio.h>
#include <string.h>
#include "sb_parse.h"

static int is_trans(const char *t)
{
    return strlen(t) == 2 && strchr("NT", t[0]) && strchr("NT", t[1]);
}

#define STORED_FORM "MxNxK[:TT][+prepack]"

int sb_shape_parse(const char *s, int flags, sb_shape *out, sb_err *e)
{
    char buf[128];
    if (!s || strlen(s) >= sizeof buf) {
        if (s && (flags & SB_SHAPE_PREPACK))
            return sb_errf(e, SB_EUSAGE, "shape: '%.60s...' is not " STORED_FORM, s);
        return sb_errf(e, SB_EUSAGE, "shape: '%s' is not MxNxK", s ? s : "");
    }
    snprintf(buf, sizeof buf, "%s", s);
    sb_shape x = {0, 0, 0, 0, 0, 0, 0};
    char *dims = buf;
    char *plus = flags & SB_SHAPE_PREPACK ? strchr(buf, '+') : NULL;
    if (plus) {
        if (strcmp(plus, "+prepack"))
            return sb_errf(e, SB_EUSAGE, "shape: '%s' is not " STORED_FORM, s);
        *plus = '\0';
        x.prepack = 1;
    }
    char *at = flags & SB_SHAPE_THREADS ? strchr(buf, '@') : NULL;
    if (at) {
        *at = '\0';
        long t = 0;
        if (sb_parse_long(at + 1, 1, 4096, "thread count", &t, e)) return SB_EUSAGE;
        x.threads = (int)t;
    }
    char *colon = strchr(buf, ':');
    if ((flags & SB_SHAPE_FILE) && buf[0] && buf[1] && buf[2] == ' ')
        colon = buf + 2; /* "XY MxNxK", the tune file's */
    if (colon && (flags & (SB_SHAPE_PREFIX | SB_SHAPE_FILE)) && colon == buf + 2 &&
        !strchr(colon + 1, ':')) {
        /* XY:MxNxK, the tuner's first spelling, or the tune file's XY MxNxK */
        *colon = '\0';
        if (!is_trans(buf))
            return sb_errf(e, SB_EUSAGE, "'%s' is not a transpose (NN, NT, TN, TT)", buf);
        x.transa = buf[0];
        x.transb = buf[1];
        dims = colon + 1;
    } else if (colon) {
        *colon = '\0';
        if (!is_trans(colon + 1))
            return sb_errf(e, SB_EUSAGE, "'%.60s' is not a transpose (NN, NT, TN, TT)", colon + 1);
        x.transa = colon[1];
        x.transb = colon[2];
    }
    if (sb_parse_shape(dims, SB_SHAPE_MAX_DIM, &x.m, &x.n, &x.k, e)) return SB_EUSAGE;
    *out = x;
    return SB_OK;
}

void sb_shape_format(const sb_shape *s, char *buf, size_t cap)
{
    snprintf(buf, cap, "%dx%dx%d:%c%c%s", s->m, s->n, s->k, s->transa ? s->transa : 'N',
             s->transb ? s->transb : 'N', s->prepack ? "+prepack" : "");
}
