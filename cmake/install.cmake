# `cmake --install` and find_package(bankcheck): the bankcheck executable and the
# header-only bank model as imported targets (bankcheck::bankcheck, bankcheck::model), and
# bankcheck_add_check() for projects that gate their kernels in CTest.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(bankcheck_model PROPERTIES EXPORT_NAME model)
install(TARGETS bankcheck_model EXPORT bankcheckTargets)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/bankcheck/model
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/bankcheck)

set(BANKCHECK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/bankcheck)
install(EXPORT bankcheckTargets NAMESPACE bankcheck:: DESTINATION ${BANKCHECK_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/bankcheckConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/bankcheckConfig.cmake INSTALL_DESTINATION ${BANKCHECK_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/bankcheckConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/bankcheckConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/bankcheckConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/bankcheckAddCheck.cmake
        DESTINATION ${BANKCHECK_CMAKE_DIR})

# The documentation and the reports' JSON Schemas (the manual page and the bash completion
# are generated and installed by tools/bankcheck/CMakeLists.txt; tests/install_test.sh checks
# them all after an install).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md" PATTERN "*.svg" PATTERN "*.schema.json")
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
