#include "nvct/base/file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cctype>
#include <ctime>

#include "nvct/base/random_name.hpp"
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

const char* file_type_name(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "regular file";
    case S_IFDIR:
      return "directory";
    case S_IFIFO:
      return "FIFO";
    case S_IFSOCK:
      return "socket";
    case S_IFCHR:
      return "character device";
    case S_IFBLK:
      return "block device";
    case S_IFLNK:
      return "symbolic link";
    default:
      return "special file";
  }
}

namespace {

Status require_regular(const struct stat& st, const std::string& path) {
  if (S_ISREG(st.st_mode)) return ok();
  return fail(EINVAL, fmt::format("{} is a {}, not a regular file: replace it with the regular "
                                  "file that belongs there",
                                  path, file_type_name(st.st_mode)));
}

}  // namespace

Status check_regular_fd(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail_errno(fmt::format("stat {}", path));
  return require_regular(st, path);
}

Status check_regular_path(const std::string& path) {
  if (path.find('/') == std::string::npos) return ok();
  struct stat st {};
  // A missing or unreadable path is left to the caller's own open (dlopen's message).
  if (::stat(path.c_str(), &st) != 0) return ok();
  return require_regular(st, path);
}

Result<unique_fd> open_regular_file(int dirfd, const std::string& path, std::size_t max_size,
                                    int flags) {
  flags &= O_NOFOLLOW;
  // O_PATH first: opening a FIFO for reading blocks until a writer comes, and opening a device
  // runs its driver's open(); an O_PATH fd does neither.
  unique_fd probe(::openat(dirfd, path.c_str(), O_PATH | O_CLOEXEC | flags));
  if (!probe) return fail_errno(fmt::format("open {}", path));
  struct stat st {};
  if (::fstat(probe.get(), &st) != 0) return fail_errno(fmt::format("stat {}", path));
  NVCT_TRY(require_regular(st, path));
  if (static_cast<std::uint64_t>(st.st_size) > max_size)
    return fail(EFBIG, fmt::format("{} is {} bytes, larger than the {} bytes allowed; it cannot "
                                   "be a valid file of its kind",
                                   path, st.st_size, max_size));
  // O_NONBLOCK: a FIFO swapped in after the check still cannot block the open.
  unique_fd fd(::openat(dirfd, path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | flags));
  if (!fd) return fail_errno(fmt::format("open {}", path));
  struct stat again {};
  if (::fstat(fd.get(), &again) != 0) return fail_errno(fmt::format("stat {}", path));
  NVCT_TRY(require_regular(again, path));
  if (again.st_dev != st.st_dev || again.st_ino != st.st_ino)
    return fail(EAGAIN, fmt::format("{} was replaced while it was being opened; try again", path));
  return fd;
}

Result<std::string> read_file(const std::string& path, std::size_t max_size) {
  NVCT_ASSIGN_OR_RETURN(unique_fd fd, open_regular_file(AT_FDCWD, path, max_size));
  return with_context(read_fd(fd.get(), max_size), path);
}

