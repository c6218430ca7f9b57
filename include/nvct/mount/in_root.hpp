// Resolution of paths inside a container rootfs (or a driver root), always by the kernel
// relative to a root fd (mount.md §14). Nothing here turns an in-root path into a host string
// that is later opened: callers get fds and keep working on fds.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "nvct/base/error.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct::mount {

// A root directory held as an O_PATH fd, with the path the kernel reports for it (the
// reference for "is this fd inside the root" checks).
class Root {
 public:
  // Opens `path` (absolute; "/" is refused) as O_PATH|O_DIRECTORY.
  static Result<Root> open(const std::string& path);
  // Same, but "/" is allowed (a driver root is "/" by default).
  static Result<Root> open_allow_host_root(const std::string& path);

  int fd() const { return fd_.get(); }
  // The kernel's view of the root, from /proc/thread-self/fd (symlinks in `path` resolved).
  const std::string& path() const { return path_; }

  // Opens `path` (interpreted relative to the root; absolute symlinks and `..` stay inside it).
  // openat2(RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS); the userspace walker only when openat2
  // fails with ENOSYS or EPERM. O_NOFOLLOW in flags means a trailing symlink is not followed.
  Result<unique_fd> open_in_root(const std::string& path, int flags) const;

  // The path of `fd` relative to the root ("/usr/lib"), or EXDEV when it is not inside it.
  Result<std::string> relative_path(int fd) const;

 private:
  Root(unique_fd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  unique_fd fd_;
  std::string path_;
};

// The path the kernel reports for an fd (readlink of /proc/thread-self/fd/N).
Result<std::string> fd_path(int fd);
// "/proc/thread-self/fd/N", for syscalls that take a path to an fd's object.
std::string proc_fd_path(int fd);

// Test switch: resolve with the userspace walker even when openat2 works (security.md #48).
void force_openat2_fallback(bool on);
// How many resolutions went through the walker since the start (tests assert the fallback ran).
std::uint64_t fallback_resolution_count();

// The userspace walker of mount.md §14.3, exposed for tests.
Result<unique_fd> resolve_with_walker(const Root& root, const std::string& path, int flags);

}  // namespace nvct::mount
