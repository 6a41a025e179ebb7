# The SQuAD data path: tokenizer, reader, features, post-processing and
# scores, synthetic set, safetensors / HF model directory, and the commands.
# Tests that need ../shared/data exit 77 ("skipped: reference data absent").
sb_add_unit(test_squad_tokenizer ${CMAKE_CURRENT_SOURCE_DIR}/test_squad_tokenizer.c)
sb_add_unit(test_squad_features ${CMAKE_CURRENT_SOURCE_DIR}/test_squad_features.c)
sb_add_unit(test_squad_eval ${CMAKE_CURRENT_SOURCE_DIR}/test_squad_eval.c)
sb_add_unit(test_squad_synth ${CMAKE_CURRENT_SOURCE_DIR}/test_squad_synth.c)
sb_add_unit(test_squad_safetensors ${CMAKE_CURRENT_SOURCE_DIR}/test_squad_safetensors.c)
sb_add_unit(test_squad_conformance ${CMAKE_CURRENT_SOURCE_DIR}/test_squad_conformance.c)
sb_add_script(squad_cli squad_cli.sh)
sb_add_script(squad_realdata squad_realdata.sh)
set_tests_properties(test_squad_conformance squad_realdata PROPERTIES SKIP_RETURN_CODE 77)
