// CUDA forward-compatibility libraries shipped in the image (mount.md §9). nvct never mounts
// anything from the image (CVE-2024-0132, CVE-2025-23359): in `ldconfig` mode the folder that
// holds the compat libs newer than the driver becomes an extra ldconfig argument; `mount` is
// accepted as an alias of `ldconfig` (with a warning); `disabled` and --no-cntlibs do nothing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/mount/in_root.hpp"

namespace nvct::mount {

enum class CudaCompatMode { kLdconfig, kDisabled };

// Repeated --cuda-compat-mode values and --no-cntlibs: `disabled` (or --no-cntlibs) overrides,
// `mount` and `ldconfig` together fail with "only one cuda-compat-mode can be specified at a
// time", an unknown value fails, nothing given means the reference default `mount` (which nvct
// runs as `ldconfig`).
Result<CudaCompatMode> resolve_cuda_compat_mode(const std::vector<std::string>& values,
                                                bool no_cntlibs);

// The digits after ".so." of a library name ("libcuda.so.560.35.03" -> 560).
std::optional<unsigned long> compat_lib_major(std::string_view name);

// ldconfig mode keeps a lib only when its major is greater than the RM version's major.
bool compat_lib_is_newer(std::string_view name, std::string_view rm_version);

// The in-root folder of /usr/local/cuda/compat/lib*.so.* libs newer than the driver, resolved
// by the kernel in the rootfs (so a /usr/local/cuda symlink stays inside it, issue #117);
// nullopt when there is none. Kept libs in two different folders are an error.
Result<std::optional<std::string>> compat_ldconfig_folder(const Root& rootfs,
                                                          std::string_view rm_version);

}  // namespace nvct::mount
