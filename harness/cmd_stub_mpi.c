/* Placeholder until distributed training lands (replaced by cmd_allreduce.c / cmd_model.c). */
#include "sb_cli.h"
#include "sb_cmds.h"
static int todo(const char *c) { return sb_cli_usage_error(c, "not built yet"); }
int sb_cmd_allreduce(int argc, char **argv) { (void)argc; (void)argv; return todo("allreduce"); }
int sb_cmd_model(int argc, char **argv) { (void)argc; (void)argv; return todo("model"); }
