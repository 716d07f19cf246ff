# `cpack -G DEB` (`make package`): a Debian package of what `cmake --install` installs, under
# the same prefix the build was configured with (the paths compiled into the help texts and
# the manual page name it), with its dependencies read from the shared libraries it links
# (dpkg-shlibdeps, from dpkg-dev).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME bankcheck)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "bankcheck maintainers <bankcheck@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "find, explain and fix shared-memory bank conflicts in CUDA kernels, without a GPU")
set(CPACK_PACKAGE_DESCRIPTION
  "bankcheck counts the shared-memory bank conflicts and uncoalesced global accesses of CUDA
kernels as the H100 counts them, per source line, by emulating the kernels on the CPU: check
(a .cu or .ptx file), fix (padding, swizzles), explain (one access pattern) and run (a whole
CUDA program under bankcheck's own CUDA runtime).")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# check and fix run nvcc; the toolkit is usually installed from NVIDIA's own packages, so it
# is suggested, not required.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nvidia-cuda-toolkit")
# cpack (and the build system's own `install` target) would build every target first, the
# tests included; `make package` and `make install` build bankcheck_installable instead.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)
include(CPack)
