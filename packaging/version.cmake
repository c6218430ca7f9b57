# The package version V of spec/packaging.md §4.1:
#   ${NVCT_COMPAT_VERSION}+nvct${PROJECT_VERSION}, or NVCT_PACKAGE_VERSION when that is set.
# The compatibility version is the NVIDIA Container Toolkit release nvct tracks: dependents
# of the NVIDIA packages ask for `>= 1.x`, so V sorts with NVIDIA's versions.
#
#   cmake [-DNVCT_COMPAT_VERSION=1.20.0] [-DNVCT_PACKAGE_VERSION=V] -P packaging/version.cmake
# prints V (build-deb.sh, build-rpm.sh). The environment variables of the same names are used
# when no -D is given. Included from CMake, it sets NVCT_PACKAGING_VERSION.
cmake_minimum_required(VERSION 3.25)

set(_nvct_default_compat_version 1.20.0)

if(NOT DEFINED NVCT_COMPAT_VERSION AND NOT "$ENV{NVCT_COMPAT_VERSION}" STREQUAL "")
  set(NVCT_COMPAT_VERSION "$ENV{NVCT_COMPAT_VERSION}")
endif()
if(NOT DEFINED NVCT_PACKAGE_VERSION AND NOT "$ENV{NVCT_PACKAGE_VERSION}" STREQUAL "")
  set(NVCT_PACKAGE_VERSION "$ENV{NVCT_PACKAGE_VERSION}")
endif()
if("${NVCT_COMPAT_VERSION}" STREQUAL "")
  set(NVCT_COMPAT_VERSION ${_nvct_default_compat_version})
endif()

# project(nvct VERSION x.y.z) of the top-level CMakeLists.txt, read directly in script mode.
if(NOT PROJECT_VERSION)
  file(READ ${CMAKE_CURRENT_LIST_DIR}/../CMakeLists.txt _nvct_top)
  if(NOT _nvct_top MATCHES "project\\(nvct[ \t\r\n]+VERSION[ \t\r\n]+([0-9]+(\\.[0-9]+)*)")
    message(FATAL_ERROR "version.cmake: no `project(nvct VERSION x.y.z)` in "
                        "${CMAKE_CURRENT_LIST_DIR}/../CMakeLists.txt")
  endif()
  set(PROJECT_VERSION ${CMAKE_MATCH_1})
endif()

if(NOT "${NVCT_PACKAGE_VERSION}" STREQUAL "")
  set(NVCT_PACKAGING_VERSION "${NVCT_PACKAGE_VERSION}")
else()
  set(NVCT_PACKAGING_VERSION "${NVCT_COMPAT_VERSION}+nvct${PROJECT_VERSION}")
endif()

# Both package formats take it as is: a Debian native version and an RPM Version (no '-').
if(NOT NVCT_PACKAGING_VERSION MATCHES "^[0-9][A-Za-z0-9.+~]*$")
  message(FATAL_ERROR "version.cmake: package version '${NVCT_PACKAGING_VERSION}' (from "
                      "NVCT_PACKAGE_VERSION or NVCT_COMPAT_VERSION) must start with a digit and "
                      "hold only letters, digits and . + ~")
endif()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${NVCT_PACKAGING_VERSION}")
endif()