Result<std::string> read_file_at(int dirfd, const std::string& name, std::size_t max_size) {
  NVCT_ASSIGN_OR_RETURN(unique_fd fd, open_regular_file(dirfd, name, max_size, O_NOFOLLOW));
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

std::string random_suffix() { return random_alnum(6); }

// ".<name>.<pid>-XXXXXX": the pid tells the next writer whether the owner is still alive.
std::string temp_name(const std::string& name) {
  return fmt::format(".{}.{}-{}", name, ::getpid(), random_suffix());
}

bool all_alnum(std::string_view s) {
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

int remove_stale_temp_files(int dirfd, const std::string& name, int min_age_s) {
  unique_fd dup(::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dup) return 0;
  DIR* dir = ::fdopendir(dup.get());
  if (!dir) return 0;
  dup.release();
  const std::string prefix = "." + name + ".";
  const std::time_t now = std::time(nullptr);
  int removed = 0;
  while (struct dirent* e = ::readdir(dir)) {
    std::string_view entry = e->d_name;
    if (entry.size() <= prefix.size() || entry.substr(0, prefix.size()) != prefix) continue;
    std::string_view rest = entry.substr(prefix.size());
    // "<pid>-XXXXXX" (this version) or "XXXXXX" (older versions, no pid).
    pid_t owner = 0;
    auto dash = rest.find('-');
    if (dash != std::string_view::npos) {
      std::string_view pid_text = rest.substr(0, dash);
      if (pid_text.empty() || pid_text.size() > 9) continue;
      for (char c : pid_text) {
        if (c < '0' || c > '9') {
          owner = -1;
          break;
        }
        owner = owner * 10 + (c - '0');
      }
      if (owner <= 0) continue;
      rest = rest.substr(dash + 1);
    }
    if (rest.size() != 6 || !all_alnum(rest)) continue;
    struct stat st {};
    if (::fstatat(::dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
      continue;
    const bool old = now - st.st_mtime >= min_age_s;
    const bool owner_gone =
        owner > 0 && owner != ::getpid() && ::kill(owner, 0) != 0 && errno == ESRCH;
    if (!old && !owner_gone) continue;
    if (::unlinkat(::dirfd(dir), e->d_name, 0) == 0) ++removed;
  }
  ::closedir(dir);
  return removed;
}

namespace {

// Copies every extended attribute of dir/name (an existing regular file) to `to`: the SELinux
// label (security.selinux) above all, so that a rewritten daemon.json keeps the context the
// engine's policy expects (security.md §8 "CLI file attributes", row 44), but also ACLs and
// user.* ones. A label that cannot be set is an error; the rest is best effort.
Status copy_xattrs(int dirfd, const std::string& name, const struct stat& existing, int to) {
  unique_fd from(::openat(dirfd, name.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
  if (!from) return ok();  // unreadable: the write below reports the real problem
  struct stat st {};
  if (::fstat(from.get(), &st) != 0 || st.st_ino != existing.st_ino || st.st_dev != existing.st_dev)
    return ok();
  std::string names(4096, '\0');
  ssize_t n = ::flistxattr(from.get(), names.data(), names.size());
  if (n < 0 && errno == ERANGE) {
    n = ::flistxattr(from.get(), nullptr, 0);
    if (n > 0) {
      names.resize(static_cast<std::size_t>(n));
      n = ::flistxattr(from.get(), names.data(), names.size());
    }
  }
  if (n <= 0) return ok();  // none, or no xattr support
  names.resize(static_cast<std::size_t>(n));
  for (std::size_t pos = 0; pos < names.size();) {
    std::string key(names.c_str() + pos);
    pos += key.size() + 1;
    if (key.empty()) continue;
    const bool label = key == "security.selinux";
    ssize_t len = ::fgetxattr(from.get(), key.c_str(), nullptr, 0);
    std::string value(len > 0 ? static_cast<std::size_t>(len) : 0, '\0');
    if (len > 0) len = ::fgetxattr(from.get(), key.c_str(), value.data(), value.size());
    if (len < 0) {
      if (label) return fail_errno(fmt::format("read the SELinux label of {}", name));
      continue;
    }
    value.resize(static_cast<std::size_t>(len));
    if (::fsetxattr(to, key.c_str(), value.data(), value.size(), 0) != 0 && label)
      return fail_errno(fmt::format("keep the SELinux label \"{}\" of {}",
                                    value.substr(0, value.find('\0')), name));
  }
  return ok();
}

}  // namespace

Status write_file_atomic_at(int dirfd, const std::string& name, std::string_view content,
                            AtomicWriteOptions options) {
  struct stat existing {};
  bool have_existing = ::fstatat(dirfd, name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0;
  if (have_existing && !S_ISREG(existing.st_mode))
    return fail(EINVAL, fmt::format("replace {}: not a regular file", name));
  if (have_existing && options.refuse_hard_links && existing.st_nlink > 1)
    return fail(EMLINK, fmt::format("replace {}: it has {} hard links (another name for the same "
                                    "file may be a host file); nothing written: remove the other "
                                    "links, or write a copy of the file under its own name",
                                    name, existing.st_nlink));
  mode_t mode = have_existing ? (existing.st_mode & 07777) : options.default_mode;

  // A writer killed with SIGKILL between create and rename left its temp file behind.
  remove_stale_temp_files(dirfd, name);

  std::string tmp;
  unique_fd fd;
  for (int attempt = 0; attempt < 16 && !fd; ++attempt) {
    tmp = temp_name(name);
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
  if (have_existing) {
    if (auto kept = copy_xattrs(dirfd, name, existing, fd.get()); !kept)
      return cleanup_fail(tl::unexpected(std::move(kept).error()));
  }
  if (auto st = write_all(fd.get(), content); !st)
    return cleanup_fail(
        tl::unexpected(std::move(st.error().context(fmt::format("write {}", tmp)))));
  if (options.durable && ::fsync(fd.get()) != 0)
    return cleanup_fail(fail_errno(fmt::format("fsync {}", tmp)));
  fd.reset();
  if (!options.durable && have_existing) {
    // ext4 (auto_da_alloc) starts writing a file's data out when a rename replaces another
    // file with it. Exchanging the two names is as atomic for readers and skips that; the temp
    // name then holds the old content, which is removed. For a new 2 KB config.json on the
    // project VM's disk: rename 0.07-0.09 ms, exchange and unlink 0.04 ms. (Either way, an old
    // file whose data was being written out, as after a truncating rewrite, costs 1-3 ms to
    // drop there.) Without RENAME_EXCHANGE (EINVAL on some filesystems) the plain rename below.
    if (::renameat2(dirfd, tmp.c_str(), dirfd, name.c_str(), RENAME_EXCHANGE) == 0) {
      ::unlinkat(dirfd, tmp.c_str(), 0);
      on_signal.release();
      return ok();
    }
  }
  if (::renameat(dirfd, tmp.c_str(), dirfd, name.c_str()) != 0)
    return cleanup_fail(fail_errno(fmt::format("rename {} to {}", tmp, name)));
  on_signal.release();
  if (options.durable) ::fsync(dirfd);
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
  Status written = write_file_atomic_at(dirfd.get(), name, content, options);
  if (!written) {
    // A full or read-only file system is the user's to fix: say how, and that nothing was lost
    // (the temp file is already gone, the target untouched). Issue 18.
    const int code = written.error().code();
    if (code == ENOSPC || code == EDQUOT)
      return fail(code, fmt::format("write {}: {}: free space (or quota) on the file system "
                                    "holding {} and run the command again; {} is unchanged",
                                    path, written.error().message(), dir, path));
    if (code == EROFS)
      return fail(code, fmt::format("write {}: {}: {} is on a read-only file system: remount it "
                                    "read-write or write the file elsewhere; {} is unchanged",
                                    path, written.error().message(), dir, path));
  }
  return with_context(std::move(written), fmt::format("write {}", path));
}

}  // namespace nvct
