# Kernels: every kernel against the scalar reference (and the AMX kernels on
# the tile model), the tile model itself, the peak probes, and the CLI
# (`sprbench peak`, kernel skip paths through `sprbench gemm`).
sb_add_unit(test_kern_gemm ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_gemm.c)
sb_add_unit(test_kern_amxmodel ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_amxmodel.c)
sb_add_unit(test_kern_peak ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_peak.c)
sb_add_script(kern_cli kern_cli.sh)
set_tests_properties(test_kern_gemm kern_cli PROPERTIES TIMEOUT 120)
