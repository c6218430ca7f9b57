// The userspace in-root walker of mount.md §14.3, used when openat2 is missing (< 5.6) or
// blocked by seccomp. Each component is opened O_PATH|O_NOFOLLOW relative to the fd of its
// parent, so the kernel never follows a link on our behalf; symlinks are read with
// readlinkat(fd, "") and spliced into the remaining path.
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <climits>
#include <deque>
#include <vector>

#include "nvct/base/strings.hpp"
#include "nvct/mount/in_root.hpp"

namespace nvct::mount {
namespace {

// The kernel's own limit on links in one lookup.
constexpr int kMaxSymlinkHops = 40;

void push_components(std::deque<std::string>& out, const std::string& path) {
  std::deque<std::string> parts;
  std::size_t i = 0;
  while (i <= path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    if (j > i) parts.emplace_back(path.substr(i, j - i));
    i = j + 1;
  }
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) out.push_front(*it);
}

bool on_procfs(int fd) {
  struct statfs st {};
  return ::fstatfs(fd, &st) == 0 && st.f_type == PROC_SUPER_MAGIC;
}

}  // namespace

Result<unique_fd> resolve_with_walker(const Root& root, const std::string& path, int flags) {
  const bool follow_last = (flags & O_NOFOLLOW) == 0;
  // stack[0] is the root; `..` pops, and at the root it stays (clamped like RESOLVE_IN_ROOT).
  std::vector<unique_fd> stack;
  stack.emplace_back(::fcntl(root.fd(), F_DUPFD_CLOEXEC, 3));
  if (!stack.back()) return fail_errno("dup root fd");

  std::deque<std::string> rest;
  push_components(rest, path);
  int hops = 0;
  unique_fd last;  // the final object when the last component is not a directory
  while (!rest.empty()) {
    std::string comp = std::move(rest.front());
    rest.pop_front();
    if (comp == ".") continue;
    if (comp == "..") {
      if (stack.size() > 1) stack.pop_back();
      continue;
    }
    const bool is_last = rest.empty();
    unique_fd fd(::openat(stack.back().get(), comp.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) return fail_errno(fmt::format("open component {}", comp));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return fail_errno(fmt::format("stat component {}", comp));
    if (S_ISLNK(st.st_mode) && (!is_last || follow_last)) {
      // NO_MAGICLINKS emulation: procfs links (/proc/self/root, /proc/1/cwd, ...) are refused
      // outright; at prestart the rootfs /proc is a live procfs (CVE-2024-0132 chain).
      if (on_procfs(fd.get()))
        return fail(ELOOP, fmt::format("refusing to follow procfs link {}", comp));
      if (++hops > kMaxSymlinkHops)
        return fail(ELOOP, fmt::format("too many levels of symbolic links at {}", comp));
      char buf[PATH_MAX + 1];
      ssize_t n = ::readlinkat(fd.get(), "", buf, PATH_MAX);
      if (n < 0) return fail_errno(fmt::format("readlink component {}", comp));
      std::string target(buf, static_cast<std::size_t>(n));
      if (!target.empty() && target[0] == '/') stack.resize(1);  // absolute: restart at root
      push_components(rest, target);
      continue;
    }
    if (is_last) {
      last = std::move(fd);
      break;
    }
    if (!S_ISDIR(st.st_mode)) return fail(ENOTDIR, fmt::format("{} is not a directory", comp));
    stack.push_back(std::move(fd));
  }
  unique_fd result = last ? std::move(last) : std::move(stack.back());

  // Belt and braces (crun's check_fd_under_path): whatever we ended on must be inside the root.
  NVCT_TRY(root.relative_path(result.get()));

  struct stat st {};
  if (::fstat(result.get(), &st) != 0) return fail_errno("stat result");
  if ((flags & O_DIRECTORY) && !S_ISDIR(st.st_mode))
    return fail(ENOTDIR, fmt::format("{} is not a directory", path));
  if (flags & O_PATH) return result;
  if (S_ISLNK(st.st_mode)) return fail(ELOOP, fmt::format("{} is a symbolic link", path));
  // The caller wants a real open: re-open the verified object through its fd, never by path.
  int reopen_flags = (flags & ~(O_NOFOLLOW | O_CREAT | O_EXCL)) | O_CLOEXEC;
  unique_fd reopened(::open(proc_fd_path(result.get()).c_str(), reopen_flags));
  if (!reopened) return fail_errno(fmt::format("reopen {}", path));
  return reopened;
}

}  // namespace nvct::mount
