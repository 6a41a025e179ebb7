/* Placeholder until the SQuAD data path lands (replaced by cmd_squad.c). */
#include "sb_cli.h"
#include "sb_cmds.h"
static int todo(const char *c) { return sb_cli_usage_error(c, "not built yet"); }
int sb_cmd_tokenize(int argc, char **argv) { (void)argc; (void)argv; return todo("tokenize"); }
int sb_cmd_features(int argc, char **argv) { (void)argc; (void)argv; return todo("features"); }
int sb_cmd_evaluate(int argc, char **argv) { (void)argc; (void)argv; return todo("evaluate"); }
int sb_cmd_squad_synth(int argc, char **argv) { (void)argc; (void)argv; return todo("squad-synth"); }
