# Inference (sprbench infer, sb_infer, sb_quant): quantisation and the fused
# int8 epilogue against exact products, the forward path on every int8 / bf16
# kernel (AMX through the tile model), and the CLI.
sb_add_unit(test_infer_quant ${CMAKE_CURRENT_SOURCE_DIR}/test_infer_quant.c)
sb_add_script(infer_cli infer_cli.sh)
