#include "nvct/mount/in_root.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>

#include "nvct/base/log.hpp"

namespace nvct::mount {
namespace {

// EAGAIN from openat2 means a concurrent rename or mount raced the lookup; retry a bounded
// number of times (runc and pathrs-lite do the same).
constexpr int kEagainRetries = 128;

std::atomic<bool> g_force_fallback{false};
// Only ENOSYS is cached: a seccomp filter installed later can still turn a working openat2
// into EPERM/ENOSYS, so success is never cached (pathrs-lite 0.5.2 lesson).
std::atomic<bool> g_openat2_missing{false};
std::atomic<std::uint64_t> g_fallback_count{0};

}  // namespace

Result<Root> Root::open(const std::string& path) {
  auto r = open_allow_host_root(path);
  if (r && r->path() == "/") return fail(EINVAL, fmt::format("root {} is the host root", path));
  return r;
}

Result<Root> Root::open_allow_host_root(const std::string& path) {
  if (path.empty() || path[0] != '/')
    return fail(EINVAL, fmt::format("root {} is not absolute", path));
  unique_fd fd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return fail_errno(fmt::format("open root {}", path));
  NVCT_ASSIGN_OR_RETURN(std::string real, fd_path(fd.get()));
  return Root(std::move(fd), std::move(real));
}

std::string proc_fd_path(int fd) { return fmt::format("/proc/thread-self/fd/{}", fd); }

Result<std::string> fd_path(int fd) {
  char buf[PATH_MAX + 1];
  std::string link = proc_fd_path(fd);
  ssize_t n = ::readlink(link.c_str(), buf, PATH_MAX);
  if (n < 0) return fail_errno(fmt::format("readlink {}", link));
  std::string out(buf, static_cast<std::size_t>(n));
  // A deleted or unreachable object is reported with a suffix or without a leading '/'.
  if (out.empty() || out[0] != '/')
    return fail(EXDEV,
                fmt::format("fd {} is not reachable from this mount namespace: {}", fd, out));
  return out;
}

Result<std::string> Root::relative_path(int fd) const {
  NVCT_ASSIGN_OR_RETURN(std::string p, fd_path(fd));
  if (path_ == "/") return p;
  if (p == path_) return std::string("/");
  if (p.size() > path_.size() && p.compare(0, path_.size(), path_) == 0 && p[path_.size()] == '/')
    return p.substr(path_.size());
  return fail(EXDEV, fmt::format("{} is outside of root {}", p, path_));
}

Result<unique_fd> Root::open_in_root(const std::string& path, int flags) const {
  if (path.find('\0') != std::string::npos) return fail(EINVAL, "path contains NUL");
  if (!g_force_fallback.load() && !g_openat2_missing.load()) {
    open_how how{};
    how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    int err = EAGAIN;
    for (int attempt = 0; attempt < kEagainRetries && (err == EAGAIN || err == EINTR); ++attempt) {
      long fd = ::syscall(SYS_openat2, fd_.get(), path.c_str(), &how, sizeof how);
      if (fd >= 0) return unique_fd(static_cast<int>(fd));
      err = errno;
    }
    // Only "openat2 unusable" falls back; any other error is the answer, or an attacker could
    // force the weaker walker (downgrade; pathrs-lite).
    if (err == ENOSYS) g_openat2_missing.store(true);
    if (err != ENOSYS && err != EPERM)
      return fail_errno(fmt::format("open {} in root {}", path, path_), err);
  }
  // Once per process, so the security tests can prove which resolver a run really used.
  if (g_fallback_count.fetch_add(1) == 0)
    log::debug("resolving paths in root {} with the userspace walker ({})", path_,
               g_force_fallback.load() ? "fallback forced" : "openat2 unavailable");
  return with_context(resolve_with_walker(*this, path, flags),
                      fmt::format("open {} in root {}", path, path_));
}

void force_openat2_fallback(bool on) { g_force_fallback.store(on); }
std::uint64_t fallback_resolution_count() { return g_fallback_count.load(); }

}  // namespace nvct::mount
