/* Placeholder until the peak probes land (replaced by cmd_peak.c). */
#include "sb_cli.h"
#include "sb_cmds.h"
int sb_cmd_peak(int argc, char **argv) { (void)argc; (void)argv; return sb_cli_usage_error("peak", "not built yet"); }
