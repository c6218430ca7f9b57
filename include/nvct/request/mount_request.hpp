// What the hook hands to the mount library for a GPU container (hook.md §5, spec/request.md
// §5-§7): devices, MIG and IMEX options, capabilities and requirements, all resolved and checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"
#include "nvct/request/request.hpp"

namespace nvct::request {

inline constexpr std::uint32_t kImexChannelLimit = 1u << 20;

struct MountRequest {
  // --device=<devices joined by ','>; empty (not a GPU container, or "none") = no --device.
  std::string device_list;
  std::string device_source;        // Request::devices_source, named by an unknown device's error
  std::string mig_config_devices;   // --mig-config=, verbatim; "" = unset
  std::string mig_monitor_devices;  // --mig-monitor=, verbatim; "" = unset
  std::vector<std::uint32_t> imex_channels;  // --imex-channel=a,b
  std::vector<std::string> capabilities;     // sorted; each is --<name>
  std::vector<std::string> requirements;     // one --require each
};

// Decimal channel numbers below 2^20; otherwise "unsupported IMEX channel value: <v>".
Result<std::vector<std::uint32_t>> imex_channel_numbers(const std::vector<std::string>& channels);

// Fails, like the reference hook, when an unprivileged container sets NVIDIA_MIG_CONFIG_DEVICES
// or NVIDIA_MIG_MONITOR_DEVICES, on unsupported capabilities, an invalid CUDA_VERSION of a legacy
// image, or an invalid IMEX channel.
Result<MountRequest> mount_request(const Request& req, const config::Config& cfg);

}  // namespace nvct::request
