// Lexical validation of a container path before anything touches the rootfs (mount.md §14.2
// step 0). The kernel does the real resolution later; this only rejects what must never be a
// target, whatever the rootfs holds.
#pragma once

#include <string>

#include "nvct/base/error.hpp"

namespace nvct::mount {

// Which special trees a target may live in.
enum class PathPolicy {
  kDefault,  // driver files, links, directories: never /proc, /sys or /dev
  kDevice,   // device nodes: /dev/nvidia* and /dev/dri/* allowed
  kProcfs,   // the /proc/driver/nvidia rewrite: that tree only
};

// Cleans `path` (absolute, no NUL, shorter than PATH_MAX; "." and ".." folded lexically, with
// ".." clamped at "/") and checks it against the policy. "/" itself is refused.
Result<std::string> clean_container_path(const std::string& path, PathPolicy policy);

// Whether an in-root path (already resolved by the kernel) may be a target under the policy.
Status check_resolved_location(const std::string& in_root_path, PathPolicy policy);

std::string dirname_of(const std::string& clean_path);
std::string basename_of(const std::string& clean_path);

}  // namespace nvct::mount
