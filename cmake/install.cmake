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

# The manual page, bash completion, the documentation and the reports' JSON Schemas
# (tests/install_test.sh checks them after an install).
install(FILES ${PROJECT_SOURCE_DIR}/docs/bankcheck.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/bankcheck-completion.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME bankcheck)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md" PATTERN "*.svg" PATTERN "*.schema.json")
