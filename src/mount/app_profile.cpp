#include "nvct/mount/app_profile.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/mount/bind.hpp"
#include "nvct/mount/target.hpp"

namespace nvct::mount {
namespace {

constexpr std::size_t kMaxProfile = 64u << 10;

// A detached, empty tmpfs (fsopen/fsmount), or an empty fd without the new mount API.
Result<unique_fd> detached_tmpfs() {
  if (classic_mount_api_forced()) return unique_fd();
  unique_fd fs(::fsopen("tmpfs", FSOPEN_CLOEXEC));
  if (!fs) {
    if (errno == ENOSYS) return unique_fd();
    return fail_errno("fsopen tmpfs");
  }
  if (::fsconfig(fs.get(), FSCONFIG_SET_STRING, "mode", "0555", 0) != 0 ||
      ::fsconfig(fs.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0)
    return fail_errno("configure tmpfs");
  unique_fd mnt(::fsmount(fs.get(), FSMOUNT_CLOEXEC,
                          MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC));
  if (!mnt) {
    if (errno == ENOSYS) return unique_fd();
    return fail_errno("fsmount tmpfs");
  }
  return mnt;
}

// The object at the target must now be a new, private tmpfs mount with the §5 flags: a target
// swapped between resolution and mount would show up here.
Status verify_tmpfs(int top, int parent) {
  struct statfs fs {};
  if (::fstatfs(top, &fs) != 0) return fail_errno("statfs profile tmpfs");
  if (fs.f_type != TMPFS_MAGIC) return fail(EXDEV, "mounted profile directory is not our tmpfs");
  unsigned long want = ST_NOSUID | ST_NODEV | ST_NOEXEC;
  if ((static_cast<unsigned long>(fs.f_flags) & want) != want)
    return fail(EPERM, "profile tmpfs lacks nosuid,nodev,noexec");
  auto top_id = mount_id_of(top);
  auto parent_id = mount_id_of(parent);
  if (!top_id || !parent_id) return fail(EIO, "cannot read mount ids");
  if (*top_id == *parent_id) return fail(EXDEV, "profile directory is not a new mount");
  NVCT_ASSIGN_OR_RETURN(bool priv, mount_is_private(top));
  if (!priv) return fail(EPERM, "profile tmpfs has shared propagation");
  return ok();
}

}  // namespace

Result<std::uint64_t> profile_mask(const std::vector<unsigned>& gpu_minors) {
  std::uint64_t mask = 0;
  for (unsigned minor : gpu_minors) {
    if (minor >= 64)
      return fail(ERANGE, fmt::format("GPU minor {} does not fit the profile mask", minor));
    mask |= std::uint64_t{1} << minor;
  }
  return mask;
}

std::optional<std::uint64_t> parse_profile_mask(std::string_view text) {
  auto at = text.find(kProfileSetting);
  if (at == std::string_view::npos) return std::nullopt;
  auto hex = text.find("0x", at);
  if (hex == std::string_view::npos) return std::nullopt;
  std::uint64_t value = 0;
  std::size_t i = hex + 2, digits = 0;
  for (; i < text.size() && digits < 16; ++i, ++digits) {
    char c = text[i];
    unsigned d;
    if (c >= '0' && c <= '9')
      d = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = static_cast<unsigned>(c - 'A' + 10);
    else
      break;
    value = value << 4 | d;
  }
  if (digits == 0) return std::nullopt;
  return value;
}

std::string render_profile(std::uint64_t mask) {
  return fmt::format(
      "{{ \"profiles\": [{{\"name\": \"_container_\", \"settings\": [\"{}\", {:#x}]}}], "
      "\"rules\": [{{\"pattern\": [], \"profile\": \"_container_\"}}]}}\n",
      kProfileSetting, mask);
}

Result<std::uint64_t> update_profile_file(int dirfd, const std::string& where, std::uint64_t mask,
                                          mode_t new_mode) {
  struct stat st {};
  if (::fstatat(dirfd, kProfileFile, &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (!S_ISREG(st.st_mode))
      return fail(EINVAL, fmt::format("{}/{} is not a regular file", where, kProfileFile));
    NVCT_ASSIGN_OR_RETURN(std::string old, read_file_at(dirfd, kProfileFile, kMaxProfile));
    if (auto existing = parse_profile_mask(old)) mask |= *existing;
  } else if (errno != ENOENT) {
    return fail_errno(fmt::format("stat {}/{}", where, kProfileFile));
  }
  NVCT_TRY(write_file_atomic_at(dirfd, kProfileFile, render_profile(mask),
                                AtomicWriteOptions{.default_mode = new_mode}));
  log::info("wrote {}/{} with {} {:#x}", where, kProfileFile, kProfileSetting, mask);
  return mask;
}

Result<ProfileTmpfs> mount_profile_tmpfs(const Root& rootfs, Journal& journal) {
  auto run = [&]() -> Result<ProfileTmpfs> {
    NVCT_ASSIGN_OR_RETURN(unique_fd tmpfs, detached_tmpfs());
    NVCT_ASSIGN_OR_RETURN(Target target, create_target(rootfs, kProfileDir, TargetKind::kDirectory,
                                                       PathPolicy::kDefault, &journal));
    bool classic = !tmpfs;
    if (!classic && ::move_mount(tmpfs.get(), "", target.fd.get(), "",
                                 MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0) {
      if (errno != ENOSYS) return fail_errno("move_mount tmpfs");
      classic = true;
    }
    if (classic && ::mount("tmpfs", proc_fd_path(target.fd.get()).c_str(), "tmpfs",
                           MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0555") != 0)
      return fail_errno("mount tmpfs");
    // The fd of the mount's root: the target fd still names the directory underneath.
    unique_fd top(
        ::openat(target.parent.get(), target.name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!top) return fail_errno("reopen profile tmpfs");
    NVCT_TRY(journal.record_mount(top.get(), target.path));
    // Private whichever API attached it: a mount under a shared parent would otherwise carry
    // mount events back to the host (toolkit 1.16.2/1.18.0 leaks).
    if (::mount(nullptr, proc_fd_path(top.get()).c_str(), nullptr, MS_PRIVATE, nullptr) != 0)
      return fail_errno("make profile tmpfs private");
    NVCT_TRY(verify_tmpfs(top.get(), target.fd.get()));
    log::info("mounted tmpfs at {} (nosuid,nodev,noexec,mode=0555)", target.path);
    return ProfileTmpfs{std::move(top), target.path};
  };
  return with_context(run(), fmt::format("mount {}", kProfileDir));
}

Result<std::optional<std::uint64_t>> write_container_profile(const ProfileTmpfs& tmpfs,
                                                             const std::vector<unsigned>& minors) {
  using Out = std::optional<std::uint64_t>;
  auto run = [&]() -> Result<Out> {
    if (minors.empty()) return Out();
    NVCT_ASSIGN_OR_RETURN(std::uint64_t mask, profile_mask(minors));
    // Through the fd of the tmpfs we mounted and verified: the path is never resolved again.
    unique_fd dir(::open(proc_fd_path(tmpfs.fd.get()).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir) return fail_errno("open profile tmpfs");
    NVCT_ASSIGN_OR_RETURN(std::uint64_t written,
                          update_profile_file(dir.get(), tmpfs.path, mask, 0555));
    return Out(written);
  };
  return with_context(run(), fmt::format("write {}/{}", kProfileDir, kProfileFile));
}

}  // namespace nvct::mount
