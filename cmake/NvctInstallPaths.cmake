# Generates the source file that holds the directories the binaries are installed in
# (include/nvct/base/install_dirs.hpp), so that every path a binary execs or writes into an
# engine config or a CDI spec follows the install prefix (spec/packaging.md §4.3). The binaries
# look next to themselves first, so a build tree (all programs in ${PROJECT_BINARY_DIR}/bin) and
# a relocated install work too.
#
# The prefix lives in this one generated .cpp (added to nvct_base by src/base/CMakeLists.txt,
# outside the unity build), not in a header: a build for another prefix (test P16's /opt/nvct
# tree) recompiles that file alone and takes everything else from ccache.
set(NVCT_INSTALL_BINDIR "${CMAKE_INSTALL_FULL_BINDIR}")
set(NVCT_INSTALL_HELPERDIR "${CMAKE_INSTALL_FULL_LIBEXECDIR}/nvct")
set(NVCT_INSTALL_DIRS_SOURCE ${PROJECT_BINARY_DIR}/generated/install_dirs.cpp)
configure_file(${PROJECT_SOURCE_DIR}/cmake/install_dirs.cpp.in ${NVCT_INSTALL_DIRS_SOURCE} @ONLY)
