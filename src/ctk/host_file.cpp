#include "nvct/ctk/host_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"

namespace nvct::ctk {

namespace {

Status make_dirs(const std::string& dir) {
  if (dir.empty() || dir == "/" || dir == ".") return ok();
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return fail(ENOTDIR, fmt::format("{} is not a directory", dir));
    return ok();
  }
  NVCT_TRY(make_dirs(strings::dirname(dir)));
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return fail_errno(fmt::format("create directory {}", dir));
  return ok();
}

// "<dir>/.<name>.lock" next to the target.
std::string lock_file_of(const std::string& target) {
  return strings::dirname(target) + "/." + std::string(strings::basename(target)) + ".lock";
}

HostFileStamp stamp_of(const struct stat& st) {
  return {true, st.st_dev, st.st_ino, st.st_size, st.st_mtim};
}

}  // namespace

bool HostFileStamp::operator==(const HostFileStamp& o) const {
  if (exists != o.exists) return false;
  if (!exists) return true;
  return dev == o.dev && ino == o.ino && size == o.size && mtime.tv_sec == o.mtime.tv_sec &&
         mtime.tv_nsec == o.mtime.tv_nsec;
}

namespace {
// A permission error of a non-root user says what to do (the engines' files belong to root), and
// so does a read-only file system (an immutable /etc, a read-only bind mount).
Error with_root_hint(Error e, const std::string& target) {
  if ((e.code() == EACCES || e.code() == EPERM) && ::geteuid() != 0)
    return Error(e.code(),
                 fmt::format("{}: nvidia-ctk must be run as root to edit {}", e.message(), target));
  if (e.code() == EROFS)
    return Error(e.code(), fmt::format("{}: {} is on a read-only file system: make it writable, or "
                                       "write the config elsewhere with --config and point the "
                                       "engine at that file",
                                       e.message(), strings::dirname(target)));
  return e;
}
}  // namespace

Result<std::string> resolve_host_file(const std::string& path) {
  std::string current = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0) {
      if (errno == ENOENT) return current;
      return tl::unexpected(
          with_root_hint(fail_errno(fmt::format("inspect {}", current)).value(), path));
    }
    if (!S_ISLNK(st.st_mode)) return current;
    char buf[4096];
    ssize_t n = ::readlink(current.c_str(), buf, sizeof buf - 1);
    if (n < 0) return fail_errno(fmt::format("read link {}", current));
    std::string target(buf, static_cast<std::size_t>(n));
    current = target.front() == '/' ? target : strings::dirname(current) + "/" + target;
  }
  return fail(ELOOP, fmt::format("resolve {}: too many levels of symbolic links", path));
}

Result<HostFileLock> HostFileLock::acquire(const std::string& target,
                                           std::chrono::milliseconds timeout) {
  if (auto made = make_dirs(strings::dirname(target)); !made)
    return tl::unexpected(with_root_hint(made.error(), target));
  std::string lock_path = lock_file_of(target);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    unique_fd fd(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd)
      return tl::unexpected(
          with_root_hint(fail_errno(fmt::format("open lock file {}", lock_path)).value(), target));
    while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK) return fail_errno(fmt::format("lock {}", lock_path));
      if (std::chrono::steady_clock::now() >= deadline)
        return fail(EWOULDBLOCK, fmt::format("lock {}: still held by another process after {} ms",
                                             lock_path, timeout.count()));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // The previous holder deletes the file when it lets go: the lock counts only if this inode
    // is still the one at the path.
    struct stat held {};
    struct stat now {};
    if (::fstat(fd.get(), &held) != 0) return fail_errno(fmt::format("stat {}", lock_path));
    if (::lstat(lock_path.c_str(), &now) == 0 && now.st_dev == held.st_dev &&
        now.st_ino == held.st_ino)
      return HostFileLock(std::move(fd), lock_path);
    if (std::chrono::steady_clock::now() >= deadline)
      return fail(EWOULDBLOCK, fmt::format("lock {}: replaced while waiting for it for {} ms",
                                           lock_path, timeout.count()));
  }
}

HostFileLock::~HostFileLock() {
  // Deleted while still held: a waiter that then wins the old inode sees that and starts over.
  if (fd_ && ::unlink(path_.c_str()) != 0 && errno != ENOENT)
    log::debug("cannot remove the lock file {}: {}", path_, std::strerror(errno));
}

Result<HostFileContent> read_host_file(const std::string& path) {
  // Never blocks: a FIFO given as daemon.json or the containerd config hung the open (issue 18).
  auto opened = open_regular_file(AT_FDCWD, path, kDefaultMaxFileSize, O_NOFOLLOW);
  if (!opened) {
    if (opened.error().code() == ENOENT) return HostFileContent{};
    return tl::unexpected(std::move(opened).error());
  }
  unique_fd fd = std::move(*opened);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return fail_errno(fmt::format("stat {}", path));
  NVCT_ASSIGN_OR_RETURN(auto text, with_context(read_fd(fd.get()), fmt::format("read {}", path)));
  return HostFileContent{std::move(text), stamp_of(st)};
}

