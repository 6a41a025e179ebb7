# Results moving, reports and gating: statistics and verdicts (in memory),
# export/import/report/hostile imports through the database, and the CLI end
# to end (db, report, gate, JUnit, hostile files).
sb_add_unit(test_results_gate test_results_gate.c)
sb_add_unit(test_results_db test_results_db.c)
sb_add_script(results_cli results_cli.sh)
set_tests_properties(results_cli PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
sb_add_script(results_ci_gate results_ci_gate.sh)
set_tests_properties(results_ci_gate PROPERTIES TIMEOUT 120)
