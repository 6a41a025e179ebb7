# Distributed pieces: launching, hostfiles, the data-parallel engine, binding,
# the allreduce benchmark, the scaling model and the emulated cluster.
sb_add_unit(test_mpi_launch ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_launch.c)
sb_add_unit(test_mpi_bind ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_bind.c)
sb_add_unit(test_mpi_scaling ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_scaling.c)
sb_add_unit(test_mpi_slurm ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_slurm.c)
set_tests_properties(test_mpi_launch PROPERTIES TIMEOUT 60)

# The engine's test is one program run as one rank and under mpirun -np 2.
add_executable(test_mpi_dp ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_dp.c)
target_link_libraries(test_mpi_dp PRIVATE sb_harness)
add_test(NAME test_mpi_dp_1rank COMMAND test_mpi_dp)
add_test(NAME test_mpi_dp_2ranks COMMAND ${MPIEXEC_EXECUTABLE} -np 2 --oversubscribe
  --mca btl self,vader,tcp $<TARGET_FILE:test_mpi_dp>)
set_tests_properties(test_mpi_dp_1rank test_mpi_dp_2ranks PROPERTIES TIMEOUT 120
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMP_NUM_THREADS=1")

sb_add_script(mpi_allreduce_cli mpi_allreduce_cli.sh)
sb_add_script(mpi_model_cli mpi_model_cli.sh)
sb_add_script(mpi_cluster mpi_cluster.sh)
set_property(TEST mpi_cluster APPEND PROPERTY ENVIRONMENT "SB_TEST_MPI_DP=$<TARGET_FILE:test_mpi_dp>")
set_tests_properties(mpi_allreduce_cli mpi_model_cli PROPERTIES TIMEOUT 120)
# Tests that bring up an emulated cluster take this lock, so they never run at once.
set_tests_properties(mpi_cluster PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 RESOURCE_LOCK sb_cluster)
sb_add_script(mpi_train_dp mpi_train_dp.sh)
set_tests_properties(mpi_train_dp PROPERTIES TIMEOUT 300)
sb_add_script(mpi_cluster_sweep mpi_cluster_sweep.sh)
set_tests_properties(mpi_cluster_sweep PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 RESOURCE_LOCK sb_cluster)
# local-cluster state: private dirs, no planted pid file obeyed
sb_add_script(mpi_cluster_state mpi_cluster_state.sh)
set_tests_properties(mpi_cluster_state PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 RESOURCE_LOCK sb_cluster)
# A real Slurm on the emulated cluster (scripts/local-cluster up 2 --slurm).
sb_add_script(mpi_slurm mpi_slurm.sh)
set_tests_properties(mpi_slurm PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 RESOURCE_LOCK sb_cluster)
