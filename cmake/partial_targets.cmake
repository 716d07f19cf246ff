# bankcheck_installable: everything the install rules install (the executable, its manual
# page and completion, bankcheck's libcudart.so.13 and the GPU backend where they are built).
# bankcheck_demo: what scripts/demo.sh runs (the executable, bankcheck's libcudart.so.13 and
# the bundled transpose program of examples/run, where they are built).
add_custom_target(bankcheck_installable DEPENDS bankcheck bankcheck_docs)
add_custom_target(bankcheck_demo DEPENDS bankcheck)
foreach(t bankcheck_cudart bankcheck_gpu)
  if(TARGET ${t})
    add_dependencies(bankcheck_installable ${t})
  endif()
endforeach()
foreach(t bankcheck_cudart run_transpose)
  if(TARGET ${t})
    add_dependencies(bankcheck_demo ${t})
  endif()
endforeach()
