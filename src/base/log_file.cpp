#include "nvct/base/log_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "nvct/base/file.hpp"

namespace nvct {
namespace {

std::string parent_dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// What is wrong with the object at `path` (stat of it, or of the opened fd), or ok.
Status check_log_object(const struct stat& st, const std::string& path) {
  if (S_ISLNK(st.st_mode))
    return fail(ELOOP, fmt::format("log file {} is a symbolic link; it is not followed (a link "
                                   "planted in a log directory would redirect the writes): name "
                                   "the link's target instead",
                                   path));
  if (!S_ISREG(st.st_mode))
    return fail(EINVAL, fmt::format("log file {} is a {}, not a regular file: remove it or name "
                                    "another log file",
                                    path, file_type_name(st.st_mode)));
  if (st.st_nlink > 1)
    return fail(EMLINK, fmt::format("log file {} has {} hard links; it is not written (another "
                                    "name for it may be a host file): remove the extra links or "
                                    "name another log file",
                                    path, st.st_nlink));
  return ok();
}

// A file another user owns, in a directory others may write to: it may have been planted there.
Status check_log_owner(const struct stat& st, const std::string& path) {
  if (st.st_uid == ::geteuid()) return ok();
  std::string dir = parent_dir_of(path);
  struct stat dst {};
  if (::stat(dir.c_str(), &dst) != 0) return fail_errno(fmt::format("stat log directory {}", dir));
  if ((dst.st_mode & S_IWOTH) == 0) return ok();
  return fail(EPERM, fmt::format("log file {} belongs to uid {} and lies in {}, a directory every "
                                 "user may write to (mode {:o}); it may have been planted there: "
                                 "remove it, or keep logs in a directory only root may write to",
                                 path, st.st_uid, dir, dst.st_mode & 07777));
}

}  // namespace

Result<unique_fd> open_log_file_for_append(const std::string& path) {
  if (path.empty()) return fail(EINVAL, "log file: empty path");
  // An existing object is looked at before it is opened: opening a device runs its driver, and a
  // FIFO with a reader would accept the open.
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    NVCT_TRY(check_log_object(st, path));
  } else if (errno != ENOENT) {
    return fail_errno(fmt::format("open log file {}", path));
  }
  int fd =
      ::open(path.c_str(),
             O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0644);
  if (fd < 0) {
    int err = errno;
    // Swapped in between the lstat and the open: say what it is now.
    if ((err == ELOOP || err == ENXIO) && ::lstat(path.c_str(), &st) == 0)
      NVCT_TRY(check_log_object(st, path));
    return fail_errno(fmt::format("open log file {}", path), err);
  }
  unique_fd owned(fd);
  if (::fstat(fd, &st) != 0) return fail_errno(fmt::format("stat log file {}", path));
  NVCT_TRY(check_log_object(st, path));
  NVCT_TRY(check_log_owner(st, path));
  int fl = ::fcntl(fd, F_GETFL);
  if (fl >= 0) (void)::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return owned;
}

}  // namespace nvct
