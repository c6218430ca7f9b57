// Bind mounts of host objects into a rootfs (mount.md §14.2 steps 1-8): the source is opened
// and checked before the container is touched, cloned into a detached private mount with its
// flags already set (open_tree + mount_setattr), and attached onto the target fd (move_mount).
// Without the new mount API: a classic bind through /proc/thread-self/fd, then remount and
// MS_PRIVATE. Nothing under the rootfs is ever a mount source.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "nvct/base/error.hpp"
#include "nvct/base/unique_fd.hpp"
#include "nvct/edits/edits.hpp"
#include "nvct/mount/container_path.hpp"
#include "nvct/mount/in_root.hpp"
#include "nvct/mount/journal.hpp"

namespace nvct::mount {

enum class SourceKind { kFile, kDirectory, kCharDevice, kBlockDevice, kSocket };

struct Source {
  unique_fd fd;  // O_PATH|O_NOFOLLOW
  SourceKind kind = SourceKind::kFile;
  struct stat st {};
  std::string host_path;
};

// Opens `host_path` inside `host_root` (the driver root) without following a final symlink and
// checks it: files root-owned and not group/other-writable, directories, sockets, devices of
// the right type with st_rdev == expected_rdev.
//
// `opened`: sources opened ahead (O_PATH|O_NOFOLLOW, in this mount namespace, inside the same
// root) with their fstat, by host path. One found there is taken out and checked instead of
// opening the path again: the configure child has pinned every source in the container's mount
// namespace and checked each against the host's before mounting anything.
struct OpenedSource {
  unique_fd fd;
  struct stat st {};
};
using OpenedSources = std::unordered_map<std::string, OpenedSource>;

Result<Source> open_source(const Root& host_root, const std::string& host_path, SourceKind kind,
                           std::optional<dev_t> expected_rdev = std::nullopt,
                           OpenedSources* opened = nullptr);
// The two halves of open_source. open_host_object: the entry of `opened` for host_path (taken
// out), else host_path opened O_PATH|O_NOFOLLOW inside host_root, with its fstat.
// check_source: the checks above on that object.
Result<OpenedSource> open_host_object(const Root& host_root, const std::string& host_path,
                                      OpenedSources* opened = nullptr);
Result<Source> check_source(OpenedSource object, const std::string& host_path, SourceKind kind,
                            std::optional<dev_t> expected_rdev);

// Mounts `source` at `container_path` in `rootfs` with `flags`, private, journaled.
Status bind_mount(const Root& rootfs, const Source& source, const std::string& container_path,
                  const edits::MountFlags& flags, PathPolicy policy, Journal& journal);

// A driver file of the edits (library, binary, firmware, IPC, directory).
Status mount_file(const Root& host_root, const Root& rootfs, const edits::FileMount& file,
                  Journal& journal, OpenedSources* opened = nullptr);
// A device node of the edits: the host node must match type and major:minor.
Status mount_device(const Root& host_root, const Root& rootfs, const edits::DeviceNode& node,
                    Journal& journal, OpenedSources* opened = nullptr);

// Test switch: use the classic mount(2) path even when open_tree/move_mount work.
void force_classic_mount_api(bool on);
bool classic_mount_api_forced();
// Mounts done through the classic path since the start.
std::uint64_t classic_mount_count();

// What the checks around a mount need of `fd`: its inode, the id of the mount it is on, and
// whether that mount has no shared propagation (statmount(2) where the kernel has it, else
// /proc/thread-self/mountinfo). One statx, then statx for the unique id and one statmount.
struct MountState {
  dev_t dev = 0;
  ino_t ino = 0;
  std::uint64_t mount_id = 0;  // statx STATX_MNT_ID
  bool is_private = false;
  // MOUNT_ATTR_* of the mount, where statmount(2) told them (Linux 6.8).
  std::optional<std::uint64_t> mnt_attr;
};
Result<MountState> mount_state(int fd);

// Whether the mount `fd` is on has no shared propagation: statmount(2) where the kernel has it,
// else /proc/thread-self/mountinfo.
Result<bool> mount_is_private(int fd);
// The two ways separately (tests): nullopt when statmount is unavailable or its reply is not
// about this mount.
std::optional<bool> mount_is_private_statmount(int fd);
Result<bool> mount_is_private_mountinfo(int fd);
// The mount id of the mount `fd` is on (statx STATX_MNT_ID).
Result<std::uint64_t> mount_id_of(int fd);

}  // namespace nvct::mount
