// Locked read-modify-write of a host config file (spec/ctk.md §2).
#include "nvct/config/locked_edit.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>

#include "nvct/base/file.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct::config {
namespace {

// What identifies one version of the file: a rename by another writer changes the inode, an
// in-place edit the size or mtime.
struct Identity {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  struct timespec mtime {};

  bool operator==(const Identity& o) const {
    return exists == o.exists && dev == o.dev && ino == o.ino && size == o.size &&
           mtime.tv_sec == o.mtime.tv_sec && mtime.tv_nsec == o.mtime.tv_nsec;
  }
};

Result<Identity> identify(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Identity{};
    return fail_errno(fmt::format("stat {}", path));
  }
  return Identity{true, st.st_dev, st.st_ino, st.st_size, st.st_mtim};
}

std::string dir_of(const std::string& path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

std::string lock_path_for(const std::string& path) {
  std::string dir = dir_of(path);
  return fmt::format("{}/.{}.lock", dir == "/" ? "" : dir, strings::basename(path));
}

Status edit_file_locked(
    const std::string& path,
    const std::function<Result<std::string>(const std::optional<std::string>&)>& edit) {
  std::string lock_path = lock_path_for(path);
  unique_fd lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!lock) return fail_errno(fmt::format("open lock file {}", lock_path));
  while (::flock(lock.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return fail_errno(fmt::format("lock {}", lock_path));
  }

  NVCT_ASSIGN_OR_RETURN(Identity before, identify(path));
  std::optional<std::string> current;
  if (before.exists) {
    NVCT_ASSIGN_OR_RETURN(current, read_file(path));
  }
  NVCT_ASSIGN_OR_RETURN(std::string updated, edit(current));

  // A writer that does not take our lock (an editor, another tool) must not be overwritten.
  NVCT_ASSIGN_OR_RETURN(Identity after, identify(path));
  if (!(after == before)) {
    return fail(EAGAIN, fmt::format("update {}: the file changed while it was being edited", path));
  }
  return with_context(write_file_atomic(path, updated), fmt::format("update {}", path));
}

}  // namespace nvct::config
