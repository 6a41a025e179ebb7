/* Placeholder until results moving, reports and gating land. */
#include "sb_cli.h"
#include "sb_cmds.h"
static int todo(const char *c) { return sb_cli_usage_error(c, "not built yet"); }
int sb_cmd_db(int argc, char **argv) { (void)argc; (void)argv; return todo("db"); }
int sb_cmd_report(int argc, char **argv) { (void)argc; (void)argv; return todo("report"); }
int sb_cmd_gate(int argc, char **argv) { (void)argc; (void)argv; return todo("gate"); }
