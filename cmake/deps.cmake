# Third-party dependencies, the same targets for both toolchains:
#   nlohmann_json::nlohmann_json  header-only JSON (Debian nlohmann-json3-dev)
#   fmt's headers                 shortest float text, header-only (Debian libfmt-dev;
#                                 engine/src/state/json_numbers.cpp)
#   GTest::gtest, GTest::gtest_main  built from Debian's /usr/src/googletest
#   attnviz_stb                   stb_image_write for PNG output (Debian libstb-dev)
# Emscripten's sysroot does not see /usr/include, so for wasm we expose only the
# nlohmann, stb and fmt headers through a directory of symlinks inside the build tree.

if(ATTNVIZ_WASM)
  set(_nl "${CMAKE_BINARY_DIR}/sysdeps/include")
  file(MAKE_DIRECTORY "${_nl}")
  foreach(_dir nlohmann stb fmt)
    if(NOT EXISTS "${_nl}/${_dir}")
      file(CREATE_LINK /usr/include/${_dir} "${_nl}/${_dir}" SYMBOLIC)
    endif()
  endforeach()
  add_library(attnviz_stb INTERFACE)
  target_include_directories(attnviz_stb SYSTEM INTERFACE "${_nl}/stb")
  add_library(nlohmann_json INTERFACE)
  target_include_directories(nlohmann_json SYSTEM INTERFACE "${_nl}")
  add_library(nlohmann_json::nlohmann_json ALIAS nlohmann_json)
else()
  find_package(nlohmann_json 3.11 REQUIRED)
  add_library(attnviz_stb INTERFACE)
  target_include_directories(attnviz_stb SYSTEM INTERFACE /usr/include/stb)
endif()

if(ATTNVIZ_BUILD_TESTS)
  # Build GoogleTest from Debian's sources so native and wasm use the same code.
  set(gtest_disable_pthreads ${ATTNVIZ_WASM} CACHE BOOL "" FORCE)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  add_subdirectory(/usr/src/googletest "${CMAKE_BINARY_DIR}/googletest" EXCLUDE_FROM_ALL)
  if(NOT TARGET GTest::gtest)
    add_library(GTest::gtest ALIAS gtest)
    add_library(GTest::gtest_main ALIAS gtest_main)
  endif()
endif()

# attnviz_node_executable(target): link flags for programs that run under node
# (the CLI and the unit tests in the wasm build). NODERAWFS gives them the real
# file system, so they read fixtures and state files like the native build does.
function(attnviz_node_executable target)
  if(ATTNVIZ_WASM)
    target_link_options(${target} PRIVATE -sENVIRONMENT=node -sNODERAWFS=1
      -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB -sEXIT_RUNTIME=1)
    if(ATTNVIZ_THREADS)
      # Three workers: up to --threads 4 (the bench uses 2 on this machine).
      target_link_options(${target} PRIVATE -sPTHREAD_POOL_SIZE=3)
    endif()
  endif()
endfunction()

# attnviz_test_program(target): a GoogleTest program's own code is compiled at -O1
# (and, in WebAssembly, linked at -O1: wasm-opt's -O3 pass over a test program
# costs half a minute). Only build time changes: the code under test is the
# attnviz_engine / attnviz_app library, compiled at the build type's level, and
# no level changes a float result (no -ffast-math; the engine spells out its fmas).
function(attnviz_test_program target)
  target_compile_options(${target} PRIVATE -O1)
  if(ATTNVIZ_WASM)
    target_link_options(${target} PRIVATE -O1)
  endif()
endfunction()

# attnviz_add_test(name target [args...]): registers a ctest that runs `target`
# natively, or under node in the wasm build (node 20 needs --no-experimental-fetch
# for Emscripten 3.1.6's glue, see docs/build.md).
# attnviz_add_test(name target [args...]): registers a GoogleTest program as a ctest,
# run natively or under node in the wasm build (node 20 needs --no-experimental-fetch
# for Emscripten 3.1.6's glue, see docs/build.md). It writes a JUnit report to
# build/test-reports/<suite>-<name>.xml, which scripts/test-summary.py adds up case by
# case. The report path goes on the command line: Emscripten programs do not see
# the host's environment variables, so GTEST_OUTPUT would not reach them.
function(attnviz_add_test name target)
  if(ATTNVIZ_WASM AND ATTNVIZ_THREADS)
    set(_suite wasm-mt)
  elseif(ATTNVIZ_WASM)
    set(_suite wasm)
  else()
    set(_suite native)
  endif()
  if(ATTNVIZ_SANITIZE)
    set(_suite "${_suite}-asan")
  elseif(ATTNVIZ_TSAN)
    set(_suite "${_suite}-tsan")
  endif()
  set(_report "--gtest_output=xml:${CMAKE_SOURCE_DIR}/build/test-reports/${_suite}-${name}.xml")
  if(ATTNVIZ_WASM)
    add_test(NAME ${name} COMMAND node --no-experimental-fetch $<TARGET_FILE:${target}> ${_report} ${ARGN}
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  else()
    add_test(NAME ${name} COMMAND ${target} ${_report} ${ARGN} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  endif()
  # A hang (a deadlocked thread pool) fails the test instead of stalling make test.
  set_tests_properties(${name} PROPERTIES TIMEOUT 900)
endfunction()
