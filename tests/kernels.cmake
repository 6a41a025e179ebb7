# Kernels: every kernel against a reference (and the AMX kernels on the tile
# model, avx2-int8's AVX-VNNI path on its model), the tile model itself, the
# peak probes, and the CLI (`sprbench peak`, kernel skip paths through
# `sprbench gemm`).
sb_add_unit(test_kern_gemm ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_gemm.c)
sb_add_unit(test_kern_amx_model ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_amx_model.c)
sb_add_unit(test_kern_pack ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_pack.c)
# GELU against double-precision libm, every path, with the error bound sb_gelu.h states
sb_add_unit(test_kern_gelu ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_gelu.c)
# the AMX loop-nest knobs read from the environment
add_test(NAME test_kern_amx_model_knobs_env COMMAND test_kern_amx_model)
set_tests_properties(test_kern_amx_model_knobs_env PROPERTIES ENVIRONMENT
  "SB_AMX_RESIDENT=a;SB_AMX_PREFETCH=7")
sb_add_unit(test_kern_amxcfg ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_amxcfg.c)
# the real AMX build's objects read with objdump: the tile configuration is
# loaded before any tile instruction can run; the intended instructions are there
add_test(NAME amx_objdump COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/amx_objdump.sh
  $<TARGET_OBJECTS:sb_kernels>)
set_tests_properties(amx_objdump PROPERTIES SKIP_RETURN_CODE 77)
sb_add_unit(test_kern_peak ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_peak.c)
# the microarchitecture from real and masked CPU signatures
sb_add_unit(test_kern_uarch ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_uarch.c)
sb_add_script(kern_cli kern_cli.sh)
# the vendor libraries: which runs, skips with the reason when missing or broken
sb_add_script(kern_vendor_cli kern_vendor_cli.sh)
set_tests_properties(test_kern_gemm kern_cli PROPERTIES TIMEOUT 120)

# The same tests with instruction sets forced off, so that on an AVX-512
# machine the AVX2 kernels run exactly as on an AVX2-only CPU
# (SB_FORCE_NO_AVX512) and the scalar and SSE fallbacks as on one without
# AVX2 (SB_FORCE_NO_AVX2); on an AVX-VNNI machine avx2-int8 then also runs
# its vpmaddwd path (SB_FORCE_NO_AVX_VNNI). The tests check that the forced-
# off kernels report unavailable; a run this CPU cannot stand for (no AVX2,
# no AVX-VNNI at all) exits 77: skipped, with the reason on its output.
function(sb_kern_forced_run name target var)
  add_test(NAME ${name} COMMAND ${target} ${ARGN})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 ENVIRONMENT
    "SB_SOURCE_DIR=${CMAKE_SOURCE_DIR};SPRBENCH=$<TARGET_FILE:sprbench>;SB_FORCE_NO_${var}=1")
endfunction()
sb_kern_forced_run(test_kern_gemm_noavx512 test_kern_gemm AVX512)
sb_kern_forced_run(test_kern_gemm_noavx2 test_kern_gemm AVX2)
sb_kern_forced_run(test_kern_gemm_noavxvnni test_kern_gemm AVX_VNNI --only avx2-int8)
sb_kern_forced_run(test_kern_peak_noavx512 test_kern_peak AVX512)
sb_kern_forced_run(test_kern_peak_noavx2 test_kern_peak AVX2)
sb_kern_forced_run(test_kern_amxcfg_noavx512 test_kern_amxcfg AVX512)
# the driver's blocking (every own kernel under non-default blockings), the
# tune file and a tiny tuner run
sb_add_unit(test_kern_tune ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_tune.c)
set_tests_properties(test_kern_tune PROPERTIES TIMEOUT 120)
sb_add_script(kern_tune_cli kern_tune_cli.sh)
set_tests_properties(kern_tune_cli PROPERTIES TIMEOUT 300)
# what a recorded run of a kernel used, from the registry: AMX (#45)
sb_add_unit(test_kern_caps ${CMAKE_CURRENT_SOURCE_DIR}/test_kern_caps.c)
