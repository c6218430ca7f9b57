# Generates include/nvct/base/install_paths.hpp: the directories the binaries are installed in,
# so that every path a binary execs or writes into an engine config or a CDI spec follows the
# install prefix (spec/packaging.md §4.3). The binaries look next to themselves first, so a build
# tree (all programs in ${PROJECT_BINARY_DIR}/bin) and a relocated install work too.
set(NVCT_INSTALL_BINDIR "${CMAKE_INSTALL_FULL_BINDIR}")
set(NVCT_INSTALL_HELPERDIR "${CMAKE_INSTALL_FULL_LIBEXECDIR}/nvct")
configure_file(${PROJECT_SOURCE_DIR}/cmake/install_paths.hpp.in
               ${PROJECT_BINARY_DIR}/include/nvct/base/install_paths.hpp @ONLY)
