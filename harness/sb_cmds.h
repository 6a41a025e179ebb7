/* sb_cmds: every `sprbench` subcommand. Each takes the arguments after its
 * name (argv[0] is the subcommand) and returns the process exit status:
 * 0 ok, 1 the work failed / a gate found a regression, 2 bad usage or input. */
#ifndef SB_CMDS_H
#define SB_CMDS_H

#define SB_CMD(fn, name, summary) int sb_cmd_##fn(int argc, char **argv);
#include "sb_cmds.def"
#undef SB_CMD

#endif
