# Results moving, reports and gating: statistics and verdicts (in memory),
# export/import/report/hostile imports through the database, and the CLI end
# to end (db, report, gate, JUnit, hostile files).
sb_add_unit(test_results_gate test_results_gate.c)
sb_add_unit(test_results_db test_results_db.c)
sb_add_unit(test_results_paired test_results_paired.c)
# The metric table (bench/sb_metric.def): every row a unit, a direction and a
# role, families resolve, unknown metrics follow their unit, the result
# document's "better"; and every metric each worker writes is in the table,
# its "better" the table's (tiny runs of every worker).
sb_add_unit(test_results_metric test_results_metric.c)
sb_add_script(results_metric_cli results_metric_cli.sh)
set_tests_properties(results_metric_cli PROPERTIES TIMEOUT 300)
set_property(TEST results_metric_cli APPEND PROPERTY ENVIRONMENT
  "SB_METRIC_CHECK=$<TARGET_FILE:test_results_metric>")
sb_add_script(results_cli results_cli.sh)
set_tests_properties(results_cli PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
sb_add_script(results_ci_gate results_ci_gate.sh)
set_tests_properties(results_ci_gate PROPERTIES TIMEOUT 120)
# Results that cannot hurt: the gnuplot script writer against an independent
# checker (and the fuzz harness replayed), and plot/report on a database full
# of hostile text, with the scripts they send to gnuplot checked too.
sb_add_unit(test_results_gnuplot test_results_gnuplot.c)
sb_add_script(results_gnuplot_inert results_gnuplot_inert.sh)
set_tests_properties(results_gnuplot_inert PROPERTIES TIMEOUT 180)
set_property(TEST results_gnuplot_inert APPEND PROPERTY ENVIRONMENT
  "SB_GP_CHECK=$<TARGET_FILE:test_results_gnuplot>")
sb_add_script(results_outputs results_outputs.sh)
# The store: hostile exports (tests/fixtures/hostile), other programs' and
# newer databases left byte-identical, read-only directories and older
# schemas, missing inputs that create nothing, resumes that lose nothing and
# run one at a time, each point's worker output kept.
sb_add_script(results_store results_store.sh)
set_tests_properties(results_store PROPERTIES TIMEOUT 300)
# The environment that changes results, recorded with every result and
# compared by gate and report.
sb_add_script(results_env results_env.sh)
set_tests_properties(results_env PROPERTIES TIMEOUT 180)
sb_add_script(results_machines results_machines.sh)
# One answer per question: the records imported in several orders give the
# same reports and gate (the newest by the sweep's start time), and pinned
# sweeps.
sb_add_script(results_import_order results_import_order.sh)
set_tests_properties(results_import_order PROPERTIES TIMEOUT 300)
# Examples that run as written: every report/gate/plot/db command the
# README, docs/reference.md and results/machines/README.md show, on the
# records on file.
sb_add_script(docs_commands docs_commands.sh)
set_tests_properties(docs_commands PROPERTIES TIMEOUT 900)
# The software stack every result records (bench/sb_stack): the field table,
# its parsing, and the differences the report's headline names
# (study/sb_stackdiff); at CLI level the result, info, the CSV columns, an
# older record's "not recorded" and the headline's clause.
sb_add_unit(test_results_stack test_results_stack.c)
sb_add_script(results_stack results_stack.sh)
set_tests_properties(results_stack PROPERTIES TIMEOUT 180)
# results/machines/README.md's table is what the records say
# (scripts/machines-readme --check).
sb_add_script(results_machines_readme results_machines_readme.sh)
# the report over the shipped records and a synthetic pair: the headline (SQuAD
# epoch at each side's best kernel, mismatches named), best kernel per
# precision, What AMX gives, no gate verdict without --gate, the selectors.
sb_add_script(results_report_headline results_report_headline.sh)
# What AMX gives, like for like: the same-machine gain first, mismatches
# named, vendor AMX, what is not AMX, the study's 8x
sb_add_script(results_report_amx results_report_amx.sh)
# a readable report: contents with anchors, --only-changed, batch in chart
# labels, the environment a workload reads, sides in every header, wording
# that agrees with its p, vendor implementations
sb_add_script(results_report_readable results_report_readable.sh)
# a CPU named from what it does: info under SB_CPU_UARCH; a masked AMX Xeon
# stored as Rocket Lake shown as Granite Rapids-class (AMX) everywhere; no
# clock above 6.5 GHz imported, shown or derived
sb_add_script(results_uarch_cli results_uarch_cli.sh)
# Own against the faster vendor: the sweep's closing table and the report's
# view pick the faster of oneDNN and MKL per point and name it, over a
# fixture with both (tests/fixtures/results/vendors.py), its vendors swapped,
# and oneDNN alone.
sb_add_script(results_vendor_cmp results_vendor_cmp.sh)
# scripts/bench-kernels and scripts/bench-amx against the faster vendor, over
# a stand-in sprbench with fixed rates (nothing is timed).
sb_add_script(scripts_bench_vendors scripts_bench_vendors.sh)
sb_add_script(results_gate_noise results_gate_noise.sh)
# The paired A/B gate at CLI level with fake worker binaries (scripts that
# sleep a set time), and the verdicts about a point's status.
sb_add_script(results_gate_paired results_gate_paired.sh)
# A gate that cannot stay green on nothing (#41): nothing judged is exit 1
# (--allow-nothing-judged: 0), --paired without pairs exit 2, a paired
# interval behind its verdict, pooled columns that give the ratio, the
# one-round sub-millisecond warning; on crafted imports, no timing.
sb_add_script(results_gate_judged results_gate_judged.sh)
# What gate, import and merge take as numbers (#44): pair numbers checked on
# read, 60,000 pairs judged, samples of 0/-1/inf/5e-324 refused, a metric
# with no ratio, pairing on a workload that never pairs, an exact references
# line over a wildcard one; on crafted databases, no timing.
sb_add_script(results_gate_numerics results_gate_numerics.sh)
set_tests_properties(results_gate_numerics PROPERTIES TIMEOUT 900)
set_tests_properties(results_gate_paired PROPERTIES TIMEOUT 180)
sb_add_script(results_inert results_inert.sh)
set_tests_properties(results_inert PROPERTIES TIMEOUT 180)
# No workflow command through a Unicode blank (#44): a worker's log, an
# imported export's names, labels and reasons, and a resumed sweep's summary
# table, each blank the runner trims or skips before "::" and inside "##[".
sb_add_script(results_inert_unicode results_inert_unicode.sh)
set_tests_properties(results_inert_unicode PROPERTIES TIMEOUT 180)
