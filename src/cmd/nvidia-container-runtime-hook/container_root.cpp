#include "container_root.hpp"

#include <sys/stat.h>

#include <fmt/format.h>

#include "nvct/base/file.hpp"
#include "nvct/base/strings.hpp"

namespace nvct::hook {
namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape_mountinfo(std::string_view field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size() && field[i + 1] >= '0' && field[i + 1] <= '3' &&
        field[i + 2] >= '0' && field[i + 2] <= '7' && field[i + 3] >= '0' && field[i + 3] <= '7') {
      out += static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 +
                               (field[i + 3] - '0'));
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

}  // namespace

bool mountinfo_has_mount_point(std::string_view mountinfo, std::string_view path) {
  for (const auto& line : strings::split(mountinfo, '\n')) {
    // "<id> <parent> <major:minor> <root> <mount point> ..."
    std::size_t pos = 0;
    for (int field = 0; field < 4 && pos != std::string_view::npos; ++field) {
      pos = line.find(' ', pos);
      if (pos != std::string_view::npos) ++pos;
    }
    if (pos == std::string_view::npos) continue;
    auto end = line.find(' ', pos);
    std::string_view point = std::string_view(line).substr(
        pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (unescape_mountinfo(point) == path) return true;
  }
  return false;
}

Status check_container_root(pid_t pid, const std::string& rootfs, const std::string& proc) {
  const std::string what = fmt::format("container root {} (pid {})", rootfs, pid);
  struct stat own {};
  struct stat theirs {};
  if (::stat(fmt::format("{}/self/ns/mnt", proc).c_str(), &own) != 0)
    return fail_errno(fmt::format("{}: stat {}/self/ns/mnt", what, proc));
  if (::stat(fmt::format("{}/{}/ns/mnt", proc, pid).c_str(), &theirs) != 0)
    return fail_errno(fmt::format("{}: stat {}/{}/ns/mnt", what, proc, pid));
  if (own.st_dev == theirs.st_dev && own.st_ino == theirs.st_ino)
    return fail(EINVAL, fmt::format("{}: the process shares the hook's mount namespace, so it is "
                                    "not a container being created by runc or crun; refusing to "
                                    "create device nodes and mounts in a host directory",
                                    what));
  NVCT_ASSIGN_OR_RETURN(
      std::string mountinfo,
      with_context(read_file(fmt::format("{}/{}/mountinfo", proc, pid), 64u << 20), what));
  if (!mountinfo_has_mount_point(mountinfo, rootfs))
    return fail(EINVAL, fmt::format("{}: root.path is not a mount point in the container's mount "
                                    "namespace (runc and crun bind-mount the container root onto "
                                    "itself before prestart hooks run), so it is not this "
                                    "container's root; was config.json changed after the runtime "
                                    "read it?",
                                    what));
  return ok();
}

}  // namespace nvct::hook
