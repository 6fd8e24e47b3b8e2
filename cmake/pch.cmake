# attnviz_pch(target [gtest]): precompiles the heavy headers most of a target's
# files include: nlohmann/json.hpp (state.h and report.h carry it, so nearly
# every file of the engine, the app, the CLI and the tests parses it: about 2 s
# of emcc per file) and, with `gtest`, GoogleTest's header. Each target builds
# its own precompiled header with its own flags (sanitizers, -pthread,
# -ffp-contract=off), so it always matches. The vector kernels skip it: they
# need no JSON and kernels_avx2.cpp has flags of its own.
# ATTNVIZ_PCH=OFF turns it off (to check that every file includes what it uses).
option(ATTNVIZ_PCH "Precompile nlohmann/json.hpp and gtest.h per target (faster builds)" ON)
function(attnviz_pch target)
  if(NOT ATTNVIZ_PCH)
    return()
  endif()
  set(_headers <nlohmann/json.hpp> <string> <vector> <cstdint> <cmath> <algorithm>)
  if("gtest" IN_LIST ARGN)
    list(APPEND _headers <gtest/gtest.h>)
  endif()
  target_precompile_headers(${target} PRIVATE ${_headers})
endfunction()
