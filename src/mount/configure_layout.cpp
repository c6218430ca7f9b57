#include "nvct/mount/configure_layout.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <optional>

namespace nvct::mount {
namespace {

// The (dev, ino) of an in-root path, or nullopt when it does not exist. Only O_PATH opens: the
// image controls these paths and may have planted a FIFO or device.
Result<std::optional<std::pair<dev_t, ino_t>>> identity(const Root& rootfs, const std::string& p) {
  auto fd = rootfs.open_in_root(p, O_PATH);
  if (!fd) {
    int code = fd.error().code();
    if (code == ENOENT || code == ENOTDIR || code == ELOOP)
      return std::optional<std::pair<dev_t, ino_t>>();
    return tl::unexpected(fd.error());
  }
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return fail_errno(fmt::format("stat {}", p));
  return std::optional<std::pair<dev_t, ino_t>>(std::make_pair(st.st_dev, st.st_ino));
}

std::string host_machine() {
  struct utsname u {};
  if (::uname(&u) != 0) return "x86_64";
  return u.machine;
}

}  // namespace

Result<edits::ContainerLayout> choose_container_layout(const Root& rootfs,
                                                       std::string_view machine) {
  std::string arch = machine.empty() ? host_machine() : std::string(machine);
  edits::ContainerLayout layout;
  layout.bins_dir = "/usr/bin";
  NVCT_ASSIGN_OR_RETURN(auto debian, identity(rootfs, "/etc/debian_version"));
  if (debian) {
    if (arch == "aarch64") {
      layout.libs_dir = "/usr/lib/aarch64-linux-gnu";
      layout.libs32_dir = "/var/empty";
    } else if (arch == "ppc64le") {
      layout.libs_dir = "/usr/lib/powerpc64le-linux-gnu";
      layout.libs32_dir = "/var/empty";
    } else {
      layout.libs_dir = "/usr/lib/x86_64-linux-gnu";
      layout.libs32_dir = "/usr/lib/i386-linux-gnu";
    }
    return layout;
  }
  layout.libs_dir = "/usr/lib64";
  layout.libs32_dir = "/usr/lib32";
  NVCT_ASSIGN_OR_RETURN(auto lib32, identity(rootfs, "/usr/lib32"));
  if (lib32) return layout;
  // /usr/lib serves as libs32 unless it is the libs dir itself (/usr/lib64 -> lib images).
  NVCT_ASSIGN_OR_RETURN(auto lib, identity(rootfs, "/usr/lib"));
  NVCT_ASSIGN_OR_RETURN(auto lib64, identity(rootfs, layout.libs_dir));
  if (lib && lib != lib64) layout.libs32_dir = "/usr/lib";
  return layout;
}

}  // namespace nvct::mount
