// The enable-cuda-compat hook (spec/cdi.md §8, mount.md §9): when the image ships a CUDA
// forward-compatibility libcuda newer than the host driver, a drop-in
// /etc/ld.so.conf.d/00-compat-<id>.conf (0644) names the compat folder. Nothing is mounted
// from the image (CVE-2024-0132); the folder is listed and the library read through in-root
// fds with size caps (CVE-2026-24260).
#pragma once

#include <optional>
#include <string>

#include "nvct/base/error.hpp"
#include "nvct/mount/in_root.hpp"

namespace nvct::cdi_hooks {

struct CudaCompatOptions {
  std::string host_driver_version;                               // --host-driver-version
  std::string host_cuda_version;                                 // --host-cuda-version
  std::string compat_container_root = "/usr/local/cuda/compat";  // --cuda-compat-container-root
};

// The CUDA version a compat libcuda declares in its ELF note (owner "NVIDIA", type 1, a
// NUL-terminated "major.minor" descriptor), read with pread through `fd` with every offset and
// size checked against the file and the note sections capped. nullopt when there is no such note.
Result<std::optional<std::string>> read_compat_cuda_version(int fd);

// Whether the compat library should be used: by the note's CUDA version against
// --host-cuda-version when both are known, else compat driver major > host driver major.
bool compat_is_newer(const std::string& compat_lib_version,
                     const std::optional<std::string>& compat_cuda_version,
                     const CudaCompatOptions& options);

// Returns the in-root path of the drop-in written, or nullopt when nothing was needed.
Result<std::optional<std::string>> enable_cuda_compat(const mount::Root& rootfs,
                                                      const CudaCompatOptions& options);

}  // namespace nvct::cdi_hooks
