# Generates include/nvct/base/version_info.hpp with the project version and git commit.
execute_process(COMMAND git rev-parse HEAD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                OUTPUT_VARIABLE NVCT_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE _git_rc)
if(NOT _git_rc EQUAL 0 OR NOT NVCT_GIT_COMMIT)
  set(NVCT_GIT_COMMIT "unknown")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/version_info.hpp.in
               ${PROJECT_BINARY_DIR}/include/nvct/base/version_info.hpp @ONLY)
