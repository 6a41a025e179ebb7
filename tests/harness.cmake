# The foundation: plan, database, and the CLI end to end (info, gemm, sweep, plot).
sb_add_unit(test_harness_plan test_harness_plan.c)
sb_add_unit(test_bench_shape test_bench_shape.c)
sb_add_unit(test_bench_opts test_bench_opts.c)
sb_add_unit(test_harness_db test_harness_db.c)
# the contract every workload row keeps (a command, ranges, plans that round-trip)
sb_add_unit(test_harness_workload test_harness_workload.c)
# the table made from bench/sb_workloads.def: rows by name, in order, their own metrics (#45)
sb_add_unit(test_bench_workload_rows test_bench_workload_rows.c)
# a paired sweep's pairing in the stored plan, binaries, result checks, bounded output (#44)
sb_add_unit(test_harness_pair_run test_harness_pair_run.c)
sb_add_script(harness_cli harness_cli.sh)
sb_add_script(harness_sweep_e2e harness_sweep_e2e.sh)
sb_add_script(harness_sweep_robust harness_sweep_robust.sh)
sb_add_script(harness_sweep_owned harness_sweep_owned.sh)
# the paired sweep's own side: resume in pairs, binaries, the point's deadline, bounded
# worker output, results checked against the plan (#44)
sb_add_script(harness_sweep_paired harness_sweep_paired.sh)
sb_add_script(harness_sweep_paired_nospace harness_sweep_paired_nospace.sh)
sb_add_script(harness_sweep_logs harness_sweep_logs.sh)
sb_add_script(harness_ignored_opts harness_ignored_opts.sh)
# the GEMM worker's --shape, the word a sweep names its points by
sb_add_script(harness_gemm_shape harness_gemm_shape.sh)
set_tests_properties(harness_sweep_owned PROPERTIES TIMEOUT 120)
# nothing a run starts outlives it: wrapper scripts, detached children, kill -9
sb_add_script(harness_sweep_procs harness_sweep_procs.sh)
set_tests_properties(harness_sweep_procs PROPERTIES TIMEOUT 240)
sb_add_script(harness_plot_scaling harness_plot_scaling.sh)
# a workload added through the workload table alone (STREAM)
sb_add_script(harness_stream harness_stream.sh)
sb_add_script(harness_layernorm harness_layernorm.sh)
# plots/ templates, plots at scale, history (a synthetic 56-thread database)
sb_add_script(harness_plot_templates harness_plot_templates.sh)
# it checks what `cmake --install` puts under a prefix
set_property(TEST harness_plot_templates APPEND PROPERTY ENVIRONMENT
  "SB_BINARY_DIR=${CMAKE_BINARY_DIR}")
sb_add_script(harness_checks harness_checks.sh)

# The layering rules of docs/ARCHITECTURE.md (who may include whom; SQL only in store/).
sb_add_script(harness_layout layout.sh)
sb_add_script(harness_layout_selftest layout_selftest.sh)

# sweep's command line on the option table: plan keys as --key (flags too),
# its own options, the batch script's sweep (#45)
sb_add_unit(test_harness_sweep_cli test_harness_sweep_cli.c)
sb_add_script(harness_sweep_cli harness_sweep_cli.sh)
