// Creating directories and mount targets inside a rootfs through parent fds (mount.md §14.2
// steps 3-5). An existing target is only ever opened O_PATH, so a FIFO or device planted at the
// target cannot block or trigger anything.
#pragma once

#include <optional>
#include <string>

#include "nvct/base/error.hpp"
#include "nvct/base/unique_fd.hpp"
#include "nvct/mount/container_path.hpp"
#include "nvct/mount/in_root.hpp"
#include "nvct/mount/journal.hpp"

namespace nvct::mount {

// mkdir -p inside the root: the deepest existing prefix is resolved in-root, then each missing
// component is made with mkdirat on its parent fd and re-opened O_NOFOLLOW (a symlink raced in
// fails instead of being followed). `..` in the created tail is refused. Returns an O_PATH fd.
// Created directories are journaled when `journal` is given.
Result<unique_fd> mkdir_all_in_root(const Root& root, const std::string& path,
                                    Journal* journal = nullptr);

enum class TargetKind { kFile, kDirectory };

struct Target {
  unique_fd fd;      // O_PATH, the target itself
  unique_fd parent;  // O_PATH, its directory
  std::string name;  // entry name in parent
  std::string path;  // in-root path after resolution
};

// Creates (mknodat S_IFREG / mkdirat) or opens the target for a mount at `container_path`.
// An existing symlink is resolved in-root and its destination used (decision in
// shared/spec/README.md); a dangling one is refused. A target of the wrong type is an error.
// The final location is checked with readlink(/proc/thread-self/fd/N): inside the root, not the
// root, not under /proc or /sys (the policy may allow /proc/driver/nvidia or /dev/nvidia*).
// A target it makes gets `mode` (the umask applies; default 0644 for a file, 0755 for a
// directory): binds pass their source's permission bits and the application-profile tmpfs
// 0555, as libnvidia-container does, so what stays in the rootfs afterwards matches.
Result<Target> create_target(const Root& root, const std::string& container_path, TargetKind kind,
                             PathPolicy policy, Journal* journal = nullptr,
                             std::optional<mode_t> mode = std::nullopt);

}  // namespace nvct::mount
