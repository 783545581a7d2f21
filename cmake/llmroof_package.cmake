# llmroof_package.cmake - libllmroof.so, its headers, pkg-config file and CMake package config.
# Included from the top-level CMakeLists.txt when LLMROOF_SHARED is ON (the default).
include(CMakePackageConfigHelpers)

set_target_properties(llmroof llmroof_clilib PROPERTIES POSITION_INDEPENDENT_CODE ON)

add_library(llmroof_shared SHARED $<TARGET_OBJECTS:llmroof_apiobj>)
add_library(llmroof::llmroof ALIAS llmroof_shared)
set_target_properties(llmroof_shared PROPERTIES
  OUTPUT_NAME llmroof
  EXPORT_NAME llmroof
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}
  C_VISIBILITY_PRESET default)
target_include_directories(llmroof_shared PUBLIC
  $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# Every object of the archives goes in (not only those api.c reaches), so the modules' own
# functions are callable too; the command line's internals (cli_*, cmd_*) stay local
# (src/api/llmroof.map). cJSON is linked privately: no public header exposes it.
# (Spelled as linker flags: $<LINK_LIBRARY:WHOLE_ARCHIVE> refuses llmroof, which
# llmroof_clilib already brings in without the feature.)
target_link_libraries(llmroof_shared PRIVATE
  -Wl,--whole-archive $<TARGET_FILE:llmroof_clilib> $<TARGET_FILE:llmroof> -Wl,--no-whole-archive)
add_dependencies(llmroof_shared llmroof_apiobj llmroof_clilib llmroof)
target_link_libraries(llmroof_shared PRIVATE cjson m ${CMAKE_DL_LIBS})
set_property(TARGET llmroof_shared APPEND PROPERTY LINK_DEPENDS $<TARGET_FILE:llmroof_clilib> $<TARGET_FILE:llmroof>)
target_link_options(llmroof_shared PRIVATE
  "LINKER:--version-script=${CMAKE_CURRENT_SOURCE_DIR}/src/api/llmroof.map")
set_property(TARGET llmroof_shared APPEND PROPERTY LINK_DEPENDS
  ${CMAKE_CURRENT_SOURCE_DIR}/src/api/llmroof.map)

install(TARGETS llmroof_shared EXPORT llmroofTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Only the stable API is installed (sqlite and cJSON install one header each); the modules'
# headers live beside their code under src/ and are no promise to users.
install(FILES include/llmroof/api.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/llmroof)

# find_package(llmroof CONFIG) -> llmroof::llmroof
set(LLMROOF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/llmroof)
install(EXPORT llmroofTargets NAMESPACE llmroof:: DESTINATION ${LLMROOF_CMAKE_DIR})
configure_package_config_file(cmake/llmroofConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/llmroofConfig.cmake INSTALL_DESTINATION ${LLMROOF_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/llmroofConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/llmroofConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/llmroofConfigVersion.cmake
        DESTINATION ${LLMROOF_CMAKE_DIR})

# pkg-config: paths relative to the .pc file itself, so `cmake --install --prefix P` works
# for any P chosen at install time.
file(RELATIVE_PATH LLMROOF_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" LLMROOF_PC_TO_PREFIX "${LLMROOF_PC_TO_PREFIX}")
configure_file(cmake/llmroof.pc.in ${CMAKE_CURRENT_BINARY_DIR}/llmroof.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/llmroof.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The Python binding, beside the catalog; it finds the library through <prefix>/lib*/.
install(DIRECTORY python/llmroof DESTINATION ${CMAKE_INSTALL_DATADIR}/llmroof/python
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
