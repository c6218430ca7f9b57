// NVIDIA_DRIVER_CAPABILITIES and supported-driver-capabilities (spec/request.md §5, hook.md §3).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"
#include "nvct/request/request.hpp"

namespace nvct::request {

inline constexpr const char* kDriverCapabilitiesEnv = "NVIDIA_DRIVER_CAPABILITIES";
// Every capability name the toolkit knows ("all" aside), sorted.
inline constexpr std::string_view kAllCapabilities =
    "compat32,compute,display,graphics,ngx,utility,video";
inline constexpr std::string_view kDefaultCapabilities = "compute,utility";

// Splits on ',', trims, drops empty items; returns the names sorted and unique.
std::vector<std::string> parse_capability_list(std::string_view value);

// supported-driver-capabilities: "all" is the full set; any other name is an error.
Result<std::vector<std::string>> supported_capabilities(const config::Config& cfg);

// The capabilities the hook passes on (each becomes --<name>), sorted:
//   unset: legacy image -> all supported; otherwise compute,utility ∩ supported
//   empty: compute,utility ∩ supported
//   "all" among the items -> all supported
//   otherwise the items; one that is not supported -> "unsupported capabilities found ..."
Result<std::vector<std::string>> driver_capabilities(const Request& req, const config::Config& cfg);

// The runtime's raw view (graphics modifier): no defaults; "all" matches every capability.
bool requests_capability(const Request& req, std::string_view capability);

}  // namespace nvct::request
