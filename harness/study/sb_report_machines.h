/* sb_report_machines: the report's "Machines" section (each side's stored description
 * side by side: CPU, topology, caches, ISA flags, AMX and whether the OS
 * grants it, kernel, governor, host name, fingerprint) and its
 * "Environment" section (the recorded variables that change results, in
 * which the two sides' runs differed, and the two sides' recorded software
 * stacks side by side, sb_stackdiff), and a machine's stored description
 * (the side names read it). */
#ifndef SB_REPORT_MACHINES_H
#define SB_REPORT_MACHINES_H
#include <jansson.h>
#include <stdint.h>
#include "sb_report_model.h"

/* A machine's stored description with its ISA flags and governor taken out
 * of their JSON texts; NULL when not recorded (a failed read kept in o). */
json_t *sb_rp_machine_info(sb_rp_out *o, const sb_rp_model *m, int64_t id);
void sb_rp_section_machines(sb_rp_out *o, const sb_rp_model *m, int64_t bid, int64_t cid,
                            const char *bname, const char *cname);
/* The environment section over the driver's pairs of every point (pr, n). */
void sb_rp_section_env(sb_rp_out *o, const sb_rp_model *m, const sb_rp_pair *pr, int n);

#endif
