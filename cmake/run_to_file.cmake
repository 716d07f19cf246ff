# cmake -DEXE=PROGRAM -DARGS="A;B" -DOUT=FILE -P run_to_file.cmake: runs PROGRAM with its
# arguments and writes its standard output to FILE; fails (and leaves no FILE) when it does.
execute_process(COMMAND ${EXE} ${ARGS} OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "${EXE} ${ARGS}: exit ${rc}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
