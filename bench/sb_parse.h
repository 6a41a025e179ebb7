/* sb_parse: values as a person writes them on a command line or in a plan
 * file: whole numbers and decimals in a range, comma-separated lists, GEMM
 * shapes. Each refuses what it cannot take with SB_EUSAGE naming `what`. */
#ifndef SB_PARSE_H
#define SB_PARSE_H
#include "sb_err.h"

/* Parses a whole decimal integer in [min, max]; SB_EUSAGE naming `what` otherwise. */
int sb_parse_long(const char *s, long min, long max, const char *what, long *out, sb_err *e);
int sb_parse_double(const char *s, double min, double max, const char *what, double *out,
                    sb_err *e);
/* Comma-separated integers ("1,2,4"), each in [min, max]; at most cap values.
 * An empty item ("1,,2", "1,") and a value listed twice are SB_EUSAGE. */
int sb_parse_int_list(const char *s, long min, long max, const char *what, int *out, int cap,
                      int *count, sb_err *e);
/* Any comma-separated list: SB_EUSAGE for an empty item or the same item
 * (blanks trimmed) listed twice. */
int sb_check_list(const char *s, const char *what, sb_err *e);
/* "MxNxK" -> m, n, k each in [1, max]. */
int sb_parse_shape(const char *s, long max, int *m, int *n, int *k, sb_err *e);

#endif
