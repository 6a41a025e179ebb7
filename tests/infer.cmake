# Inference (sprbench infer, sb_infer, sb_quant): quantisation and the fused
# int8 epilogue against exact products, the forward path on every int8 / bf16
# kernel (AMX through the tile model), and the CLI.
sb_add_unit(test_infer_quant ${CMAKE_CURRENT_SOURCE_DIR}/test_infer_quant.c)
sb_add_unit(test_qattn ${CMAKE_CURRENT_SOURCE_DIR}/test_qattn.c)
# the inference attention (f32 and int8) in query-row blocks, edge block included
add_test(NAME test_qattn_rows12 COMMAND test_qattn)
set_tests_properties(test_qattn_rows12 PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT
  "SB_SOURCE_DIR=${CMAKE_SOURCE_DIR};SB_ATTN_ROWS=12")
sb_add_script(infer_cli infer_cli.sh)
# The quantiser's AVX2 and scalar paths, and the int8 path as an AVX2-only or
# pre-AVX2 CPU runs it (the tile model's amx-int8 runs everywhere).
foreach(force AVX512 AVX2)
  foreach(t test_infer_quant test_qattn)
    add_test(NAME ${t}_no_${force} COMMAND ${t})
    set_tests_properties(${t}_no_${force} PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT
      "SB_SOURCE_DIR=${CMAKE_SOURCE_DIR};SB_FORCE_NO_${force}=1")
  endforeach()
endforeach()
# sweep --workload infer end to end: the batch axis, its points, plots and the
# report's inference section, bad batches and quant values.
sb_add_script(infer_sweep_cli infer_sweep_cli.sh)
set_tests_properties(infer_sweep_cli PROPERTIES TIMEOUT 300)
