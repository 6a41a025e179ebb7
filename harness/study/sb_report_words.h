/* sb_report_words: one wording for every figure and ratio of the report.
 * Numbers (4 significant digits, whole numbers in full), a median with its
 * p10-p90 spread or its sample count and the projected mark with its note
 * number, "not available (why)", a speed ratio in words ("1.40x faster",
 * "same (1.00x)"), and the gate's test on a pair in words ("significant,
 * p=0.003", "not significant", "noisy", "not tested"). Shared by the
 * report's files (study/sb_report*). */
#ifndef SB_REPORT_WORDS_H
#define SB_REPORT_WORDS_H
#include <stddef.h>
#include "sb_gate.h"
#include "sb_ptset.h"
#include "sb_report_out.h"
#include "sb_text.h"

/* What the gate's test said of one pair of points: SB_RP_SIG_SLOWER or
 * _FASTER (beyond the tolerance and significant, as a gate FAIL), _NOT
 * (tested, not significant or within tolerance), _UNTESTED (too few
 * samples), _NOISY (a side's samples form two groups: not judged). */
enum { SB_RP_SIG_UNTESTED = 0, SB_RP_SIG_NOT, SB_RP_SIG_SLOWER, SB_RP_SIG_FASTER, SB_RP_SIG_NOISY };

/* 4 significant digits, whole numbers up to 1e9 in full; returns buf. */
const char *sb_rp_num(double v, char *buf, size_t cap);
/* The number of a projection's provenance note (P1, P2, ...), said once. */
int sb_rp_proj_note(sb_rp_out *o, const char *src);
/* "123.4 [118.0, 125.1]" (or "[n samples]"), " (projected, Pn)" when so. */
void sb_rp_with_spread(sb_rp_out *o, const sb_pt *p, const sb_metric_val *m, char *buf, size_t cap);
/* "not available (not run | status: reason | no such metric)" */
void sb_rp_not_available(const sb_pt *p, char *buf, size_t cap);
/* A speed ratio (candidate over baseline) in words: "1.40x faster",
 * "1.25x slower", "same (1.00x)", "-" when none; ratio_str of num/den. */
void sb_rp_speed_words(double speed, char *buf, size_t cap);
void sb_rp_ratio_str(double num, double den, char *buf, size_t cap);
/* The gate's word (SB_RP_SIG_*) on a pair from its test run both ways
 * (sig_of: the report's own run), p its p-value; in words after a ratio;
 * ratio_sig: both at once. */
int sb_rp_sig_in(const sb_gate_result *fwd, const sb_gate_result *rev, const sb_pt *b,
                 const sb_pt *c, double *p);
int sb_rp_sig_of(const sb_rp_out *o, const sb_pt *b, const sb_pt *c, double *p);
void sb_rp_sig_words(const char *ratio, int s, double p, char *buf, size_t cap);
void sb_rp_ratio_sig(const sb_rp_out *o, const sb_pt *b, const sb_pt *c, double num, double den,
                     char *buf, size_t cap);
/* The same for a pair's metric values, in the metric's direction (a lower
 * figure is faster where lower is better). */
void sb_rp_metric_ratio_sig(const sb_rp_out *o, const sb_pt *b, const sb_pt *c,
                            const sb_metric_val *mb, const sb_metric_val *mc, char *buf, size_t cap);
/* A pair's rate cells: each side's sb_rp_rate_metric with its spread or
 * why it has none into vb and vc (700 bytes), the ratio with the gate's
 * word into r (96 bytes). */
void sb_rp_rate_cells(sb_rp_out *o, const sb_pt *b, const sb_pt *c, const sb_metric_val **mb,
                      const sb_metric_val **mc, char *vb, char *vc, char *r);

/* The headline's: appends to a "; "-separated list; a duration in words
 * ("26 min", "3 h 30 min", "41 s"; "-" when none); a speed ratio in words
 * without "same". */
void sb_rp_addf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *sb_rp_dur(double s, char *buf, size_t cap);
void sb_rp_speed_words_hl(double speed, char *buf, size_t cap);

/* a stored text cut to n bytes between characters, for "%.*s" */
#define SB_RP_CUT(s, n) sb_text_prefix((s), (n)), (s)

#endif
