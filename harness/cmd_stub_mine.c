#include "sb_cli.h"
#include "sb_cmds.h"
static int todo(const char *c) { return sb_cli_usage_error(c, "not built yet"); }
int sb_cmd_sweep(int argc, char **argv) { (void)argc; (void)argv; return todo("sweep"); }
int sb_cmd_plot(int argc, char **argv) { (void)argc; (void)argv; return todo("plot"); }
