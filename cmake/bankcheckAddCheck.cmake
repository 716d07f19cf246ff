# bankcheck_add_check(NAME SOURCE file.cu [ARGS arg...] [WORKING_DIRECTORY dir])
#
# Adds a CTest test NAME that runs `bankcheck check SOURCE ARGS...`. bankcheck exits 1 when
# a --fail-on threshold in ARGS is crossed (after printing the report and a one-line
# summary) and 2 on bad input, so the test fails in both cases; with no --fail-on it fails
# only on bad input. A relative SOURCE is taken from the current source directory, and the
# test runs there, so the report's diagnostics name the file as written here.
#
#   bankcheck_add_check(transpose_tile SOURCE kernels/transpose.cu
#                       ARGS --kernel transpose_tile --blocks 4 --fail-on "ways>1")
function(bankcheck_add_check name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "SOURCE;WORKING_DIRECTORY" "ARGS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "bankcheck_add_check(${name}): unexpected arguments "
                        "'${arg_UNPARSED_ARGUMENTS}' (expected SOURCE, ARGS, WORKING_DIRECTORY)")
  endif()
  if(NOT arg_SOURCE)
    message(FATAL_ERROR "bankcheck_add_check(${name}): SOURCE file.cu is required")
  endif()
  if(NOT TARGET bankcheck::bankcheck)
    message(FATAL_ERROR "bankcheck_add_check(${name}): no bankcheck::bankcheck target; "
                        "call find_package(bankcheck) first")
  endif()
  set(source "${arg_SOURCE}")
  if(arg_WORKING_DIRECTORY)
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}")
    set(dir "${arg_WORKING_DIRECTORY}")
  else()
    set(dir "${CMAKE_CURRENT_SOURCE_DIR}")
  endif()
  add_test(NAME ${name}
           COMMAND $<TARGET_FILE:bankcheck::bankcheck> check ${source} ${arg_ARGS}
           WORKING_DIRECTORY ${dir})
  set_property(TEST ${name} APPEND PROPERTY LABELS bankcheck)
endfunction()
