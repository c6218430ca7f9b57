#include "nvct/mount/journal.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvct/base/log.hpp"
#include "nvct/mount/in_root.hpp"

namespace nvct::mount {
namespace {

Result<unique_fd> dup_fd(int fd) {
  unique_fd out(::fcntl(fd, F_DUPFD_CLOEXEC, 3));
  if (!out) return fail_errno("dup fd for rollback journal");
  return out;
}

Status undo(Journal::Entry& e) {
  if (e.kind == Journal::Kind::kMount) {
    // The magic link names exactly the mount we made, whatever happened to the path since.
    if (::umount2(proc_fd_path(e.fd.get()).c_str(), MNT_DETACH) != 0)
      return fail_errno(fmt::format("unmount {}", e.name));
    log::info("rolled back mount {}", e.name);
    return ok();
  }
  struct stat st {};
  if (::fstatat(e.fd.get(), e.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return ok();
    return fail_errno(fmt::format("stat {} for rollback", e.name));
  }
  if (st.st_dev != e.dev || st.st_ino != e.ino) {
    // Something else now sits at the name: not ours to delete.
    log::warn("not removing {}: it was replaced since it was created", e.name);
    return ok();
  }
  int flags = e.kind == Journal::Kind::kDirectory ? AT_REMOVEDIR : 0;
  if (::unlinkat(e.fd.get(), e.name.c_str(), flags) != 0) {
    // A directory someone else filled is left in place (only empty ones are ours to remove).
    if (errno == ENOTEMPTY || errno == EEXIST) return ok();
    return fail_errno(fmt::format("remove {}", e.name));
  }
  log::info("rolled back created {}", e.name);
  return ok();
}

}  // namespace

Status Journal::record_created(Kind kind, int parent_fd, const std::string& name) {
  struct stat st {};
  if (::fstatat(parent_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return fail_errno(fmt::format("stat created {}", name));
  NVCT_ASSIGN_OR_RETURN(unique_fd fd, dup_fd(parent_fd));
  entries_.push_back(Entry{kind, std::move(fd), name, st.st_dev, st.st_ino});
  return ok();
}

void Journal::forget_dirs_if_directory(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) forget_dirs();
}

int Journal::known_dir(const std::string& path) const {
  auto it = dirs_.find(path);
  return it == dirs_.end() ? -1 : it->second.get();
}

Status Journal::remember_dir(const std::string& path, int fd) {
  NVCT_ASSIGN_OR_RETURN(unique_fd copy, dup_fd(fd));
  dirs_[path] = std::move(copy);
  return ok();
}

std::optional<Journal::DirMount> Journal::known_dir_mount(const std::string& in_root) const {
  auto it = dir_mounts_.find(in_root);
  if (it == dir_mounts_.end()) return std::nullopt;
  return it->second;
}

Status Journal::record_mount(int mount_root_fd, const std::string& description) {
  forget_dirs_if_directory(mount_root_fd);
  NVCT_ASSIGN_OR_RETURN(unique_fd fd, dup_fd(mount_root_fd));
  entries_.push_back(Entry{Kind::kMount, std::move(fd), description, 0, 0});
  return ok();
}

int Journal::adopt_mount(unique_fd mount_root, const std::string& description, bool directory) {
  int fd = mount_root.get();
  if (directory) forget_dirs();
  entries_.push_back(Entry{Kind::kMount, std::move(mount_root), description, 0, 0});
  return fd;
}

Status Journal::rollback() {
  forget_dirs();
  Status first = ok();
  while (!entries_.empty()) {
    Status s = undo(entries_.back());
    if (!s && first) first = std::move(s);
    entries_.pop_back();
  }
  return first;
}

}  // namespace nvct::mount
