#include "nvct/cdi_hooks/application_profile.hpp"

#include <fmt/format.h>

#include <limits>
#include <vector>

#include "nvct/base/log.hpp"
#include "nvct/mount/app_profile.hpp"
#include "nvct/mount/container_path.hpp"
#include "nvct/mount/target.hpp"

namespace nvct::cdi_hooks {
namespace {

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
  std::vector<unsigned> minors;
  if (!spec.is_object() || !spec.contains("linux") || !spec["linux"].is_object()) return 0;
  const auto& lnx = spec["linux"];
  if (!lnx.contains("devices") || !lnx["devices"].is_array()) return 0;
  for (const auto& dev : lnx["devices"]) {
    if (!dev.is_object() || !dev.contains("path") || !dev["path"].is_string()) continue;
    auto index = gpu_index(dev["path"].get_ref<const std::string&>());
    if (!index) continue;
    unsigned long minor = *index;
    if (dev.contains("minor") && dev["minor"].is_number_unsigned())
      minor = dev["minor"].get<unsigned long>();
    // Anything past unsigned is as unrepresentable in the mask as 64 is.
    minors.push_back(minor > std::numeric_limits<unsigned>::max()
                         ? std::numeric_limits<unsigned>::max()
                         : static_cast<unsigned>(minor));
  }
  return mount::profile_mask(minors);
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
    NVCT_ASSIGN_OR_RETURN(unique_fd dir, mount::mkdir_all_in_root(rootfs, mount::kProfileDir));
    NVCT_ASSIGN_OR_RETURN(std::string where, rootfs.relative_path(dir.get()));
    NVCT_TRY(mount::check_resolved_location(where + "/" + mount::kProfileFile,
                                            mount::PathPolicy::kDefault));
    NVCT_ASSIGN_OR_RETURN(std::uint64_t written,
                          mount::update_profile_file(dir.get(), where, mask, 0644));
    return Out(written);
  };
  return with_context(run(), "update-application-profile");
}

}  // namespace nvct::cdi_hooks
