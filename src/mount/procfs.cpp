#include "nvct/mount/procfs.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/mount/bind.hpp"
#include "nvct/mount/target.hpp"

namespace nvct::mount {
namespace {

constexpr const char* kContainerDir = "/proc/driver/nvidia";
constexpr std::size_t kMaxProcFile = 1u << 20;

struct ProcFile {
  std::string name;
  std::string content;
  mode_t mode = 0444;
};

// Reads the files before the container is touched; a missing one is skipped with a warning.
Result<std::vector<ProcFile>> read_host_files(const Root& host_root, const std::string& dir) {
  NVCT_ASSIGN_OR_RETURN(unique_fd dirfd, host_root.open_in_root(dir, O_PATH | O_DIRECTORY));
  std::vector<ProcFile> out;
  for (const char* name : {"params", "version", "registry"}) {
    struct stat st {};
    if (::fstatat(dirfd.get(), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT) return fail_errno(fmt::format("stat {}/{}", dir, name));
      log::warn("{}/{} not found; skipping", dir, name);
      continue;
    }
    if (!S_ISREG(st.st_mode))
      return fail(EINVAL, fmt::format("{}/{} is not a regular file", dir, name));
    NVCT_ASSIGN_OR_RETURN(std::string content, read_file_at(dirfd.get(), name, kMaxProcFile));
    if (std::string(name) == "params") content = rewrite_params(std::move(content));
    out.push_back({name, std::move(content), static_cast<mode_t>(st.st_mode & 07777)});
  }
  return out;
}

Status write_files(int dirfd, const std::vector<ProcFile>& files) {
  for (const auto& f : files) {
    unique_fd fd(::openat(dirfd, f.name.c_str(),
                          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, f.mode));
    if (!fd) return fail_errno(fmt::format("create {}", f.name));
    NVCT_TRY(with_context(write_all(fd.get(), f.content), f.name));
    if (::fchmod(fd.get(), f.mode) != 0) return fail_errno(fmt::format("chmod {}", f.name));
  }
  return ok();
}

// A detached tmpfs (fsopen/fsmount) already populated, or an empty fd without the new API.
Result<unique_fd> detached_tmpfs(const std::vector<ProcFile>& files) {
  if (classic_mount_api_forced()) return unique_fd();
  unique_fd fs(::fsopen("tmpfs", FSOPEN_CLOEXEC));
  if (!fs) {
    if (errno == ENOSYS) return unique_fd();
    return fail_errno("fsopen tmpfs");
  }
  if (::fsconfig(fs.get(), FSCONFIG_SET_STRING, "mode", "0555", 0) != 0 ||
      ::fsconfig(fs.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0)
    return fail_errno("configure tmpfs");
  unique_fd mnt(::fsmount(fs.get(), FSMOUNT_CLOEXEC,
                          MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC));
  if (!mnt) {
    if (errno == ENOSYS) return unique_fd();
    return fail_errno("fsmount tmpfs");
  }
  NVCT_TRY(write_files(mnt.get(), files));
  return mnt;
}

Status verify_tmpfs(int top) {
  struct statfs fs {};
  if (::fstatfs(top, &fs) != 0) return fail_errno("statfs procfs tmpfs");
  if (fs.f_type != TMPFS_MAGIC) return fail(EXDEV, "mounted /proc/driver/nvidia is not our tmpfs");
  unsigned long want = ST_NOSUID | ST_NODEV | ST_NOEXEC;
  if ((static_cast<unsigned long>(fs.f_flags) & want) != want)
    return fail(EPERM, "procfs tmpfs lacks nosuid,nodev,noexec");
  return ok();
}

Status mount_tmpfs(const Root& rootfs, const std::vector<ProcFile>& files, Journal& journal) {
  NVCT_ASSIGN_OR_RETURN(unique_fd tmpfs, detached_tmpfs(files));
  NVCT_ASSIGN_OR_RETURN(Target target, create_target(rootfs, kContainerDir, TargetKind::kDirectory,
                                                     PathPolicy::kProcfs, &journal));
  bool classic = !tmpfs;
  if (!classic && ::move_mount(tmpfs.get(), "", target.fd.get(), "",
                               MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0) {
    if (errno != ENOSYS) return fail_errno("move_mount procfs tmpfs");
    classic = true;
  }
  if (classic && ::mount("tmpfs", proc_fd_path(target.fd.get()).c_str(), "tmpfs",
                         MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0555") != 0)
    return fail_errno("mount tmpfs");
  unique_fd top(
      ::openat(target.parent.get(), target.name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!top) return fail_errno("reopen procfs tmpfs");
  NVCT_TRY(journal.record_mount(top.get(), kContainerDir));
  if (classic) {
    if (::mount(nullptr, proc_fd_path(top.get()).c_str(), nullptr, MS_PRIVATE, nullptr) != 0)
      return fail_errno("make procfs tmpfs private");
    NVCT_TRY(verify_tmpfs(top.get()));
    unique_fd dir(::open(proc_fd_path(top.get()).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir) return fail_errno("open procfs tmpfs");
    NVCT_TRY(write_files(dir.get(), files));
  }
  NVCT_TRY(verify_tmpfs(top.get()));
  log::info("mounted tmpfs at {} (nosuid,nodev,noexec,mode=0555)", target.path);
  return ok();
}

// The driver's files go under the container's /proc only when that is a real procfs (the one
// runc mounted): a /proc directory of the image would take the tmpfs and the gpus/ binds and
// then serve its own content beside them (security.md checklist #13).
Status check_container_procfs(const Root& rootfs) {
  NVCT_ASSIGN_OR_RETURN(unique_fd proc, rootfs.open_in_root("/proc", O_PATH | O_DIRECTORY));
  struct statfs fs {};
  if (::fstatfs(proc.get(), &fs) != 0) return fail_errno("statfs /proc in the container");
  if (fs.f_type != PROC_SUPER_MAGIC)
    return fail(EXDEV, fmt::format("/proc in the container is not procfs (filesystem type {:#x}): "
                                   "refusing to mount the driver's procfs files on the image's "
                                   "own /proc",
                                   static_cast<unsigned long>(fs.f_type)));
  return ok();
}

Status mount_gpu_dir(const Root& host_root, const Root& rootfs, const std::string& host_dir,
                     const std::string& bus_id, Journal& journal) {
  std::string id = bus_id;
  auto src = open_source(host_root, host_dir + "/gpus/" + id, SourceKind::kDirectory);
  // The reference falls back to the 16-bit domain form ("0000:17:00.0").
  if (!src && src.error().code() == ENOENT && id.size() > 4) {
    id = bus_id.substr(4);
    src = open_source(host_root, host_dir + "/gpus/" + id, SourceKind::kDirectory);
  }
  if (!src)
    return with_context(Status(tl::unexpected(std::move(src).error())),
                        fmt::format("gpu {}", bus_id));
  edits::MountFlags flags{.read_only = true, .nosuid = true, .nodev = true, .noexec = true};
  return bind_mount(rootfs, *src, std::string(kContainerDir) + "/gpus/" + id, flags,
                    PathPolicy::kProcfs, journal);
}

}  // namespace

std::string rewrite_params(std::string params) {
  static constexpr std::string_view kOn = "ModifyDeviceFiles: 1";
  auto pos = params.find(kOn);
  if (pos != std::string::npos) params[pos + kOn.size() - 1] = '0';
  return params;
}

Status mount_procfs(const Root& host_root, const Root& rootfs, const edits::ProcfsEdit& edit,
                    Journal& journal) {
  auto run = [&]() -> Status {
    NVCT_ASSIGN_OR_RETURN(auto files, read_host_files(host_root, edit.host_proc_dir));
    NVCT_TRY(check_container_procfs(rootfs));
    NVCT_TRY(mount_tmpfs(rootfs, files, journal));
    for (const auto& id : edit.gpu_bus_ids)
      NVCT_TRY(mount_gpu_dir(host_root, rootfs, edit.host_proc_dir, id, journal));
    return ok();
  };
  return with_context(run(), "mount /proc/driver/nvidia");
}

}  // namespace nvct::mount
