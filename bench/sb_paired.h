/* sb_paired: the arithmetic of a paired A/B measurement, shared by the sweep
 * (which stops adding pairs once they decide) and the gate (which judges the
 * stored pairs). A (the baseline) and B (the candidate) run alternately, in
 * ABBA quads or a random order of A A B B per quad, or at once on their own
 * cores (duet); every sample carries its side and its pair. A quad holds two
 * pairs: its first A run with its first B run, its second A with its second B,
 * so the drift of a minute falls on both sides of each pair (Abedi & Brecht,
 * ICPE 2017; Bulej et al., ICPE 2020).
 *
 * The decision is on the pairs' log cost ratios log(median B / median A):
 *   FAIL    the one-sided Wilcoxon signed-rank test says B is slower (p <
 *           alpha: the interval's lower end above 1) and the ratio's
 *           Hodges-Lehmann estimate is beyond 1 + tolerance (the
 *           minimum effect, as compare.py and asv ask);
 *   PASS    the test says the ratio is below 1 + tolerance (p < alpha on
 *           log(1 + tolerance) - log ratio: the interval's upper end below
 *           1 + tolerance): within the tolerance, known;
 *   UNSURE  neither: measure more pairs;
 *   NOISY   the pair ratios form two groups (sb_bimodal's rule):
 *           flagged, not judged.
 * The A/A spread, the median |log(second A / first A)| over the quads, is
 * the noise of this run, shown beside every verdict. */
#ifndef SB_PAIRED_H
#define SB_PAIRED_H

enum { SB_SIDE_BASELINE = 0, SB_SIDE_CANDIDATE = 1 };

/* One-sided p value of H1 "d tends to be above 0" (Wilcoxon signed-rank):
 * zero differences are dropped (Wilcoxon's convention); exact for up to 30
 * non-zero differences without tied magnitudes, else the normal
 * approximation with tie and continuity correction. 1 when none is left. */
double sb_wilcoxon_p_greater(const double *d, int n);

/* The distribution-free interval of the median of x[0..n) from the sign
 * test: [x_(k), x_(n-k+1)] with the largest k whose binomial tail
 * P(Bin(n, 1/2) <= k-1) <= alpha (each side one-sided at alpha). When n is
 * too small for any k, the whole range, and *conf_ok = 0. */
void sb_sign_interval(const double *x, int n, double alpha, double *lo, double *hi, int *conf_ok);

typedef enum {
    SB_PAIRED_UNSURE = 0,
    SB_PAIRED_PASS = 1,
    SB_PAIRED_FAIL = 2,
    SB_PAIRED_NOISY = 3,
} sb_paired_outcome;
const char *sb_paired_outcome_name(sb_paired_outcome o);

typedef struct sb_paired_stats {
    int npairs;        /* pairs with samples on both sides */
    int nquads;        /* quads with both of their A runs (the A/A estimate) */
    int nb, nc;        /* samples per side */
    double base, cand; /* median seconds per side, all pairs pooled */
    double ratio;      /* the pair ratios' (B / A) Hodges-Lehmann estimate: the
                          median of the Walsh averages of their logs */
    double lo, hi;     /* its Wilcoxon interval, 1 - 2 alpha (each end one-sided
                          alpha): the shifts the verdict's test does not reject;
                          0 / inf when too few pairs bound a side */
    double p_slower;   /* Wilcoxon: B slower than A at all */
    double p_within;   /* Wilcoxon: ratio below 1 + tolerance */
    double aa;         /* A/A spread: median |A2/A1 - 1| (0 when no quad) */
    double low, high;  /* NOISY: the two groups' middle ratios */
    sb_paired_outcome outcome;
} sb_paired_stats;

/* Judges n tagged samples: seconds[i] of side[i] (SB_SIDE_*) in pair[i]
 * (>= 0; pairs 2q and 2q+1 are quad q). Lower seconds are better. Fewer
 * than min_pairs pairs is UNSURE whatever they say. The samples are grouped
 * by one sort of (pair, side): time and memory follow n, never the pair
 * numbers (any int, in any order); a sample that is not positive finite
 * seconds, or of another side or a negative pair, is in no pair. -1 when
 * memory runs out, else 0. */
int sb_paired_judge(const double *seconds, const int *side, const int *pair, int n,
                    double tolerance, double alpha, int min_pairs, sb_paired_stats *st);

#endif
