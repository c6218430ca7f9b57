// The directories the binaries are installed in, as configured (cmake/NvctInstallPaths.cmake):
// defined in one generated source file, so that changing the install prefix recompiles that file
// and nothing else.
#pragma once

namespace nvct {

// ${CMAKE_INSTALL_FULL_BINDIR}: nvidia-container-runtime, -hook, nvidia-ctk, nvidia-cdi-hook,
// nvidia-container-cli.
const char* install_bindir();

// ${CMAKE_INSTALL_FULL_LIBEXECDIR}/nvct: nvidia-container-runtime-nvml, internal to the shim.
const char* install_helper_dir();

}  // namespace nvct