namespace {

// security.md row 44: a host config with a second name (a hard link) is never rewritten: the
// other name may be a host file, and a rename would silently split the two.
Status refuse_hard_linked(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink <= 1) return ok();
  return fail(EMLINK, fmt::format("{} has {} hard links (another name for the same file may be a "
                                  "host file); nothing written: remove the other links, or edit "
                                  "a copy of the file under its own name",
                                  path, st.st_nlink));
}

// The file must still be the one that was read (same stamp, or still absent); with
// options.backup an existing file is first copied to <path>.bak with its mode. Returns whether
// the file exists. `verb` names what is refused otherwise ("written", "removed").
Result<bool> check_unchanged_and_back_up(const std::string& path, const HostFileStamp& read_stamp,
                                         ReplaceOptions options, std::string_view verb) {
  HostFileStamp now;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    now = stamp_of(st);
  } else if (errno != ENOENT) {
    return fail_errno(fmt::format("stat {}", path));
  }
  if (!(now == read_stamp))
    return fail(EAGAIN, fmt::format("{} was changed by another program while it was being "
                                    "edited; nothing {}, run the command again",
                                    path, verb));
  if (options.backup && now.exists) {
    NVCT_ASSIGN_OR_RETURN(auto old, read_file(path));
    NVCT_TRY(
        with_context(write_file_atomic(path + ".bak", old, {.default_mode = st.st_mode & 07777}),
                     "back up the old file"));
  }
  return now.exists;
}

}  // namespace

Status replace_host_file(const std::string& path, std::string_view text,
                         const HostFileStamp& read_stamp, ReplaceOptions options) {
  // Checked before the backup too, so that a refusal leaves no <path>.bak behind.
  NVCT_TRY(refuse_hard_linked(path));
  NVCT_TRY(check_unchanged_and_back_up(path, read_stamp, options, "written"));
  NVCT_TRY(make_dirs(strings::dirname(path)));
  // A hard-linked engine config is refused: its other name may be a host file (row 44).
  return write_file_atomic(path, text, {.refuse_hard_links = true});
}

Status remove_host_file(const std::string& path, const HostFileStamp& read_stamp,
                        ReplaceOptions options) {
  NVCT_ASSIGN_OR_RETURN(bool exists,
                        check_unchanged_and_back_up(path, read_stamp, options, "removed"));
  if (!exists) return ok();
  if (::unlink(path.c_str()) != 0) return fail_errno(fmt::format("remove {}", path));
  unique_fd dir(::open(strings::dirname(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir || ::fsync(dir.get()) != 0)
    return fail_errno(
        fmt::format("sync directory {} after removing {}", strings::dirname(path), path));
  return ok();
}

Result<HostFileEdit> open_host_file_edit(const std::string& path, bool lock) {
  HostFileEdit edit;
  edit.path = path;
  NVCT_ASSIGN_OR_RETURN(edit.resolved, resolve_host_file(path));
  if (lock) {
    NVCT_ASSIGN_OR_RETURN(auto held, HostFileLock::acquire(edit.resolved));
    edit.lock.emplace(std::move(held));
  }
  NVCT_ASSIGN_OR_RETURN(edit.content, read_host_file(edit.resolved));
  // A file opened to be written is refused here already, before any other file of the same
  // command (containerd's drop-in, written before the main file) is changed.
  if (lock)
    NVCT_TRY(with_context(refuse_hard_linked(edit.resolved), fmt::format("update {}", path)));
  return edit;
}

namespace {

std::string shown_path(const HostFileEdit& edit) {
  if (edit.resolved == edit.path) return edit.path;
  return fmt::format("{} (through the symbolic link {})", edit.resolved, edit.path);
}

}  // namespace

Status write_host_file_edit(const HostFileEdit& edit, std::string_view text,
                            ReplaceOptions options) {
  NVCT_TRY(with_context(replace_host_file(edit.resolved, text, edit.content.stamp, options),
                        fmt::format("update {}", edit.path)));
  log::info("Wrote updated config to {}", shown_path(edit));
  return ok();
}

Status remove_host_file_edit(const HostFileEdit& edit, ReplaceOptions options) {
  NVCT_TRY(with_context(remove_host_file(edit.resolved, edit.content.stamp, options),
                        fmt::format("remove {}", edit.path)));
  log::info("Removed {}", shown_path(edit));
  return ok();
}

Status edit_host_file(const std::string& path, const HostFileEditor& edit, ReplaceOptions options) {
  NVCT_ASSIGN_OR_RETURN(std::string resolved, resolve_host_file(path));
  NVCT_ASSIGN_OR_RETURN(HostFileLock lock, HostFileLock::acquire(resolved));
  NVCT_ASSIGN_OR_RETURN(HostFileContent content, read_host_file(resolved));
  NVCT_ASSIGN_OR_RETURN(std::string text, edit(content.text));
  return replace_host_file(resolved, text, content.stamp, options);
}

}  // namespace nvct::ctk
