# One run test (tests.cmake registers them): runs
#   BANKCHECK run --format json -o REPORT -- PROGRAM ARGS...
# in WORKDIR and fails unless it exits 0, PROGRAM printed PASSED on a line of its own, and
# REPORT is a non-empty file. Without BANKCHECK it runs PROGRAM alone (a GPU machine's
# plain run) and checks the first two.
#   cmake -DBANKCHECK=... -DPROGRAM=... -DARGS='a|b|c' -DWORKDIR=... -DREPORT=... -P run_test.cmake
foreach(var PROGRAM WORKDIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_test.cmake: -D${var}=... is required")
  endif()
endforeach()
string(REPLACE "|" ";" args "${ARGS}")

if(BANKCHECK)
  if(NOT REPORT)
    message(FATAL_ERROR "run_test.cmake: -DREPORT=... is required with -DBANKCHECK")
  endif()
  file(REMOVE ${REPORT})
  set(command ${BANKCHECK} run --format json -o ${REPORT} -- ${PROGRAM} ${args})
else()
  set(command ${PROGRAM} ${args})
endif()
list(JOIN command " " shown)
message(STATUS "in ${WORKDIR}: ${shown}")

execute_process(COMMAND ${command}
                WORKING_DIRECTORY ${WORKDIR}
                RESULT_VARIABLE rc
                OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message(STATUS "stdout:\n${out}")
if(err)
  message(STATUS "stderr:\n${err}")
endif()

set(problems "")
if(NOT rc STREQUAL "0")
  list(APPEND problems "exit status ${rc}")
endif()
if(NOT out MATCHES "(^|\n)PASSED\r?(\n|$)")
  list(APPEND problems "no PASSED line on stdout")
endif()
if(BANKCHECK)
  if(NOT EXISTS ${REPORT})
    list(APPEND problems "no report at ${REPORT}")
  else()
    file(SIZE ${REPORT} size)
    if(size EQUAL 0)
      list(APPEND problems "empty report at ${REPORT}")
    endif()
  endif()
endif()
if(problems)
  list(JOIN problems "; " why)
  message(FATAL_ERROR "${shown}: ${why}")
endif()
