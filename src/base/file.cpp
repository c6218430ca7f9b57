#include "nvct/base/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <random>

#include "nvct/base/signal_cleanup.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct {

Result<std::string> read_fd(int fd, std::size_t max_size) {
  std::string out;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail_errno("read");
    }
    if (n == 0) return out;
    if (out.size() + static_cast<std::size_t>(n) > max_size)
      return fail(EFBIG, fmt::format("input larger than {} bytes", max_size));
    out.append(buf, static_cast<std::size_t>(n));
  }
}

Result<std::string> read_file(const std::string& path, std::size_t max_size) {
  unique_fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return fail_errno(fmt::format("open {}", path));
  return with_context(read_fd(fd.get(), max_size), path);
}

Result<std::string> read_file_at(int dirfd, const std::string& name, std::size_t max_size) {
  unique_fd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd) return fail_errno(fmt::format("open {}", name));
  return with_context(read_fd(fd.get(), max_size), name);
}

Status write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail_errno("write");
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return ok();
}

namespace {

std::string random_suffix() {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device rd;
  std::string s(6, 'x');
  for (auto& c : s) c = kChars[rd() % (sizeof kChars - 1)];
  return s;
}

}  // namespace

Status write_file_atomic_at(int dirfd, const std::string& name, std::string_view content,
                            AtomicWriteOptions options) {
  struct stat existing {};
  bool have_existing = ::fstatat(dirfd, name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0;
  if (have_existing && !S_ISREG(existing.st_mode))
    return fail(EINVAL, fmt::format("replace {}: not a regular file", name));
  mode_t mode = have_existing ? (existing.st_mode & 07777) : options.default_mode;

  std::string tmp;
  unique_fd fd;
  for (int attempt = 0; attempt < 16 && !fd; ++attempt) {
    tmp = fmt::format(".{}.{}", name, random_suffix());
    fd.reset(
        ::openat(dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode));
    if (!fd && errno != EEXIST)
      return fail_errno(fmt::format("create temporary file for {}", name));
  }
  if (!fd)
    return fail(EEXIST, fmt::format("create temporary file for {}: too many collisions", name));

  CleanupOnSignal on_signal(dirfd, tmp);  // a SIGTERM before the rename removes it too
  auto cleanup_fail = [&](tl::unexpected<Error> e) {
    ::unlinkat(dirfd, tmp.c_str(), 0);
    return e;
  };
  // The umask may have narrowed the mode; an existing file also keeps its owner.
  if (::fchmod(fd.get(), mode) != 0) return cleanup_fail(fail_errno(fmt::format("chmod {}", tmp)));
  if (have_existing && ::fchown(fd.get(), existing.st_uid, existing.st_gid) != 0 && errno != EPERM)
    return cleanup_fail(fail_errno(fmt::format("chown {}", tmp)));
  if (auto st = write_all(fd.get(), content); !st)
    return cleanup_fail(
        tl::unexpected(std::move(st.error().context(fmt::format("write {}", tmp)))));
  if (::fsync(fd.get()) != 0) return cleanup_fail(fail_errno(fmt::format("fsync {}", tmp)));
  fd.reset();
  if (::renameat(dirfd, tmp.c_str(), dirfd, name.c_str()) != 0)
    return cleanup_fail(fail_errno(fmt::format("rename {} to {}", tmp, name)));
  on_signal.release();
  ::fsync(dirfd);
  return ok();
}

Status write_file_atomic(const std::string& path, std::string_view content,
                         AtomicWriteOptions options) {
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty()) return fail(EINVAL, fmt::format("write {}: not a file path", path));
  unique_fd dirfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dirfd) return fail_errno(fmt::format("open directory {}", dir));
  return with_context(write_file_atomic_at(dirfd.get(), name, content, options),
                      fmt::format("write {}", path));
}

}  // namespace nvct
