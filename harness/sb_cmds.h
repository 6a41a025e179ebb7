/* sb_cmds: every `sprbench` subcommand. Each takes the arguments after its
 * name (argv[0] is the subcommand) and returns the process exit status:
 * 0 ok, 1 the work failed / a gate found a regression, 2 bad usage or input. */
#ifndef SB_CMDS_H
#define SB_CMDS_H

int sb_cmd_info(int argc, char **argv);
int sb_cmd_peak(int argc, char **argv);
int sb_cmd_gemm(int argc, char **argv);
int sb_cmd_sweep(int argc, char **argv);
int sb_cmd_plot(int argc, char **argv);
int sb_cmd_db(int argc, char **argv);
int sb_cmd_tokenize(int argc, char **argv);
int sb_cmd_features(int argc, char **argv);
int sb_cmd_evaluate(int argc, char **argv);
int sb_cmd_squad_synth(int argc, char **argv);
int sb_cmd_train(int argc, char **argv);
int sb_cmd_predict(int argc, char **argv);
int sb_cmd_infer(int argc, char **argv);
int sb_cmd_allreduce(int argc, char **argv);
int sb_cmd_model(int argc, char **argv);
int sb_cmd_report(int argc, char **argv);
int sb_cmd_gate(int argc, char **argv);

#endif
