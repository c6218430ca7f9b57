#include "nvct/request/mount_request.hpp"

#include <fmt/format.h>

#include "nvct/base/strings.hpp"
#include "nvct/request/capabilities.hpp"
#include "nvct/request/requirements.hpp"

namespace nvct::request {
namespace {

// MIG configuration and monitoring reach every GPU instance on the host, so only privileged
// containers may ask for them.
Result<std::string> mig_variable(const Request& req, const char* suffix) {
  std::string name = fmt::format("NVIDIA_{}", suffix);
  std::string value = req.getenv(name).value_or("");
  if (!value.empty() && !req.privileged) {
    // The reference's words first; then the variable as the user wrote it and the fix.
    return fail(EPERM, fmt::format("cannot set {} in non privileged container: {}={} needs a "
                                   "privileged container (docker run --privileged); unset it "
                                   "otherwise",
                                   suffix, name, value));
  }
  return value;
}

}  // namespace

Result<std::vector<std::uint32_t>> imex_channel_numbers(const std::vector<std::string>& channels) {
  std::vector<std::uint32_t> out;
  out.reserve(channels.size());
  for (const auto& channel : channels) {
    bool digits = !channel.empty() && channel.size() <= 7 &&
                  channel.find_first_not_of("0123456789") == std::string::npos;
    std::uint32_t value = 0;
    if (digits) {
      for (char c : channel) value = value * 10 + static_cast<std::uint32_t>(c - '0');
    }
    if (!digits || value >= kImexChannelLimit) {
      return fail(fmt::format("unsupported IMEX channel value: {}", channel));
    }
    out.push_back(value);
  }
  return out;
}

Result<MountRequest> mount_request(const Request& req, const config::Config& cfg) {
  MountRequest out;
  if (req.devices) out.device_list = strings::join(*req.devices, ",");
  out.device_source = req.devices_source;
  NVCT_ASSIGN_OR_RETURN(out.mig_config_devices, mig_variable(req, "MIG_CONFIG_DEVICES"));
  NVCT_ASSIGN_OR_RETURN(out.mig_monitor_devices, mig_variable(req, "MIG_MONITOR_DEVICES"));
  auto channels = imex_channel_numbers(req.imex_channels);
  if (!channels) {
    return fail(channels.error().code(),
                channels.error().message() +
                    " (NVIDIA_IMEX_CHANNELS and the imex volume mounts take channel numbers below "
                    "1048576, or all)");
  }
  out.imex_channels = std::move(*channels);
  NVCT_ASSIGN_OR_RETURN(out.capabilities, driver_capabilities(req, cfg));
  NVCT_ASSIGN_OR_RETURN(out.requirements, requirements(req, cfg));
  return out;
}

}  // namespace nvct::request
