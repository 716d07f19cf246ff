# The two decompressors of CUDA fat binary entries, found as the Debian -dev packages install
# them (a header and a shared library), as imported targets bankcheck::zstd and bankcheck::lz4.
# Configure stops here, naming the package to install, when either is missing.
function(bankcheck_find_decoder target header library package)
  find_path(${target}_INCLUDE_DIR ${header})
  find_library(${target}_LIBRARY ${library})
  if(NOT ${target}_INCLUDE_DIR OR NOT ${target}_LIBRARY)
    message(FATAL_ERROR
      "${header} or lib${library} not found: bankcheck needs them to read compressed CUDA fat "
      "binaries. Install ${package} (scripts/install-deps.sh installs it), or set "
      "${target}_INCLUDE_DIR and ${target}_LIBRARY.")
  endif()
  add_library(bankcheck::${target} UNKNOWN IMPORTED)
  set_target_properties(bankcheck::${target} PROPERTIES
    IMPORTED_LOCATION "${${target}_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${${target}_INCLUDE_DIR}")
  message(STATUS "${package}: ${${target}_LIBRARY}")
endfunction()

bankcheck_find_decoder(zstd zstd.h zstd libzstd-dev)
bankcheck_find_decoder(lz4 lz4.h lz4 liblz4-dev)
