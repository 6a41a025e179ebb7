/* sb_gnuplot: runs gnuplot (argv, script on stdin, no shell) to draw one
 * image. Output goes to a temporary file renamed into place only when gnuplot
 * succeeded and wrote a non-trivial image: never an empty or partial PNG/SVG. */
#ifndef SB_GNUPLOT_H
#define SB_GNUPLOT_H
#include <stdio.h>
#include "sb_err.h"

/* 1 when a gnuplot binary is on PATH (or $SB_GNUPLOT names one). */
int sb_gnuplot_available(void);

/* `script` draws with `set output OUT` already done by this function: it
 * must only set the rest and plot. term: "png" (pngcairo) or "svg".
 * SB_EUSAGE when gnuplot is missing, SB_EFAIL when it fails. */
int sb_gnuplot_render(const char *script, const char *term, int width, int height,
                      const char *out_path, sb_err *e);

/* Quotes a string for a gnuplot double-quoted literal into buf. */
void sb_gnuplot_quote(const char *s, char *buf, size_t cap);

#endif
