#include "nvct/cdi_hooks/cuda_compat.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/random_name.hpp"
#include "nvct/mount/container_path.hpp"
#include "nvct/mount/target.hpp"

namespace nvct::cdi_hooks {
namespace {

constexpr std::size_t kMaxDirEntries = 4096;

// "12.8.1" -> {12, 8, 1}; nullopt when a component is not a number.
std::optional<std::vector<unsigned long>> parse_version(const std::string& text) {
  std::vector<unsigned long> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('.', start);
    if (end == std::string::npos) end = text.size();
    std::string part = text.substr(start, end - start);
    if (part.empty() || part.size() > 9 ||
        part.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    out.push_back(std::stoul(part));
    start = end + 1;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

// The "libcuda.so.*.*" entries of the compat dir (the reference's glob, done on a dir fd).
Result<std::vector<std::string>> compat_libraries(int dirfd) {
  int dup = ::fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
  if (dup < 0) return fail_errno("dup compat dir");
  DIR* d = ::fdopendir(dup);
  if (!d) {
    ::close(dup);
    return fail_errno("list compat dir");
  }
  std::vector<std::string> out;
  std::size_t seen = 0;
  static constexpr std::string_view kPrefix = "libcuda.so.";
  while (dirent* e = ::readdir(d)) {
    if (++seen > kMaxDirEntries) break;
    std::string_view name = e->d_name;
    if (name.substr(0, kPrefix.size()) != kPrefix) continue;
    std::string_view rest = name.substr(kPrefix.size());
    if (rest.find('.') == std::string_view::npos) continue;
    out.emplace_back(name);
  }
  ::closedir(d);
  return out;
}

std::string random_id() {
  return fmt::format("{}-{}-{}", random_hex(8), random_hex(4), random_hex(4));
}

}  // namespace

bool compat_is_newer(const std::string& compat_lib_version,
                     const std::optional<std::string>& compat_cuda_version,
                     const CudaCompatOptions& options) {
  if (compat_cuda_version && !options.host_cuda_version.empty()) {
    auto compat = parse_version(*compat_cuda_version);
    auto host = parse_version(options.host_cuda_version);
    if (compat && host) return *compat > *host;
  }
  if (options.host_driver_version.empty()) return false;
  auto compat = parse_version(compat_lib_version);
  auto host = parse_version(options.host_driver_version);
  if (!compat || !host) return false;
  return compat->front() > host->front();
}

Result<std::optional<std::string>> enable_cuda_compat(const mount::Root& rootfs,
                                                      const CudaCompatOptions& options) {
  using Out = std::optional<std::string>;
  auto run = [&]() -> Result<Out> {
    if (options.host_driver_version.empty() && options.host_cuda_version.empty()) return Out();
    NVCT_ASSIGN_OR_RETURN(
        std::string compat_root,
        mount::clean_container_path(options.compat_container_root, mount::PathPolicy::kDefault));
    auto dir = rootfs.open_in_root(compat_root, O_RDONLY | O_DIRECTORY);
    if (!dir) {
      if (dir.error().code() == ENOENT || dir.error().code() == ENOTDIR) return Out();
      return tl::unexpected(std::move(dir).error());
    }
    NVCT_ASSIGN_OR_RETURN(std::string dir_in_root, rootfs.relative_path(dir->get()));
    NVCT_ASSIGN_OR_RETURN(std::vector<std::string> libs, compat_libraries(dir->get()));
    if (libs.size() != 1) {
      log::debug("{} holds {} libcuda.so.*.* files; cuda compat not enabled", dir_in_root,
                 libs.size());
      return Out();
    }
    // A symlinked library is followed in-root; only a regular file is opened for reading.
    NVCT_ASSIGN_OR_RETURN(unique_fd lib, rootfs.open_in_root(dir_in_root + "/" + libs[0], O_PATH));
    struct stat st {};
    if (::fstat(lib.get(), &st) != 0) return fail_errno(fmt::format("stat {}", libs[0]));
    if (!S_ISREG(st.st_mode)) return fail(EINVAL, fmt::format("{} is not a regular file", libs[0]));
    unique_fd readable(::open(mount::proc_fd_path(lib.get()).c_str(), O_RDONLY | O_CLOEXEC));
    if (!readable) return fail_errno(fmt::format("open {}", libs[0]));
    auto note = read_compat_cuda_version(readable.get());
    std::optional<std::string> cuda_version;
    if (note)
      cuda_version = *note;
    else
      log::debug("no CUDA version note in {}: {}", libs[0], note.error().message());
    std::string lib_version = libs[0].substr(std::string("libcuda.so.").size());
    if (!compat_is_newer(lib_version, cuda_version, options)) {
      log::debug("compat libcuda {} is not newer than the host driver", lib_version);
      return Out();
    }
    NVCT_ASSIGN_OR_RETURN(unique_fd conf_dir,
                          mount::mkdir_all_in_root(rootfs, "/etc/ld.so.conf.d"));
    NVCT_ASSIGN_OR_RETURN(std::string conf_in_root, rootfs.relative_path(conf_dir.get()));
    std::string name = fmt::format("00-compat-{}.conf", random_id());
    NVCT_TRY(
        mount::check_resolved_location(conf_in_root + "/" + name, mount::PathPolicy::kDefault));
    unique_fd f(::openat(conf_dir.get(), name.c_str(),
                         O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!f) return fail_errno(fmt::format("create {}", name));
    if (::fchmod(f.get(), 0644) != 0) return fail_errno(fmt::format("chmod {}", name));
    NVCT_TRY(with_context(write_all(f.get(), dir_in_root + "\n"), fmt::format("write {}", name)));
    std::string path = conf_in_root + "/" + name;
    log::info("enabled CUDA forward compatibility: {} lists {}", path, dir_in_root);
    return Out(path);
  };
  return with_context(run(), "enable-cuda-compat");
}

}  // namespace nvct::cdi_hooks
