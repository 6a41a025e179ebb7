/* sb_report_profile: "Where the time goes", two machines' stored profiles
 * side by side. Written through a sink. */
#ifndef SB_REPORT_PROFILE_H
#define SB_REPORT_PROFILE_H
#include "sb_report_headline.h"

/* "Where the time goes": the per-layer-kind times `train --profile` and
 * `infer --profile` store (prof_*_s metrics) of each side's fastest profiled
 * point, side by side. */
void sb_report_profiles(const sb_headline_in *in, const sb_rsink *s);

#endif
