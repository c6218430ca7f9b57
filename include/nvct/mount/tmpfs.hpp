// A private tmpfs mounted over a directory of the container (mount.md §5 flags: mode 0555,
// nosuid,nodev,noexec), shared by the /proc/driver/nvidia step and the graphics application
// profile. The target is created in-root (journaled), the mount is attached through fds (the new
// mount API, or mount(2) on /proc/self/fd paths), made private whichever API attached it,
// journaled, and verified: a new tmpfs mount with those flags and no shared propagation.
#pragma once

#include <optional>
#include <string>

#include "nvct/base/error.hpp"
#include "nvct/base/unique_fd.hpp"
#include "nvct/mount/container_path.hpp"
#include "nvct/mount/in_root.hpp"
#include "nvct/mount/journal.hpp"

namespace nvct::mount {

struct MountedTmpfs {
  unique_fd fd;      // O_PATH, the root of the mounted tmpfs
  std::string path;  // in-root path it was mounted on
};

// A detached, empty tmpfs (fsopen/fsmount: in no mount namespace until attached), mode 0555,
// nosuid,nodev,noexec, with an optional size ("64k"). An empty fd when the new mount API is
// unavailable (ENOSYS) or classic mounts are forced; the caller then falls back to mount(2).
Result<unique_fd> detached_tmpfs(const char* size = nullptr);

// The mount point it creates gets `dir_mode` (default 0755).
Result<MountedTmpfs> mount_private_tmpfs(const Root& rootfs, const std::string& container_path,
                                         PathPolicy policy, Journal& journal,
                                         std::optional<mode_t> dir_mode = std::nullopt);

// A writable directory fd of the tmpfs, opened through its verified fd: the path is never
// resolved again.
Result<unique_fd> open_tmpfs_dir(const MountedTmpfs& tmpfs);

}  // namespace nvct::mount
