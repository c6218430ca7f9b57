# The version every binary prints and the packages carry (spec/packaging.md §4.1):
#   V = ${NVCT_COMPAT_VERSION}+nvct${PROJECT_VERSION}
# NVCT_COMPAT_VERSION is the NVIDIA toolkit release nvct tracks, so that dependents' versioned
# relations (>= 1.x) hold; NVCT_PACKAGE_VERSION overrides V as a whole (upgrade tests);
# NVCT_GIT_COMMIT is given by the package builds, whose staged trees have no .git.
set(NVCT_COMPAT_VERSION "1.20.0" CACHE STRING "NVIDIA Container Toolkit version nvct tracks")
set(NVCT_PACKAGE_VERSION "" CACHE STRING "Version printed and packaged (default: derived)")
set(NVCT_GIT_COMMIT "" CACHE STRING "Commit printed by --version (default: git rev-parse HEAD)")

if(NVCT_PACKAGE_VERSION)
  set(NVCT_VERSION "${NVCT_PACKAGE_VERSION}")
else()
  set(NVCT_VERSION "${NVCT_COMPAT_VERSION}+nvct${PROJECT_VERSION}")
endif()

set(_nvct_commit "${NVCT_GIT_COMMIT}")
if(NOT _nvct_commit)
  execute_process(COMMAND git rev-parse HEAD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE _nvct_commit OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET RESULT_VARIABLE _git_rc)
  if(NOT _git_rc EQUAL 0 OR NOT _nvct_commit)
    set(_nvct_commit "unknown")
  endif()
endif()
set(NVCT_COMMIT "${_nvct_commit}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/version_info.hpp.in
               ${PROJECT_BINARY_DIR}/include/nvct/base/version_info.hpp @ONLY)
