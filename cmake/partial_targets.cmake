# bankcheck_installable: everything the install rules install (the executable, its manual
# page and completion, the run agent, bankcheck's libcuda.so.1 and the GPU backend where they
# are built).
# bankcheck_demo: what scripts/demo.sh runs (the executable, the run agent, bankcheck's
# libcuda.so.1 and the bundled transpose program of examples/run, where they are built).
add_custom_target(bankcheck_installable DEPENDS bankcheck bankcheck_docs bankcheck_run_agent)
add_custom_target(bankcheck_demo DEPENDS bankcheck bankcheck_run_agent)
foreach(t bankcheck_cuda bankcheck_gpu)
  if(TARGET ${t})
    add_dependencies(bankcheck_installable ${t})
  endif()
endforeach()
foreach(t bankcheck_cuda run_transpose)
  if(TARGET ${t})
    add_dependencies(bankcheck_demo ${t})
  endif()
endforeach()
