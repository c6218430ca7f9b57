#include "nvct/mount/tmpfs.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "nvct/base/log.hpp"
#include "nvct/mount/bind.hpp"
#include "nvct/mount/target.hpp"

namespace nvct::mount {
namespace {

// The object at the target must now be a new, private tmpfs mount with the §5 flags: a target
// swapped between resolution and mount would show up here.
Status verify_tmpfs(int top, int parent) {
  struct statfs fs {};
  if (::fstatfs(top, &fs) != 0) return fail_errno("statfs tmpfs");
  if (fs.f_type != TMPFS_MAGIC) return fail(EXDEV, "the mounted directory is not our tmpfs");
  unsigned long want = ST_NOSUID | ST_NODEV | ST_NOEXEC;
  if ((static_cast<unsigned long>(fs.f_flags) & want) != want)
    return fail(EPERM, "tmpfs lacks nosuid,nodev,noexec");
  auto top_id = mount_id_of(top);
  auto parent_id = mount_id_of(parent);
  if (!top_id || !parent_id) return fail(EIO, "cannot read mount ids");
  if (*top_id == *parent_id) return fail(EXDEV, "the directory is not a new mount");
  NVCT_ASSIGN_OR_RETURN(bool priv, mount_is_private(top));
  if (!priv) return fail(EPERM, "tmpfs has shared propagation");
  return ok();
}

}  // namespace

Result<unique_fd> detached_tmpfs(const char* size) {
  if (classic_mount_api_forced()) return unique_fd();
  unique_fd fs(::fsopen("tmpfs", FSOPEN_CLOEXEC));
  if (!fs) {
    if (errno == ENOSYS) return unique_fd();
    return fail_errno("fsopen tmpfs");
  }
  if (::fsconfig(fs.get(), FSCONFIG_SET_STRING, "mode", "0555", 0) != 0 ||
      (size && ::fsconfig(fs.get(), FSCONFIG_SET_STRING, "size", size, 0) != 0) ||
      ::fsconfig(fs.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0)
    return fail_errno("configure tmpfs");
  unique_fd mnt(::fsmount(fs.get(), FSMOUNT_CLOEXEC,
                          MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC));
  if (!mnt) {
    if (errno == ENOSYS) return unique_fd();
    return fail_errno("fsmount tmpfs");
  }
  return mnt;
}

Result<MountedTmpfs> mount_private_tmpfs(const Root& rootfs, const std::string& container_path,
                                         PathPolicy policy, Journal& journal,
                                         std::optional<mode_t> dir_mode) {
  NVCT_ASSIGN_OR_RETURN(unique_fd tmpfs, detached_tmpfs());
  NVCT_ASSIGN_OR_RETURN(Target target, create_target(rootfs, container_path, TargetKind::kDirectory,
                                                     policy, &journal, dir_mode));
  // Attaching under a shared mount copies the tmpfs to every peer at once (possibly the
  // host's), before it can be made private: refuse first, as bind_mount does.
  NVCT_ASSIGN_OR_RETURN(bool parent_private, mount_is_private(target.parent.get()));
  if (!parent_private)
    return fail(EPERM, fmt::format("the mount holding {} has shared propagation: mounting there "
                                   "would propagate to other mount namespaces",
                                   target.path));
  bool classic = !tmpfs;
  if (!classic && ::move_mount(tmpfs.get(), "", target.fd.get(), "",
                               MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0) {
    if (errno != ENOSYS) return fail_errno("move_mount tmpfs");
    classic = true;
  }
  if (classic && ::mount("tmpfs", proc_fd_path(target.fd.get()).c_str(), "tmpfs",
                         MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0555") != 0)
    return fail_errno("mount tmpfs");
  // The fd of the mount's root: the target fd still names the directory underneath.
  unique_fd top(
      ::openat(target.parent.get(), target.name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!top) return fail_errno("reopen the mounted tmpfs");
  NVCT_TRY(journal.record_mount(top.get(), target.path));
  // Private whichever API attached it: a mount under a shared parent would otherwise carry
  // mount events back to the host (toolkit 1.16.2/1.18.0 leaks).
  if (::mount(nullptr, proc_fd_path(top.get()).c_str(), nullptr, MS_PRIVATE, nullptr) != 0)
    return fail_errno("make the tmpfs private");
  NVCT_TRY(verify_tmpfs(top.get(), target.fd.get()));
  log::info("mounted tmpfs at {} (nosuid,nodev,noexec,mode=0555)", target.path);
  return MountedTmpfs{std::move(top), target.path};
}

Result<unique_fd> open_tmpfs_dir(const MountedTmpfs& tmpfs) {
  unique_fd dir(::open(proc_fd_path(tmpfs.fd.get()).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return fail_errno(fmt::format("open the tmpfs at {}", tmpfs.path));
  return dir;
}

}  // namespace nvct::mount
