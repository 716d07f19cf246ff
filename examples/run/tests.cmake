# Registers one CTest per `run` line of programs.txt: `bankcheck run --format json -o
# REPORT -- PROGRAM ARGS...` from the program's directory (where its input files are); the
# test passes when that exits 0, the program printed PASSED on a line of its own, and the
# report was written. run_test.cmake does the checking.
#
# Include it after add_subdirectory(examples/run) (which defines the run_NAME targets):
#   include(examples/run/tests.cmake)
# Settings, all optional:
#   BANKCHECK_RUN_COMMAND       the bankcheck to run; default $<TARGET_FILE:bankcheck>
#   BANKCHECK_RUN_PROGRAMS_DIR  where the programs were built, when the run_NAME targets are
#                               not in this project (a separate build of examples/run)
#   BANKCHECK_RUN_REPORT_DIR    where the JSON reports go; default
#                               ${CMAKE_CURRENT_BINARY_DIR}/run_reports
# Tests are named run.RUN and labelled `run` (ctest -L run).
set(_bankcheck_run_dir ${CMAKE_CURRENT_LIST_DIR})

if(NOT BANKCHECK_RUN_COMMAND)
  if(TARGET bankcheck)
    set(BANKCHECK_RUN_COMMAND $<TARGET_FILE:bankcheck>)
  else()
    message(FATAL_ERROR "tests.cmake: set BANKCHECK_RUN_COMMAND or define a bankcheck target first")
  endif()
endif()
if(NOT BANKCHECK_RUN_REPORT_DIR)
  set(BANKCHECK_RUN_REPORT_DIR ${CMAKE_CURRENT_BINARY_DIR}/run_reports)
endif()
file(MAKE_DIRECTORY ${BANKCHECK_RUN_REPORT_DIR})

file(STRINGS ${_bankcheck_run_dir}/programs.txt _bankcheck_run_lines)
foreach(_line IN LISTS _bankcheck_run_lines)
  if(_line MATCHES "^program[ \t]")
    separate_arguments(_words UNIX_COMMAND "${_line}")
    list(GET _words 1 _name)
    list(GET _words 2 _dir)
    set(_bankcheck_run_dir_of_${_name} ${_dir})
  endif()
endforeach()

foreach(_line IN LISTS _bankcheck_run_lines)
  if(NOT _line MATCHES "^run[ \t]")
    continue()
  endif()
  separate_arguments(_words UNIX_COMMAND "${_line}")
  list(POP_FRONT _words _kind _run _name)
  if(NOT DEFINED _bankcheck_run_dir_of_${_name})
    message(FATAL_ERROR "programs.txt: run ${_run} names ${_name}, which no program line defines")
  endif()
  if(TARGET run_${_name})
    set(_exe $<TARGET_FILE:run_${_name}>)
  elseif(BANKCHECK_RUN_PROGRAMS_DIR)
    set(_exe ${BANKCHECK_RUN_PROGRAMS_DIR}/${_name})
  else()
    message(FATAL_ERROR "tests.cmake: no target run_${_name}; add_subdirectory(examples/run) "
                        "first or set BANKCHECK_RUN_PROGRAMS_DIR")
  endif()
  # The arguments travel as one word, '|'-separated: a ';' would split the command here.
  list(JOIN _words "|" _args)
  add_test(NAME run.${_run}
           COMMAND ${CMAKE_COMMAND}
                   -DBANKCHECK=${BANKCHECK_RUN_COMMAND}
                   -DPROGRAM=${_exe}
                   -DARGS=${_args}
                   -DWORKDIR=${_bankcheck_run_dir}/${_bankcheck_run_dir_of_${_name}}
                   -DREPORT=${BANKCHECK_RUN_REPORT_DIR}/${_run}.json
                   -P ${_bankcheck_run_dir}/run_test.cmake)
  set_tests_properties(run.${_run} PROPERTIES LABELS run TIMEOUT 300)
endforeach()
