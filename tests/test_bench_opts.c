/* sb_opts: the option table a command's parsing is made of. A value the
 * caller reads itself (SB_OPT_CUSTOM, peak's --paths) is read as it comes,
 * so that it is refused before a later --help, and is given once like any
 * other option; one that may come again (SB_OPT_EACH, tune's --kernel)
 * sees each value; a flag's one-letter key is its short form (-v). A flag
 * the caller reads itself (SB_OPT_CUSTOM_FLAG, sweep's flag plan keys) gets
 * value NULL each time it comes; a table may be as long as SB_OPTS_MAX. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "sb_opts.h"
#include "sb_parse.h"
#include "testutil.h"

typedef struct t_opts {
    int n, flag, ncustom, verbose, neach, ncflag;
    const char *names, *each[4];
} t_opts;

static int to_long(const char *key, const char *v, const char *what, long *out, sb_err *e)
{
    (void)key;
    return sb_parse_long(v, 1, 9, what, out, e);
}
static int to_custom(const char *key, const char *v, void *opts, sb_err *e)
{
    t_opts *o = opts;
    if (!strcmp(key, "cflag")) {
        CHECK(v == NULL);
        if (++o->ncflag == 3) return sb_errf(e, SB_EUSAGE, "--cflag given thrice");
        return SB_OK;
    }
    if (!strcmp(key, "each")) {
        if (o->neach == 4) return sb_errf(e, SB_EUSAGE, "--each: too many");
        o->each[o->neach++] = v;
        return SB_OK;
    }
    CHECK(!strcmp(key, "names"));
    o->ncustom++;
    o->names = v;
    if (strcmp(v, "a") && strcmp(v, "b")) return sb_errf(e, SB_EUSAGE, "--names: unknown '%s'", v);
    return SB_OK;
}
static const sb_opt_ranges g_ranges = {to_long, NULL, NULL, to_custom};
#define O(f) offsetof(t_opts, f)
static const sb_opt g_rows[] = {{"n", SB_OPT_INT, O(n), SB_OPT_NOSET, "n"},
                                {"flag", SB_OPT_FLAG, O(flag), SB_OPT_NOSET, NULL},
                                {"names", SB_OPT_CUSTOM, O(names), SB_OPT_NOSET, "names"},
                                {"each", SB_OPT_EACH, O(each), SB_OPT_NOSET, "each"},
                                {"verbose", SB_OPT_FLAG, O(verbose), SB_OPT_NOSET, "v"},
                                {"cflag", SB_OPT_CUSTOM_FLAG, 0, O(flag), "cflag"},
                                {NULL}};

static int parse(int argc, char **argv, t_opts *o, int *help, sb_err *e)
{
    memset(o, 0, sizeof *o);
    *help = 0;
    return sb_opts_parse(argc, argv, g_rows, o, &g_ranges, help, e);
}

int main(void)
{
    t_opts o;
    int help;
    sb_err e = {0};
    char *ok[] = {"x", "--n", "3", "--names", "b", "--flag", NULL};
    CHECK(parse(6, ok, &o, &help, &e) == SB_OK);
    CHECK(o.n == 3 && o.flag == 1 && o.ncustom == 1 && !strcmp(o.names, "b") && !help);

    char *bad_then_help[] = {"x", "--names", "zz", "--help", NULL};
    e = (sb_err){0};
    CHECK(parse(4, bad_then_help, &o, &help, &e) == SB_EUSAGE);
    CHECK(!help && strstr(e.msg, "--names: unknown 'zz'"));

    char *twice[] = {"x", "--names", "a", "--names", "b", NULL};
    e = (sb_err){0};
    CHECK(parse(5, twice, &o, &help, &e) == SB_EUSAGE);
    CHECK(strstr(e.msg, "--names given twice") && o.ncustom == 1);

    char *help_first[] = {"x", "--help", "--names", "zz", NULL};
    e = (sb_err){0};
    CHECK(parse(4, help_first, &o, &help, &e) == SB_OK && help == 1 && o.ncustom == 0);

    char *each[] = {"x", "--each", "p", "-v", "--each", "q", NULL};
    e = (sb_err){0};
    CHECK(parse(6, each, &o, &help, &e) == SB_OK);
    CHECK(o.neach == 2 && !strcmp(o.each[0], "p") && !strcmp(o.each[1], "q") && o.verbose == 1);

    char *no_short[] = {"x", "-f", NULL}; /* --flag has no short form */
    e = (sb_err){0};
    CHECK(parse(2, no_short, &o, &help, &e) == SB_EUSAGE && strstr(e.msg, "'-f'"));

    /* sb_opts_parse_more: a command's own words for an unknown option, and
     * operands (db's files) after the options, wherever they were given */
    const sb_opts_more said = {.unknown = "unknown option (see --help)"};
    char *unknown[] = {"x", "--bogus", NULL};
    e = (sb_err){0};
    memset(&o, 0, sizeof o);
    CHECK(sb_opts_parse_more(2, unknown, g_rows, &o, &g_ranges, &said, &help, &e) == SB_EUSAGE);
    CHECK(!strcmp(e.msg, "unknown option (see --help)"));
    char *stray[] = {"x", "--n", "2", "file", NULL};
    e = (sb_err){0};
    CHECK(sb_opts_parse_more(4, stray, g_rows, &o, &g_ranges, &said, &help, &e) == SB_EUSAGE);
    CHECK(strstr(e.msg, "unexpected argument 'file'"));
    int first = 0;
    const sb_opts_more files = {.operands = &first};
    char *operands[] = {"x", "a.json", "--n", "2", "b.json", "--flag", NULL};
    e = (sb_err){0};
    memset(&o, 0, sizeof o);
    CHECK(sb_opts_parse_more(6, operands, g_rows, &o, &g_ranges, &files, &help, &e) == SB_OK);
    CHECK(o.n == 2 && o.flag == 1 && first == 4);
    CHECK(!strcmp(operands[first], "a.json") && !strcmp(operands[first + 1], "b.json"));
    /* a custom flag: no value, the caller's callback each time, set_off set */
    char *cflag[] = {"x", "--cflag", "--n", "2", "--cflag", NULL};
    e = (sb_err){0};
    CHECK(parse(5, cflag, &o, &help, &e) == SB_OK && o.ncflag == 2 && o.flag == 1 && o.n == 2);
    char *cflag3[] = {"x", "--cflag", "--cflag", "--cflag", NULL};
    e = (sb_err){0};
    CHECK(parse(4, cflag3, &o, &help, &e) == SB_EUSAGE && strstr(e.msg, "--cflag given thrice"));
    char *cflag_value[] = {"x", "--cflag=1", NULL};
    e = (sb_err){0};
    CHECK(parse(2, cflag_value, &o, &help, &e) == SB_EUSAGE &&
          strstr(e.msg, "unknown or incomplete option '--cflag=1'") && o.ncflag == 0);

    /* a long table (sweep's plan keys): its last row is still an option */
    static char names[SB_OPTS_MAX][8];
    sb_opt many[SB_OPTS_MAX + 1];
    for (int i = 0; i < SB_OPTS_MAX; i++) {
        snprintf(names[i], sizeof names[i], "o%d", i);
        many[i] = (sb_opt){names[i], SB_OPT_FLAG, O(verbose), SB_OPT_NOSET, NULL};
    }
    many[SB_OPTS_MAX - 1] = (sb_opt){names[SB_OPTS_MAX - 1], SB_OPT_INT, O(n), SB_OPT_NOSET, "n"};
    many[SB_OPTS_MAX] = (sb_opt){NULL};
    char last[16];
    snprintf(last, sizeof last, "--o%d", SB_OPTS_MAX - 1);
    char *long_table[] = {"x", "--o0", last, "7", NULL};
    memset(&o, 0, sizeof o);
    e = (sb_err){0};
    CHECK(sb_opts_parse(4, long_table, many, &o, &g_ranges, &help, &e) == SB_OK);
    CHECK(o.verbose == 1 && o.n == 7);
    /* a number row without the caller's reader: an error naming it, not a jump through NULL */
    char *no_reader[] = {"x", last, "7", NULL};
    e = (sb_err){0};
    CHECK(sb_opts_parse(3, no_reader, many, &o, NULL, &help, &e) == SB_EFAIL);
    CHECK(strstr(e.msg, last) != NULL);
    return test_report("opts");
}
