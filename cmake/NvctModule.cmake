# nvct_module(<name> [DEPS <targets...>])
#
# Declares the static library nvct_<name> (alias nvct::<name>) from src/<name>/*.cpp with the
# public headers in include/nvct/<name>/, and, when tests/unit/<name>/*_test.cpp exist, the
# GoogleTest executable unit_<name> whose tests are registered in CTest with the label "unit".
# Sources are globbed so that a module owns its folder and nobody edits a shared list.
function(nvct_module name)
  cmake_parse_arguments(M "" "" "DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cpp)
  add_library(nvct_${name} STATIC ${srcs})
  add_library(nvct::${name} ALIAS nvct_${name})
  target_include_directories(nvct_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include
                                                 ${PROJECT_BINARY_DIR}/include)
  target_link_libraries(nvct_${name} PUBLIC nvct_options ${M_DEPS})
  nvct_unit_tests(${name} nvct_${name})
endfunction()

# The unit test files' compile options and the precompiled header they share: GoogleTest,
# nlohmann/json, fmt (header-only) and tl::expected are parsed once per build instead of once per
# translation unit (about 200 test files; one unit per folder in a unity build, see
# nvct_unit_tests). The PCH
# is built by nvct_unit_pch with the options and definitions of the test files, so GCC accepts
# it for every one of them (CMake adds -Winvalid-pch, and the ci preset makes warnings errors).
function(nvct_unit_test_options target)
  if(NVCT_UNIT_TEST_FLAGS)
    separate_arguments(unit_flags UNIX_COMMAND "${NVCT_UNIT_TEST_FLAGS}")
    target_compile_options(${target} PRIVATE ${unit_flags})
  endif()
  target_link_libraries(${target} PRIVATE nvct_testing GTest::gtest_main GTest::gmock
                                          nlohmann_json::nlohmann_json)
  target_compile_definitions(${target} PRIVATE NVCT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                                               NVCT_BINARY_DIR="${PROJECT_BINARY_DIR}")
endfunction()

function(nvct_unit_pch_target)
  if(TARGET nvct_unit_pch OR NOT NVCT_UNIT_PCH)
    return()
  endif()
  # An executable like the tests (not an object library), so it is compiled with their -fPIE.
  add_executable(nvct_unit_pch ${PROJECT_SOURCE_DIR}/tests/testing/pch/unit_pch.cpp)
  nvct_unit_test_options(nvct_unit_pch)
  target_precompile_headers(nvct_unit_pch PRIVATE
    <gtest/gtest.h> <nlohmann/json.hpp> <fmt/format.h> <tl/expected.hpp>
    <filesystem> <functional> <map> <memory> <optional> <set> <string> <string_view> <vector>)
endfunction()

# nvct_unit_tests(<folder> <libraries...>): tests/unit/<folder>/*_test.cpp -> unit_<folder>.
function(nvct_unit_tests folder)
  if(NOT BUILD_TESTING)
    return()
  endif()
  file(GLOB tests CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/unit/${folder}/*_test.cpp)
  if(NOT tests)
    return()
  endif()
  string(REPLACE "/" "_" exe "unit_${folder}")
  add_executable(${exe} ${tests})
  # In a unity build (the ci preset) a folder's test files are one translation unit, like the
  # libraries: the templates of GoogleTest, nlohmann/json, fmt and toml++ are instantiated and
  # compiled once per folder instead of once per file (at -O0: tests/unit/diagnose's 19 files
  # 140 CPU-s one by one, 21 s as one unit; unit_ctk's 16 files 106 s one by one).
  # So file-local helpers (anonymous namespace) need names unique within their folder, and
  # nvct::testing is spelled out (a folder's own nvct::<module>::testing hides it).
  # NVCT_UNIT_TEST_FLAGS (the ci preset: -O0) applies to the test files only; the code under
  # test keeps its flags.
  nvct_unit_test_options(${exe})
  target_link_libraries(${exe} PRIVATE ${ARGN})
  if(NVCT_UNIT_PCH)
    nvct_unit_pch_target()
    target_precompile_headers(${exe} REUSE_FROM nvct_unit_pch)
  endif()
  gtest_discover_tests(${exe} PROPERTIES LABELS unit
                       ENVIRONMENT "NVCT_DRIVER_FACTS_CACHE_DIR=${NVCT_TEST_FACTS_CACHE_DIR}"
                       FIXTURES_REQUIRED host_run DISCOVERY_MODE PRE_TEST)
endfunction()

# nvct_script_test(<name> <script> LABELS <labels...> [TIMEOUT s] [DEPENDS_TARGETS t...])
# Registers a shell test (end-to-end, security, bench). The script receives the build directory
# in NVCT_BUILD_DIR and the source directory in NVCT_SOURCE_DIR, and /dev/null as its stdin
# (NVCT_SCRIPT_TEST_COMMAND). CTest hands on its own stdin, a terminal when the README's test
# command runs in one; a program that reads it from a process group of its own (`timeout 120 ctr
# run`) is stopped by SIGTTIN and hangs until its timeout (two tests failed that way under
# script(1)). tests/testing/script_test_stdin.sh checks every registered script test.
#
# Every test (these and the unit tests) runs with NVCT_DRIVER_FACTS_CACHE_DIR set to a folder of
# the build tree, so the driver-facts cache of the shims, hooks and CLIs under test (and of the
# engines the tests start, which hand their environment on) never lands in the host's
# /run/nvidia-container-toolkit; the host_run fixture (tests/testing/host_run_check.sh) fails the
# run if it did.
set(NVCT_TEST_FACTS_CACHE_DIR "${PROJECT_BINARY_DIR}/test-driver-facts")
# Timing benches (label bench) never run beside the tests that flood the machine with processes
# (the create storms' 200 containers, e2e_load's 50): one CI run measured bench_doctor and
# bench_shim at load averages of 195 and 101 there, and both failed the absolute limits they had
# then. Each bench holds its own CTest RESOURCE_LOCK, nvct_<test name>, so that benches still run
# beside each other and beside lighter tests; the flooding tests hold all of them.
set(NVCT_BENCH_LOCKS nvct_bench_compat nvct_bench_doctor nvct_bench_driver nvct_bench_hook
                     nvct_bench_shim nvct_bench_table)
function(nvct_bench_lock name)
  if(NOT "nvct_${name}" IN_LIST NVCT_BENCH_LOCKS)
    message(FATAL_ERROR "bench test ${name}: add nvct_${name} to NVCT_BENCH_LOCKS (cmake/NvctModule.cmake)")
  endif()
  set_tests_properties(${name} PROPERTIES RESOURCE_LOCK nvct_${name})
endfunction()
set(NVCT_SCRIPT_TEST_COMMAND sh -c "exec bash \"$0\" \"$@\" </dev/null")
function(nvct_script_test name script)
  cmake_parse_arguments(T "" "TIMEOUT" "LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_test(NAME ${name} COMMAND ${NVCT_SCRIPT_TEST_COMMAND} ${script})
  set_tests_properties(${name} PROPERTIES
    LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "NVCT_BUILD_DIR=${PROJECT_BINARY_DIR};NVCT_SOURCE_DIR=${PROJECT_SOURCE_DIR};NVCT_DRIVER_FACTS_CACHE_DIR=${NVCT_TEST_FACTS_CACHE_DIR}")
  if(NOT name MATCHES "^host_run_")
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED host_run)
  endif()
  if("bench" IN_LIST T_LABELS)
    nvct_bench_lock(${name})
  endif()
endfunction()
