#include "nvct/cdi_hooks/application_profile.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/mount/container_path.hpp"
#include "nvct/mount/target.hpp"

namespace nvct::cdi_hooks {
namespace {

constexpr std::size_t kMaxProfile = 64u << 10;
constexpr std::string_view kSetting = "EGLVisibleDGPUDevices";

// "/dev/nvidia3" -> 3; nullopt for nvidiactl, nvidia-uvm, nvidia-caps/... and the like.
std::optional<unsigned long> gpu_index(std::string_view path) {
  static constexpr std::string_view kPrefix = "/dev/nvidia";
  if (path.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  std::string_view rest = path.substr(kPrefix.size());
  if (rest.empty() || rest.size() > 6 || rest.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoul(std::string(rest));
}

}  // namespace

Result<std::uint64_t> gpu_mask_of_spec(const nlohmann::ordered_json& spec) {
  std::uint64_t mask = 0;
  if (!spec.is_object() || !spec.contains("linux") || !spec["linux"].is_object()) return mask;
  const auto& lnx = spec["linux"];
  if (!lnx.contains("devices") || !lnx["devices"].is_array()) return mask;
  for (const auto& dev : lnx["devices"]) {
    if (!dev.is_object() || !dev.contains("path") || !dev["path"].is_string()) continue;
    auto index = gpu_index(dev["path"].get_ref<const std::string&>());
    if (!index) continue;
    unsigned long minor = *index;
    if (dev.contains("minor") && dev["minor"].is_number_unsigned())
      minor = dev["minor"].get<unsigned long>();
    if (minor >= 64)
      return fail(ERANGE, fmt::format("GPU minor {} does not fit the profile mask", minor));
    mask |= std::uint64_t{1} << minor;
  }
  return mask;
}

std::optional<std::uint64_t> parse_profile_mask(std::string_view text) {
  auto at = text.find(kSetting);
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
      kSetting, mask);
}

Result<std::optional<std::uint64_t>> update_application_profile(
    const mount::Root& rootfs, const nlohmann::ordered_json& spec) {
  using Out = std::optional<std::uint64_t>;
  auto run = [&]() -> Result<Out> {
    NVCT_ASSIGN_OR_RETURN(std::uint64_t mask, gpu_mask_of_spec(spec));
    if (mask == 0) {
      log::debug("the container has no GPU device; no application profile");
      return Out();
    }
    NVCT_ASSIGN_OR_RETURN(unique_fd dir, mount::mkdir_all_in_root(rootfs, kProfileDir));
    NVCT_ASSIGN_OR_RETURN(std::string where, rootfs.relative_path(dir.get()));
    NVCT_TRY(
        mount::check_resolved_location(where + "/" + kProfileFile, mount::PathPolicy::kDefault));
    struct stat st {};
    if (::fstatat(dir.get(), kProfileFile, &st, AT_SYMLINK_NOFOLLOW) == 0) {
      if (!S_ISREG(st.st_mode))
        return fail(EINVAL, fmt::format("{}/{} is not a regular file", where, kProfileFile));
      NVCT_ASSIGN_OR_RETURN(std::string old, read_file_at(dir.get(), kProfileFile, kMaxProfile));
      if (auto existing = parse_profile_mask(old)) mask |= *existing;
    } else if (errno != ENOENT) {
      return fail_errno(fmt::format("stat {}/{}", where, kProfileFile));
    }
    NVCT_TRY(write_file_atomic_at(dir.get(), kProfileFile, render_profile(mask)));
    log::info("wrote {}/{} with {} {:#x}", where, kProfileFile, kSetting, mask);
    return Out(mask);
  };
  return with_context(run(), "update-application-profile");
}

}  // namespace nvct::cdi_hooks
