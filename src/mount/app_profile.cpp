#include "nvct/mount/app_profile.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"

namespace nvct::mount {
namespace {

constexpr std::size_t kMaxProfile = 64u << 10;

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
  return with_context(mount_private_tmpfs(rootfs, kProfileDir, PathPolicy::kDefault, journal, 0555),
                      fmt::format("mount {}", kProfileDir));
}

Result<std::optional<std::uint64_t>> write_container_profile(const ProfileTmpfs& tmpfs,
                                                             const std::vector<unsigned>& minors) {
  using Out = std::optional<std::uint64_t>;
  auto run = [&]() -> Result<Out> {
    if (minors.empty()) return Out();
    NVCT_ASSIGN_OR_RETURN(std::uint64_t mask, profile_mask(minors));
    // Through the fd of the tmpfs we mounted and verified: the path is never resolved again.
    NVCT_ASSIGN_OR_RETURN(unique_fd dir, open_tmpfs_dir(tmpfs));
    NVCT_ASSIGN_OR_RETURN(std::uint64_t written,
                          update_profile_file(dir.get(), tmpfs.path, mask, 0555));
    return Out(written);
  };
  return with_context(run(), fmt::format("write {}/{}", kProfileDir, kProfileFile));
}

}  // namespace nvct::mount
