/* sb_opts: a worker command's options as one table (getopt_long under it),
 * so that parsing an option is one row, not a case and a table entry.
 * Every row writes into one options struct, at an offset:
 *
 *   static const sb_opt rows[] = {
 *       {"batch", SB_OPT_INT, offsetof(my_opts, batch), offsetof(my_opts, set_batch), "batch"},
 *       {"eval", SB_OPT_FLAG, offsetof(my_opts, eval), SB_OPT_NOSET, NULL},
 *       {NULL}};
 *   sb_opts_parse(argc, argv, rows, &o, &checks, &help, &e);
 *
 * Numbers are checked by the caller's range functions, keyed by the row's
 * key (a worker's ranges are its workload's: bench/sb_workload). --help
 * is always known. An option that takes a value, given twice, is refused
 * (sb_opt_once). Errors: SB_EUSAGE naming the option.
 *
 * sb_opt_once is that rule for every command, the ones that call
 * getopt_long themselves too: the last of two values silently winning hid
 * typos ("--threads 4 ... --threads 1"). A flag given twice means what it
 * means once; an option a command documents as repeatable (gate's --metric,
 * report's --db, tune's --kernel) collects its values instead. */
#ifndef SB_OPTS_H
#define SB_OPTS_H
#include <getopt.h>
#include <stddef.h>
#include "sb_err.h"

typedef enum {
    SB_OPT_STR,    /* const char *: the argument as given */
    SB_OPT_FLAG,   /* int: 1, no argument */
    SB_OPT_LONG,   /* long, range-checked by key */
    SB_OPT_INT,    /* int, range-checked by key (as a long) */
    SB_OPT_DOUBLE, /* double, range-checked by key */
    SB_OPT_INTS,   /* sb_opt_ints: a list "1,2,4", each range-checked by key */
    SB_OPT_CUSTOM, /* the caller's to_custom reads the value into the options, by key */
    SB_OPT_EACH,   /* SB_OPT_CUSTOM for an option that may be given again (a list) */
    /* SB_OPT_CUSTOM without an argument: to_custom gets value NULL, each
     * time it is given (the caller says whether twice is an error) */
    SB_OPT_CUSTOM_FLAG,
} sb_opt_kind;

#define SB_OPT_INTS_MAX 64
typedef struct sb_opt_ints {
    int v[SB_OPT_INTS_MAX];
    int n;
} sb_opt_ints;

#define SB_OPT_NOSET ((size_t)-1)

typedef struct sb_opt {
    const char *name; /* the long option, without "--"; NULL ends the table */
    sb_opt_kind kind;
    size_t off;      /* offset of the field */
    size_t set_off;  /* offset of an int set to 1 when the option is given, or SB_OPT_NOSET */
    const char *key; /* the range's key (numbers); a flag's: its one-letter short
                        form ("v": -v), or NULL */
} sb_opt;

/* The caller's ranges: parse value for option `what` ("--batch") within
 * the range of key into *out, or SB_EUSAGE. */
typedef struct sb_opt_ranges {
    int (*to_long)(const char *key, const char *value, const char *what, long *out, sb_err *e);
    int (*to_double)(const char *key, const char *value, const char *what, double *out, sb_err *e);
    int (*to_ints)(const char *key, const char *value, const char *what, sb_opt_ints *out,
                   sb_err *e);
    /* SB_OPT_CUSTOM: reads value into the options struct o (a list of
     * names, say), as the option comes; getopt_long's optind is then the
     * index of the word after the option and its value */
    int (*to_custom)(const char *key, const char *value, void *o, sb_err *e);
} sb_opt_ranges;

#define SB_OPT_SEEN_MAX 128
typedef struct sb_opt_seen {
    int val[SB_OPT_SEEN_MAX]; /* getopt_long's values of the options met */
    int n;
} sb_opt_seen;

/* For each value c getopt_long returns with the table opts (s zeroed before
 * the first): SB_EUSAGE "--NAME given twice" when c is an option taking a
 * value that came before and is not named in repeatable (NULL-ended; NULL:
 * none); SB_OK for its first time, a flag, or a value no option has. */
int sb_opt_once(sb_opt_seen *s, const struct option *opts, int c, const char *const *repeatable,
                sb_err *e);

/* Parses argv[1..) into o by the table; *help = 1 (and nothing else
 * checked) on --help. An unknown option or a stray argument is SB_EUSAGE. */
int sb_opts_parse(int argc, char **argv, const sb_opt *rows, void *o, const sb_opt_ranges *r,
                  int *help, sb_err *e);

/* What a command may ask of the parse beyond the table:
 *  - unknown: the message for an unknown or incomplete option, when the
 *    command has always worded it so (NULL: "unknown or incomplete option
 *    'ARG' (see --help)");
 *  - operands: arguments that are not options are the command's (db's
 *    files): *operands is the index of the first, which getopt_long has
 *    moved behind the options (NULL: each is "unexpected argument"). */
typedef struct sb_opts_more {
    const char *unknown;
    int *operands;
} sb_opts_more;

/* sb_opts_parse with more (NULL: as sb_opts_parse). */
int sb_opts_parse_more(int argc, char **argv, const sb_opt *rows, void *o, const sb_opt_ranges *r,
                       const sb_opts_more *more, int *help, sb_err *e);
/* The most rows a table may have (a command whose options are data, as
 * sweep's plan keys, sizes its table by it). */
#define SB_OPTS_MAX 128

#endif
