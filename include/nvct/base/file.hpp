// Whole-file reads and atomic file replacement for host files (config.json, daemon.json, ...).
// Paths inside a container rootfs are never handled here: see mount/ for in-root resolution.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "nvct/base/error.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct {

inline constexpr std::size_t kDefaultMaxFileSize = 16u << 20;

// Opens a file for reading without ever blocking or touching a device (issue 18): the path is
// first opened O_PATH and must be a regular file (a FIFO, socket, device node or directory is
// refused with EINVAL and a message naming its type), then opened O_RDONLY|O_NONBLOCK|O_NOCTTY
// and checked to be the same inode. `flags` may add O_NOFOLLOW. A file whose st_size is past
// max_size fails with EFBIG before a byte is read (procfs files report 0: read_fd caps those).
Result<unique_fd> open_regular_file(int dirfd, const std::string& path,
                                    std::size_t max_size = kDefaultMaxFileSize, int flags = 0);
// "FIFO", "socket", "character device", ... for messages.
const char* file_type_name(mode_t mode);
// Fails with EINVAL unless fd is a regular file (the message names path and its type).
Status check_regular_fd(int fd, const std::string& path);
// Same for a path (symlinks followed), for calls that open by name themselves (dlopen): a FIFO
// given to dlopen blocks it forever. Paths without a '/' (library search) and paths that
// cannot be stat()ed (the caller's open reports those) pass.
Status check_regular_path(const std::string& path);

// Reads a whole regular file (open_regular_file + read_fd). Fails with EFBIG when it is larger
// than max_size.
Result<std::string> read_file(const std::string& path, std::size_t max_size = kDefaultMaxFileSize);
// Reads from an fd until EOF (pipes, stdin). Fails with EFBIG past max_size.
Result<std::string> read_fd(int fd, std::size_t max_size = kDefaultMaxFileSize);
// Reads a regular file relative to a directory fd (O_NOFOLLOW on the last component).
Result<std::string> read_file_at(int dirfd, const std::string& name,
                                 std::size_t max_size = kDefaultMaxFileSize);

struct AtomicWriteOptions {
  // Mode of a new file. An existing file keeps its mode and owner regardless.
  mode_t default_mode = 0644;
  // false: no fsync of the file and the directory (a transient file read at once that no crash
  // needs to survive, e.g. the bundle's config.json the shim rewrites for runc).
  bool durable = true;
  // true: an existing target with more than one hard link is refused (EMLINK) and left as it is
  // (security.md row 44): its other name may be a host file the caller never meant to replace,
  // and a rename would silently split the two. Set by the host config writers (daemon.json,
  // containerd, CRI-O, config.toml --in-place, CDI spec output).
  bool refuse_hard_links = false;
};

// Replaces dir/name atomically: a temp file ".<name>.XXXXXX" in the same directory (O_EXCL),
// full write, fsync, renameat over the target, fsync of the directory. An existing target's
// mode, owner and extended attributes (its SELinux label security.selinux, ACLs, user.*) are
// kept; a label that cannot be copied is an error. On any error the temp file is removed and the
// target is untouched.
Status write_file_atomic_at(int dirfd, const std::string& name, std::string_view content,
                            AtomicWriteOptions options = {});
// Same for a path: the directory is opened and the basename replaced.
Status write_file_atomic(const std::string& path, std::string_view content,
                         AtomicWriteOptions options = {});

// Removes the temp files ".<name>.XXXXXX" that write_file_atomic_at leaves when its process is
// killed with SIGKILL between create and rename (issue 18). A temp file is removed when the
// writer pid in its name is gone, or when it is older than min_age_s (names without a pid, pid
// reuse), so a concurrent writer's live temp file survives. Returns how many were removed;
// errors are ignored (best effort, the next write tries again). write_file_atomic_at calls it.
int remove_stale_temp_files(int dirfd, const std::string& name, int min_age_s = 60);

// Writes all bytes, retrying on EINTR and short writes.
Status write_all(int fd, std::string_view data);

}  // namespace nvct
