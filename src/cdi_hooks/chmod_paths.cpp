#include "nvct/cdi_hooks/chmod_paths.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "nvct/base/log.hpp"
#include "nvct/mount/container_path.hpp"

namespace nvct::cdi_hooks {
namespace {

// /dev entries are allowed for the NVIDIA nodes only (the generated hook targets
// /dev/nvidia-caps); /proc and /sys never; anything else in the rootfs is fine.
mount::PathPolicy policy_for(const std::string& path) {
  return path == "/dev" || path.rfind("/dev/", 0) == 0 ? mount::PathPolicy::kDevice
                                                       : mount::PathPolicy::kDefault;
}

// A chmod goes to the inode, whatever name reached it, so the object must be the container's own
// (security.md row 44): not a file with another name elsewhere (a hard link to a host file), and
// on the rootfs's filesystem, or for /dev paths on the container's /dev (runc's tmpfs); a host
// file bind-mounted into the container has another st_dev and is refused.
Status check_own_object(const mount::Root& rootfs, const std::string& where,
                        const struct stat& st) {
  if (!S_ISDIR(st.st_mode) && st.st_nlink > 1)
    return fail(EMLINK, fmt::format("{} has {} hard links (another name for it may be a host "
                                    "file); its mode is not changed: remove the --path or the "
                                    "extra links",
                                    where, st.st_nlink));
  struct stat root_st {};
  if (::fstat(rootfs.fd(), &root_st) != 0) return fail_errno("stat the container root");
  if (st.st_dev == root_st.st_dev) return ok();
  if (policy_for(where) == mount::PathPolicy::kDevice) {
    auto dev = rootfs.open_in_root("/dev", O_PATH | O_DIRECTORY);
    struct stat dev_st {};
    if (dev && ::fstat(dev->get(), &dev_st) == 0 && st.st_dev == dev_st.st_dev) return ok();
  }
  return fail(EXDEV, fmt::format("{} is on another filesystem (device {}:{}) than the container "
                                 "root ({}:{}), e.g. a host file mounted into the container; its "
                                 "mode is not changed: remove the --path",
                                 where, major(st.st_dev), minor(st.st_dev), major(root_st.st_dev),
                                 minor(root_st.st_dev)));
}

}  // namespace

Result<mode_t> parse_octal_mode(const std::string& text) {
  if (text.empty() || text.size() > 5 || text.find_first_not_of("01234567") != std::string::npos)
    return fail(EINVAL, fmt::format("invalid mode '{}': an octal value is required", text));
  unsigned long v = std::stoul(text, nullptr, 8);
  if (v > 07777) return fail(EINVAL, fmt::format("invalid mode '{}': out of range", text));
  return static_cast<mode_t>(v);
}

Result<int> chmod_paths(const mount::Root& rootfs, mode_t mode,
                        const std::vector<std::string>& paths) {
  auto run = [&]() -> Result<int> {
    int changed = 0;
    for (const auto& p : paths) {
      NVCT_ASSIGN_OR_RETURN(std::string clean, mount::clean_container_path(p, policy_for(p)));
      // Symlinks are followed, but inside the rootfs only.
      auto fd = rootfs.open_in_root(clean, O_PATH);
      if (!fd) {
        if (fd.error().code() == ENOENT) {
          log::warn("chmod: {} does not exist in the container; skipping", clean);
          continue;
        }
        return tl::unexpected(std::move(fd).error());
      }
      NVCT_ASSIGN_OR_RETURN(std::string where, rootfs.relative_path(fd->get()));
      NVCT_TRY(mount::check_resolved_location(where, policy_for(where)));
      struct stat st {};
      if (::fstat(fd->get(), &st) != 0) return fail_errno(fmt::format("stat {}", where));
      if (S_ISLNK(st.st_mode)) continue;
      if ((st.st_mode & 07777) == mode) continue;
      NVCT_TRY(check_own_object(rootfs, where, st));
      // chmod through the fd's magic link: the object the kernel resolved, not a new lookup.
      if (::fchmodat(AT_FDCWD, mount::proc_fd_path(fd->get()).c_str(), mode, 0) != 0) {
        if (errno == EPERM) {
          log::debug("chmod {}: operation not permitted; ignored", where);
          continue;
        }
        return fail_errno(fmt::format("chmod {}", where));
      }
      log::info("changed mode of {} to {:o}", where, mode);
      ++changed;
    }
    return changed;
  };
  return with_context(run(), "chmod");
}

}  // namespace nvct::cdi_hooks
