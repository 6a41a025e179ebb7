#include "sb_opts.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int apply(const sb_opt *row, const char *v, char *o, const sb_opt_ranges *r, sb_err *e)
{
    char what[80];
    snprintf(what, sizeof what, "--%s", row->name);
    long l = 0;
    int rc = SB_OK;
    /* a table's number or custom row needs the caller's function for it */
    static const sb_opt_ranges none = {0};
    if (!r) r = &none;
    int need = row->kind == SB_OPT_LONG || row->kind == SB_OPT_INT ? r->to_long != NULL
               : row->kind == SB_OPT_DOUBLE                        ? r->to_double != NULL
               : row->kind == SB_OPT_INTS                          ? r->to_ints != NULL
               : row->kind == SB_OPT_STR || row->kind == SB_OPT_FLAG ? 1
                                                                   : r->to_custom != NULL;
    if (!need) return sb_errf(e, SB_EFAIL, "%s: no reader for this option (table error)", what);
    switch (row->kind) {
    case SB_OPT_STR: *(const char **)(o + row->off) = v; break;
    case SB_OPT_FLAG: *(int *)(o + row->off) = 1; break;
    case SB_OPT_LONG: rc = r->to_long(row->key, v, what, (long *)(o + row->off), e); break;
    case SB_OPT_INT:
        rc = r->to_long(row->key, v, what, &l, e);
        *(int *)(o + row->off) = (int)l;
        break;
    case SB_OPT_DOUBLE: rc = r->to_double(row->key, v, what, (double *)(o + row->off), e); break;
    case SB_OPT_INTS: rc = r->to_ints(row->key, v, what, (sb_opt_ints *)(o + row->off), e); break;
    case SB_OPT_CUSTOM:
    case SB_OPT_EACH: rc = r->to_custom(row->key, v, o, e); break;
    case SB_OPT_CUSTOM_FLAG: rc = r->to_custom(row->key, NULL, o, e); break;
    }
    if (row->set_off != SB_OPT_NOSET) *(int *)(o + row->set_off) = 1;
    return rc;
}

int sb_opt_once(sb_opt_seen *s, const struct option *opts, int c, const char *const *repeatable,
                sb_err *e)
{
    const struct option *o = opts;
    while (o->name && (o->flag || o->val != c)) o++;
    if (!o->name || o->has_arg == no_argument) return SB_OK;
    for (int i = 0; repeatable && repeatable[i]; i++)
        if (!strcmp(repeatable[i], o->name)) return SB_OK;
    for (int i = 0; i < s->n; i++)
        if (s->val[i] == c) return sb_errf(e, SB_EUSAGE, "--%s given twice", o->name);
    if (s->n < SB_OPT_SEEN_MAX) s->val[s->n++] = c;
    return SB_OK;
}

int sb_opts_parse(int argc, char **argv, const sb_opt *rows, void *o, const sb_opt_ranges *r,
                  int *help, sb_err *e)
{
    return sb_opts_parse_more(argc, argv, rows, o, r, NULL, help, e);
}

int sb_opts_parse_more(int argc, char **argv, const sb_opt *rows, void *o, const sb_opt_ranges *r,
                       const sb_opts_more *more, int *help, sb_err *e)
{
    struct option lo[SB_OPTS_MAX + 2];
    const char *each[SB_OPTS_MAX + 1]; /* the options that may be given again */
    char shorts[SB_OPTS_MAX + 2] = "h";
    int n = 0, ne = 0, ns = 1;
    for (; rows[n].name && n < SB_OPTS_MAX; n++) {
        int bare = rows[n].kind == SB_OPT_FLAG || rows[n].kind == SB_OPT_CUSTOM_FLAG;
        lo[n] = (struct option){rows[n].name, bare ? no_argument : required_argument, NULL,
                                1000 + n};
        if (rows[n].kind == SB_OPT_EACH) each[ne++] = rows[n].name;
        if (rows[n].kind == SB_OPT_FLAG && rows[n].key && strlen(rows[n].key) == 1)
            shorts[ns++] = rows[n].key[0];
    }
    each[ne] = NULL;
    shorts[ns] = '\0';
    lo[n] = (struct option){"help", no_argument, NULL, 'h'};
    lo[n + 1] = (struct option){0, 0, 0, 0};
    int c;
    sb_opt_seen seen = {0};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        if (c == 'h') {
            *help = 1;
            return SB_OK;
        }
        for (int i = 0; i < n && c > 0 && c < 128; i++) /* a short flag: its row */
            if (rows[i].kind == SB_OPT_FLAG && rows[i].key && rows[i].key[0] == c &&
                !rows[i].key[1])
                c = 1000 + i;
        if ((c < 1000 || c >= 1000 + n) && more && more->unknown)
            return sb_errf(e, SB_EUSAGE, "%s", more->unknown);
        if (c < 1000 || c >= 1000 + n)
            return sb_errf(e, SB_EUSAGE, "unknown or incomplete option '%s' (see --help)",
                           argv[optind - 1]);
        int rc = sb_opt_once(&seen, lo, c, each, e);
        if (!rc) rc = apply(&rows[c - 1000], optarg, o, r, e);
        if (rc) return rc;
    }
    if (more && more->operands) {
        *more->operands = optind;
        return SB_OK;
    }
    if (optind < argc) return sb_errf(e, SB_EUSAGE, "unexpected argument '%s'", argv[optind]);
    return SB_OK;
}
