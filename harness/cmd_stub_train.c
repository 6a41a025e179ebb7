/* Placeholder until the trainer lands (replaced by cmd_train.c). */
#include "sb_cli.h"
#include "sb_cmds.h"
static int todo(const char *c) { return sb_cli_usage_error(c, "not built yet"); }
int sb_cmd_train(int argc, char **argv) { (void)argc; (void)argv; return todo("train"); }
int sb_cmd_predict(int argc, char **argv) { (void)argc; (void)argv; return todo("predict"); }
