#include "nvct/driver/driver_root.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <deque>

#include "nvct/base/file.hpp"
#include "nvct/base/strings.hpp"

namespace nvct::driver {
namespace {

constexpr int kMaxSymlinks = 40;

}  // namespace

std::string normalize_path(std::string_view path) {
  // One string, no per-component allocation: every open in the driver root goes through here.
  std::string out;
  out.reserve(path.size() + 1);
  for (std::size_t start = 0; start <= path.size();) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view c = path.substr(start, slash - start);
    start = slash + 1;
    if (c.empty() || c == ".") continue;
    out += '/';
    out += c;
  }
  if (out.empty()) out = "/";
  return out;
}

Result<DriverRoot> DriverRoot::open(std::string path) {
  // Trailing slashes are dropped ("/" stays "/").
  auto last = path.find_last_not_of('/');
  path = last == std::string::npos ? std::string("/") : path.substr(0, last + 1);
  unique_fd fd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return fail_errno(fmt::format("open driver root {}", path));
  return DriverRoot(std::move(path), std::move(fd));
}

std::string DriverRoot::host_path(std::string_view rel) const {
  std::string n = normalize_path(rel);
  if (path_ == "/") return n;
  return n == "/" ? path_ : path_ + n;
}

Result<std::string> DriverRoot::resolve(std::string_view path) const {
  // Called for every ld.so.cache entry and binary candidate of every discovery: the walk keeps
  // the resolved prefix as one root-relative string ("" for the root) and the components still to
  // walk as views (into `path`, or into link targets kept in `targets`), so a step allocates
  // nothing unless it reads a link.
  std::vector<std::string_view> todo;  // last first, so that link targets can be pushed in front
  auto push_components = [&todo](std::string_view text) {
    std::size_t end = text.size();
    while (end > 0) {
      std::size_t slash = text.rfind('/', end - 1);
      std::size_t begin = slash == std::string_view::npos ? 0 : slash + 1;
      std::string_view c = text.substr(begin, end - begin);
      if (!c.empty() && c != ".") todo.push_back(c);
      if (slash == std::string_view::npos) break;
      end = slash;
    }
  };
  push_components(path);
  std::deque<std::string> targets;
  std::string rel;                  // the resolved prefix, components joined by '/'
  std::vector<std::size_t> starts;  // where each component of rel starts
  auto pop = [&] {
    rel.resize(starts.back() == 0 ? 0 : starts.back() - 1);
    starts.pop_back();
  };
  auto shown = [&] { return "/" + rel; };
  int links = 0;
  while (!todo.empty()) {
    std::string_view c = todo.back();
    todo.pop_back();
    if (c == "..") {
      if (!starts.empty()) pop();  // ".." at the root stays at the root
      continue;
    }
    starts.push_back(rel.empty() ? 0 : rel.size() + 1);
    if (!rel.empty()) rel += '/';
    rel += c;
    if (known_dirs_->count(rel)) continue;
    struct stat st {};
    if (::fstatat(fd(), rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      return fail_errno(fmt::format("resolve {} in {}", shown(), path_));
    if (!S_ISLNK(st.st_mode)) {
      if (S_ISDIR(st.st_mode)) {
        known_dirs_->insert(rel);
      } else if (!todo.empty()) {
        return fail(ENOTDIR, fmt::format("resolve {} in {}: not a directory", shown(), path_));
      }
      continue;
    }
    if (++links > kMaxSymlinks)
      return fail(ELOOP,
                  fmt::format("resolve {} in {}: too many levels of symbolic links", path, path_));
    char buf[4096];
    ssize_t n = ::readlinkat(fd(), rel.c_str(), buf, sizeof buf);
    if (n < 0) return fail_errno(fmt::format("readlink {} in {}", shown(), path_));
    if (static_cast<std::size_t>(n) == sizeof buf)
      return fail(ENAMETOOLONG, fmt::format("readlink {}: target too long", shown()));
    const std::string& target = targets.emplace_back(buf, static_cast<std::size_t>(n));
    pop();
    if (!target.empty() && target[0] == '/') {
      rel.clear();
      starts.clear();
    }
    push_components(target);
  }
  return shown();
}

Result<unique_fd> DriverRoot::open_file(std::string_view path, int flags) const {
  return open_file(path, flags, nullptr);
}

Result<unique_fd> DriverRoot::open_file(std::string_view path, int flags, struct stat* st) const {
  flags |= O_CLOEXEC;
  std::string rel = normalize_path(path);
  auto open_resolved = [&](int how_flags) -> Result<unique_fd> {
    if (!openat2_disabled_) {
      struct open_how how {};
      how.flags = static_cast<std::uint64_t>(how_flags);
      how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
      std::string p = "." + rel;
      long fd = ::syscall(SYS_openat2, this->fd(), p.c_str(), &how, sizeof how);
      if (fd >= 0) return unique_fd(static_cast<int>(fd));
      if (errno != ENOSYS && errno != EPERM && errno != E2BIG)
        return fail_errno(fmt::format("open {} in {}", rel, path_));
    }
    NVCT_ASSIGN_OR_RETURN(std::string resolved, resolve(rel));
    std::string p = "." + resolved;
    unique_fd fd(::openat(this->fd(), p.c_str(), how_flags | O_NOFOLLOW));
    if (!fd) return fail_errno(fmt::format("open {} in {}", rel, path_));
    return fd;
  };
  // A plain read must not block or run a device's open(): a FIFO planted as libcuda.so.1,
  // ld.so.cache or a procfs `information` file hung every reader (issue 18). The type is
  // checked through an O_PATH fd first; the real open is non-blocking and must reach the same
  // inode.
  const bool plain_read = (flags & O_ACCMODE) == O_RDONLY && (flags & (O_PATH | O_DIRECTORY)) == 0;
  if (!plain_read) return open_resolved(flags);
  auto regular = [&](int fd, struct stat& s) -> Status {
    if (::fstat(fd, &s) != 0) return fail_errno(fmt::format("stat {} in {}", rel, path_));
    if (S_ISREG(s.st_mode)) return ok();
    return fail(EINVAL, fmt::format("open {} in {}: {} is a {}, not a regular file: replace it "
                                    "with the driver's file",
                                    rel, path_, host_path(rel), file_type_name(s.st_mode)));
  };
  struct stat before {};
  struct stat after {};
  {
    NVCT_ASSIGN_OR_RETURN(unique_fd probe, open_resolved(O_PATH | O_CLOEXEC));
    NVCT_TRY(regular(probe.get(), before));
  }
  NVCT_ASSIGN_OR_RETURN(unique_fd fd, open_resolved(flags | O_NONBLOCK | O_NOCTTY));
  NVCT_TRY(regular(fd.get(), after));
  if (before.st_dev != after.st_dev || before.st_ino != after.st_ino)
    return fail(EAGAIN, fmt::format("open {} in {}: replaced while it was being opened; try again",
                                    rel, path_));
  if (st) *st = after;
  return fd;
}

Result<std::string> DriverRoot::read(std::string_view path, std::size_t max_size) const {
  struct stat st {};
  NVCT_ASSIGN_OR_RETURN(unique_fd fd, open_file(path, O_RDONLY, &st));
  // A huge (sparse) file fails at once; procfs files report 0 and read_fd caps them.
  if (static_cast<std::uint64_t>(st.st_size) > max_size)
    return fail(EFBIG, fmt::format("read {} in {}: {} bytes, larger than the {} bytes allowed",
                                   path, path_, st.st_size, max_size));
  return with_context(read_fd(fd.get(), max_size), fmt::format("read {} in {}", path, path_));
}

Result<struct stat> DriverRoot::stat(std::string_view path) const {
  NVCT_ASSIGN_OR_RETURN(unique_fd fd, open_file(path, O_PATH));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return fail_errno(fmt::format("stat {} in {}", path, path_));
  return st;
}

Result<std::vector<std::string>> DriverRoot::list_dir(std::string_view path) const {
  NVCT_ASSIGN_OR_RETURN(unique_fd fd, open_file(path, O_RDONLY | O_DIRECTORY));
  DIR* dir = ::fdopendir(fd.get());
  if (!dir) return fail_errno(fmt::format("list {} in {}", path, path_));
  fd.release();
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(dir)) {
    std::string_view n = e->d_name;
    if (n != "." && n != "..") names.emplace_back(n);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace nvct::driver
