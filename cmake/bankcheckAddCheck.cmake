# bankcheck_add_check(NAME [SOURCE file.cu...] [TARGET tgt] [ARGS arg...]
#                     [WORKING_DIRECTORY dir])
#
# Adds a CTest test NAME that runs `bankcheck check SOURCE... ARGS...`. bankcheck exits 1 when
# a --fail-on threshold in ARGS is crossed (after printing the report and a one-line
# summary) and 2 on bad input, so the test fails in both cases; with no --fail-on it fails
# only on bad input. A relative SOURCE is taken from the current source directory, and the
# test runs there, so the report's diagnostics name the file as written here.
#
# TARGET tgt compiles the sources as tgt's build does: its include directories and compile
# definitions (with those its linked libraries pass on), its CUDA_STANDARD and its compile
# options (target_compile_options, with $<COMPILE_LANGUAGE:CUDA> ones evaluated for CUDA:
# --expt-relaxed-constexpr, --extended-lambda, ...; not -G, -g, SHELL: groups or those for
# the host compiler, ptxas or the linker) go to nvcc after `--`, the options in a
# file nvcc reads (--options-file, written at generation time), and its CUDA_ARCHITECTURES
# pick --arch when ARGS gives none (90 when listed, else the highest). Without SOURCE, the
# test checks tgt's .cu sources (those added before this call).
#
#   bankcheck_add_check(transpose_tile SOURCE kernels/transpose.cu TARGET kernels
#                       ARGS --kernel transpose_tile --blocks 4 --fail-on "ways>1")
function(bankcheck_add_check name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TARGET;WORKING_DIRECTORY" "SOURCE;ARGS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "bankcheck_add_check(${name}): unexpected arguments "
                        "'${arg_UNPARSED_ARGUMENTS}' (expected SOURCE, TARGET, ARGS, "
                        "WORKING_DIRECTORY)")
  endif()
  if(arg_TARGET AND NOT TARGET ${arg_TARGET})
    message(FATAL_ERROR "bankcheck_add_check(${name}): TARGET ${arg_TARGET} is not a target "
                        "(define it before this call)")
  endif()
  if(NOT TARGET bankcheck::bankcheck)
    message(FATAL_ERROR "bankcheck_add_check(${name}): no bankcheck::bankcheck target; "
                        "call find_package(bankcheck) first")
  endif()
  set(sources ${arg_SOURCE})
  if(NOT sources AND arg_TARGET)
    # The target's CUDA sources, absolute (they are relative to its own source directory).
    get_target_property(target_sources ${arg_TARGET} SOURCES)
    get_target_property(target_dir ${arg_TARGET} SOURCE_DIR)
    foreach(s IN LISTS target_sources)
      if(s MATCHES "\\.cu$" AND NOT s MATCHES "\\$<")
        cmake_path(ABSOLUTE_PATH s BASE_DIRECTORY "${target_dir}")
        list(APPEND sources "${s}")
      endif()
    endforeach()
    if(NOT sources)
      message(FATAL_ERROR "bankcheck_add_check(${name}): TARGET ${arg_TARGET} has no .cu "
                          "source yet; give SOURCE file.cu")
    endif()
  endif()
  if(NOT sources)
    message(FATAL_ERROR "bankcheck_add_check(${name}): SOURCE file.cu is required")
  endif()
  if(arg_WORKING_DIRECTORY)
    set(absolute "")
    foreach(s IN LISTS sources)
      cmake_path(ABSOLUTE_PATH s BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}")
      list(APPEND absolute "${s}")
    endforeach()
    set(sources ${absolute})
    set(dir "${arg_WORKING_DIRECTORY}")
  else()
    set(dir "${CMAKE_CURRENT_SOURCE_DIR}")
  endif()

  set(args ${arg_ARGS})
  if(arg_TARGET)
    set(t ${arg_TARGET})
    if(NOT "--arch" IN_LIST args)
      get_target_property(archs ${t} CUDA_ARCHITECTURES)
      set(best "")
      set(best_cc -1)
      foreach(a IN LISTS archs)
        if(a MATCHES "^([0-9]+)([af]?)")
          set(cc ${CMAKE_MATCH_1})
          if(cc EQUAL 90)
            set(best "sm_${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
            break()
          elseif(cc GREATER best_cc)
            set(best "sm_${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
            set(best_cc ${cc})
          endif()
        endif()
      endforeach()
      if(best)
        list(APPEND args --arch ${best})
      endif()
    endif()
    # Generator expressions, evaluated when the test file is written: empty lists give no
    # flag, and COMMAND_EXPAND_LISTS makes each directory and definition one argument.
    set(dirs "$<FILTER:$<TARGET_PROPERTY:${t},INCLUDE_DIRECTORIES>,EXCLUDE,^$>")
    set(defs "$<FILTER:$<TARGET_PROPERTY:${t},COMPILE_DEFINITIONS>,EXCLUDE,^$>")
    set(std "$<TARGET_PROPERTY:${t},CUDA_STANDARD>")
    if(NOT "--" IN_LIST args)
      list(APPEND args --)
    endif()
    list(APPEND args "$<$<BOOL:${dirs}>:-I$<JOIN:${dirs},$<SEMICOLON>-I>>"
                     "$<$<BOOL:${defs}>:-D$<JOIN:${defs},$<SEMICOLON>-D>>"
                     "$<$<BOOL:${std}>:-std=c++${std}>")
    # The compile options, as the target's CUDA compilation sees them: a test's command
    # cannot evaluate $<COMPILE_LANGUAGE:...> (it reads as false there), file(GENERATE) with
    # TARGET can, once per language of the target (hence the language in the file name).
    # Each option one double-quoted word in nvcc's options file. A target without CUDA
    # sources has no CUDA file: its options (language-neutral ones only) go on the command.
    get_target_property(languages_sources ${t} SOURCES)
    set(has_cuda FALSE)
    foreach(s IN LISTS languages_sources)
      if(s MATCHES "\\.cu$")
        set(has_cuda TRUE)
      endif()
    endforeach()
    # As for -p (docs/check.md): debug code (-G, -g) is not what the GPU runs, and options for
    # the host compiler, ptxas or the linker do not change the PTX; SHELL: groups are dropped.
    set(dropped "^(|-G|-g|--device-debug|--debug|SHELL:.*|-Xcompiler.*|--compiler-options.*")
    string(APPEND dropped "|-Xptxas.*|--ptxas-options.*|-Xlinker.*|--linker-options.*|-Xnvlink.*)$")
    set(opts "$<FILTER:$<TARGET_PROPERTY:${t},COMPILE_OPTIONS>,EXCLUDE,${dropped}>")
    if(has_cuda)
      set(flags_file "${CMAKE_CURRENT_BINARY_DIR}/bankcheck/${name}-$<COMPILE_LANGUAGE>.flags")
      file(GENERATE OUTPUT "${flags_file}"
           CONTENT "$<$<BOOL:${opts}>:\"$<JOIN:${opts},\"\n\">\"\n>"
           TARGET ${t})
      list(APPEND args --options-file
           "${CMAKE_CURRENT_BINARY_DIR}/bankcheck/${name}-CUDA.flags")
    else()
      list(APPEND args "${opts}")
    endif()
  endif()
  add_test(NAME ${name}
           COMMAND $<TARGET_FILE:bankcheck::bankcheck> check ${sources} ${args}
           WORKING_DIRECTORY ${dir}
           COMMAND_EXPAND_LISTS)
  set_property(TEST ${name} APPEND PROPERTY LABELS bankcheck)
endfunction()
