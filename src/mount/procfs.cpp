#include "nvct/mount/procfs.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/mount/bind.hpp"
#include "nvct/mount/tmpfs.hpp"

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

Status mount_tmpfs(const Root& rootfs, const std::vector<ProcFile>& files, Journal& journal) {
  NVCT_ASSIGN_OR_RETURN(MountedTmpfs tmpfs,
                        mount_private_tmpfs(rootfs, kContainerDir, PathPolicy::kProcfs, journal));
  NVCT_ASSIGN_OR_RETURN(unique_fd dir, open_tmpfs_dir(tmpfs));
  return write_files(dir.get(), files);
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
