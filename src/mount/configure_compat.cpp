#include "nvct/mount/configure_compat.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/mount/container_path.hpp"

namespace nvct::mount {
namespace {

constexpr const char* kCompatDir = "/usr/local/cuda/compat";
// An image can hold any number of entries; the reference's glob has no cap, we do.
constexpr std::size_t kMaxCompatEntries = 4096;

std::optional<unsigned long> leading_number(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  if (n == 0 || n > 9) return std::nullopt;
  return std::stoul(std::string(s.substr(0, n)));
}

bool compat_name(std::string_view name) {
  return strings::starts_with(name, "lib") && name.find(".so.") != std::string_view::npos;
}

Result<std::vector<std::string>> list_names(int dirfd) {
  int dup = ::fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
  if (dup < 0) return fail_errno("dup compat dir");
  DIR* d = ::fdopendir(dup);
  if (!d) {
    ::close(dup);
    return fail_errno("read compat dir");
  }
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(d)) {
    if (names.size() >= kMaxCompatEntries) break;
    if (compat_name(e->d_name)) names.emplace_back(e->d_name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

Result<CudaCompatMode> resolve_cuda_compat_mode(const std::vector<std::string>& values,
                                                bool no_cntlibs) {
  bool disabled = no_cntlibs, mount = false, ldconfig = false;
  for (const auto& v : values) {
    if (v == "disabled")
      disabled = true;
    else if (v == "mount")
      mount = true;
    else if (v == "ldconfig")
      ldconfig = true;
    else
      return fail(EINVAL, fmt::format("invalid cuda-compat-mode: {}", v));
  }
  if (disabled) return CudaCompatMode::kDisabled;
  if (mount && ldconfig)
    return fail(EINVAL, "only one cuda-compat-mode can be specified at a time");
  // Mount mode would use files of the image as mount sources; it runs as ldconfig mode.
  if (mount) log::warn("cuda-compat-mode=mount is run as cuda-compat-mode=ldconfig");
  return CudaCompatMode::kLdconfig;
}

std::optional<unsigned long> compat_lib_major(std::string_view name) {
  auto pos = name.find(".so.");
  if (pos == std::string_view::npos) return std::nullopt;
  return leading_number(name.substr(pos + 4));
}

bool compat_lib_is_newer(std::string_view name, std::string_view rm_version) {
  auto lib = compat_lib_major(name);
  auto rm = leading_number(rm_version);
  return lib && rm && *lib > *rm;
}

Result<std::optional<std::string>> compat_ldconfig_folder(const Root& rootfs,
                                                          std::string_view rm_version) {
  auto dir = rootfs.open_in_root(kCompatDir, O_RDONLY | O_DIRECTORY);
  if (!dir) {
    if (dir.error().code() == ENOENT || dir.error().code() == ENOTDIR)
      return std::optional<std::string>();
    return tl::unexpected(dir.error());
  }
  NVCT_ASSIGN_OR_RETURN(std::string dir_path, rootfs.relative_path(dir->get()));
  NVCT_ASSIGN_OR_RETURN(auto names, list_names(dir->get()));
  std::optional<std::string> folder;
  std::vector<std::string> seen;
  for (const auto& name : names) {
    // Each match is taken at its real in-root location (libcuda.so.1 -> libcuda.so.560.35.03).
    auto fd = rootfs.open_in_root(dir_path + "/" + name, O_PATH);
    if (!fd) {
      log::warn("compat lib {}/{}: {}", dir_path, name, fd.error().message());
      continue;
    }
    struct stat st {};
    if (::fstat(fd->get(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    NVCT_ASSIGN_OR_RETURN(std::string real, rootfs.relative_path(fd->get()));
    if (std::find(seen.begin(), seen.end(), real) != seen.end()) continue;
    seen.push_back(real);
    std::string base = basename_of(real);
    if (!compat_lib_is_newer(base, rm_version)) {
      log::info("skipping compat lib {}: not newer than driver {}", real, rm_version);
      continue;
    }
    std::string where = dirname_of(real);
    if (folder && *folder != where)
      return fail(EINVAL,
                  fmt::format("compat libs in more than one folder: {} and {}", *folder, where));
    log::info("selecting compat lib {}", real);
    folder = where;
  }
  return folder;
}

}  // namespace nvct::mount
