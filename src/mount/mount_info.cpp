// Post-mount checks against the mount table: the mount id of an fd and its propagation.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include "nvct/base/file.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/mount/bind.hpp"

namespace nvct::mount {

Result<std::uint64_t> mount_id_of(int fd) {
  struct statx stx {};
  if (::statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) != 0)
    return fail_errno("statx mount id");
  if (!(stx.stx_mask & STATX_MNT_ID)) return fail(ENOTSUP, "kernel does not report mount ids");
  return static_cast<std::uint64_t>(stx.stx_mnt_id);
}

Result<bool> mount_is_private(int fd) {
  NVCT_ASSIGN_OR_RETURN(std::uint64_t id, mount_id_of(fd));
  NVCT_ASSIGN_OR_RETURN(std::string info, read_file("/proc/thread-self/mountinfo", 64u << 20));
  std::string want = fmt::format("{}", id);
  for (auto& line : strings::split(info, '\n')) {
    auto fields = strings::split(line, ' ');
    if (fields.size() < 7 || fields[0] != want) continue;
    // Optional fields sit between field 6 and the "-" separator.
    for (std::size_t i = 6; i < fields.size() && fields[i] != "-"; ++i)
      if (fields[i].rfind("shared:", 0) == 0) return false;
    return true;
  }
  return fail(ENOENT, fmt::format("mount {} not in mountinfo", id));
}

}  // namespace nvct::mount
