#include "nvct/cdi_hooks/device_node_modification.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/mount/bind.hpp"
#include "nvct/mount/journal.hpp"
#include "nvct/mount/procfs.hpp"
#include "nvct/mount/tmpfs.hpp"

namespace nvct::cdi_hooks {
namespace {

constexpr std::size_t kMaxParams = 1u << 20;
const edits::MountFlags kParamsFlags{
    .read_only = true, .nosuid = true, .nodev = true, .noexec = true};

Status write_params(int dirfd, const std::string& content) {
  unique_fd f(
      ::openat(dirfd, "params", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444));
  if (!f) return fail_errno("create params copy");
  NVCT_TRY(write_all(f.get(), content));
  if (::fchmod(f.get(), 0444) != 0) return fail_errno("chmod params copy");
  return ok();
}

// Without the new mount API (or a kernel that cannot clone from a detached mount) the tmpfs is
// attached on a private temporary directory of the hook's mount namespace, outside the rootfs
// (a source inside the rootfs is never mounted), and taken down again after the bind.
class StagingDir {
 public:
  ~StagingDir() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
    if (!path_.empty()) ::rmdir(path_.c_str());
  }
  Result<unique_fd> mount_tmpfs() {
    char tmpl[] = "/tmp/nvct-params-XXXXXX";
    if (!::mkdtemp(tmpl)) return fail_errno("create staging directory");
    path_ = tmpl;
    if (::mount("tmpfs", path_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                "mode=0555,size=64k") != 0)
      return fail_errno("mount staging tmpfs");
    mounted_ = true;
    if (::mount(nullptr, path_.c_str(), nullptr, MS_PRIVATE, nullptr) != 0)
      return fail_errno("make staging tmpfs private");
    unique_fd dir(::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir) return fail_errno("open staging tmpfs");
    return dir;
  }

 private:
  std::string path_;
  bool mounted_ = false;
};

Result<mount::Source> params_source(int dirfd) {
  mount::Source src;
  src.kind = mount::SourceKind::kFile;
  src.host_path = "tmpfs:params";
  src.fd.reset(::openat(dirfd, "params", O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!src.fd) return fail_errno("open params copy");
  if (::fstat(src.fd.get(), &src.st) != 0) return fail_errno("stat params copy");
  return src;
}

Status bind_params(const mount::Root& rootfs, const std::string& content) {
  mount::Journal journal;
  auto attempt = [&](int dirfd) -> Status {
    NVCT_ASSIGN_OR_RETURN(mount::Source src, params_source(dirfd));
    return mount::bind_mount(rootfs, src, kParamsPath, kParamsFlags, mount::PathPolicy::kProcfs,
                             journal);
  };
  // Preferred source: a detached tmpfs, in no mount namespace at all, so nothing is visible
  // anywhere until it is attached over the target.
  NVCT_ASSIGN_OR_RETURN(unique_fd detached, mount::detached_tmpfs("64k"));
  if (detached) {
    NVCT_TRY(write_params(detached.get(), content));
    Status s = attempt(detached.get());
    // Kernels before 6.15 refuse to clone or bind from a detached mount (EINVAL).
    if (s || s.error().code() != EINVAL) {
      if (!s) (void)journal.rollback();
      return s;
    }
    (void)journal.rollback();
    log::debug("detached tmpfs cannot be a bind source here; using a staging directory");
  }
  StagingDir staging;
  NVCT_ASSIGN_OR_RETURN(unique_fd dir, staging.mount_tmpfs());
  NVCT_TRY(write_params(dir.get(), content));
  Status s = attempt(dir.get());
  if (!s) (void)journal.rollback();
  return s;
}

}  // namespace

Result<ParamsOutcome> disable_device_node_modification(const mount::Root& host_root,
                                                       const std::string& host_params,
                                                       const mount::Root& rootfs) {
  auto run = [&]() -> Result<ParamsOutcome> {
    // The host's file, never the container's /proc (an image can fake it; checklist #13).
    auto fd = host_root.open_in_root(host_params, O_RDONLY | O_NOFOLLOW);
    if (!fd) {
      if (fd.error().code() == ENOENT) {
        log::debug("{} not found; nothing to do", host_params);
        return ParamsOutcome::kNoHostParams;
      }
      return tl::unexpected(std::move(fd).error());
    }
    struct stat st {};
    if (::fstat(fd->get(), &st) != 0 || !S_ISREG(st.st_mode))
      return fail(EINVAL, fmt::format("{} is not a regular file", host_params));
    NVCT_ASSIGN_OR_RETURN(std::string params, read_fd(fd->get(), kMaxParams));
    std::string modified = mount::rewrite_params(params);
    if (modified == params) {
      log::debug("ModifyDeviceFiles is not enabled in {}; nothing to do", host_params);
      return ParamsOutcome::kAlreadyDisabled;
    }
    NVCT_TRY(bind_params(rootfs, modified));
    log::info("mounted {} with ModifyDeviceFiles: 0", kParamsPath);
    return ParamsOutcome::kMounted;
  };
  return with_context(run(), "disable-device-node-modification");
}

}  // namespace nvct::cdi_hooks
