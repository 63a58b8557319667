# Test helpers shared by the applications' CMakeLists (label "apps").
#
# The pattern: a fixture generates the data (<app>_data) and the serial
# reference outputs (<app>_ref) into a test_data directory; every variant
# then runs through compare_result.sh against a reference, the MPI ones
# through tests/jobs/run_job.sh (which also checks that a job leaves nothing
# behind).

set(APP_COMPARE ${PROJECT_SOURCE_DIR}/apps/compare_result.sh)
set(APP_RUN_JOB ${PROJECT_SOURCE_DIR}/tests/jobs/run_job.sh --timeout 100)

# app_test_data(<app> <dir> <generator> <args...>): fixture <app>_data runs
# the generator target with args after creating dir; a cleanup test removes
# dir after the tests of <app>_data and <app>_ref.
function(app_test_data app dir generator)
  add_test(NAME apps.${app}.setup_data
           COMMAND sh -c "mkdir -p '${dir}' && exec \"$0\" \"$@\""
                   $<TARGET_FILE:${generator}> ${ARGN})
  add_test(NAME apps.${app}.cleanup COMMAND ${CMAKE_COMMAND} -E rm -rf ${dir})
  set_tests_properties(apps.${app}.setup_data PROPERTIES
                       FIXTURES_SETUP ${app}_data LABELS apps TIMEOUT 60)
  set_tests_properties(apps.${app}.cleanup PROPERTIES
                       FIXTURES_CLEANUP "${app}_data;${app}_ref" LABELS apps
                       TIMEOUT 60)
endfunction()

# app_test_reference(<app> <name> <output> <command...>): part of fixture
# <app>_ref: runs the command (which must print RESULT <app>) and saves its
# output for the comparisons.
function(app_test_reference app name output)
  add_test(NAME apps.${app}.${name}
           COMMAND ${APP_COMPARE} --app ${app} --save-output ${output}
                   -- ${ARGN})
  set_tests_properties(apps.${app}.${name} PROPERTIES
                       FIXTURES_SETUP ${app}_ref FIXTURES_REQUIRED ${app}_data
                       LABELS apps TIMEOUT 60)
endfunction()

# app_compare_test(<app> <name> <compare options...> -- <command...>):
# compare_result.sh with those options on the command, needing both
# fixtures.
function(app_compare_test app name)
  add_test(NAME apps.${name} COMMAND ${APP_COMPARE} --app ${app} ${ARGN})
  set_tests_properties(apps.${name} PROPERTIES LABELS apps TIMEOUT 160
                       FIXTURES_REQUIRED "${app}_data;${app}_ref")
endfunction()

# app_launch(<suffix_var> <command_var> <config> <program>): how a job of
# an app_mpi_program runs, for a config "mpirun:<np>" (<program>.ompi) or
# "bdmpi:<nn>:<ns>:<nr>" (<program>): the test-name suffix (mpirun.np4,
# bdmpi.ns8.nr1, bdmpi.nn2.ns4.nr1) and the run_job.sh command through the
# program's path (its arguments follow).
function(app_launch suffix_var command_var config program)
  string(REPLACE ":" ";" parts ${config})
  list(GET parts 0 launcher)
  if(launcher STREQUAL mpirun)
    list(GET parts 1 np)
    set(${suffix_var} mpirun.np${np} PARENT_SCOPE)
    set(${command_var} ${APP_RUN_JOB} --launcher mpirun
        --mpirun ${MPIEXEC_EXECUTABLE} --np ${np}
        -- $<TARGET_FILE:${program}.ompi> PARENT_SCOPE)
    return()
  endif()
  list(GET parts 1 nn)
  list(GET parts 2 ns)
  list(GET parts 3 nr)
  set(suffix bdmpi.ns${ns}.nr${nr})
  if(nn GREATER 1)
    set(suffix bdmpi.nn${nn}.ns${ns}.nr${nr})
  endif()
  set(${suffix_var} ${suffix} PARENT_SCOPE)
  set(${command_var} ${APP_RUN_JOB} --launcher bdmpiexec
      --bdmpiexec $<TARGET_FILE:bdmpiexec> --nn ${nn} --ns ${ns} --nr ${nr}
      -- $<TARGET_FILE:${program}> PARENT_SCOPE)
endfunction()

# app_inputs_test(<app> <script> <target>): the app's script of generator
# and damaged-input checks, given the programs' directory (the target's)
# and run_job.sh.
function(app_inputs_test app script target)
  add_test(NAME apps.${app}.inputs
           COMMAND ${script} $<TARGET_FILE_DIR:${target}>
                   ${PROJECT_SOURCE_DIR}/tests/jobs/run_job.sh)
  set_tests_properties(apps.${app}.inputs PROPERTIES LABELS apps TIMEOUT 120)
endfunction()
