#include "nvct/request/feature_variables.hpp"

#include <array>
#include <string_view>
#include <utility>

namespace nvct::request {

std::vector<std::string> gated_device_modes(const Request& req) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kGated = {{
      {"NVIDIA_GDS", "gds"},
      {"NVIDIA_MOFED", "mofed"},
      {"NVIDIA_GDRCOPY", "gdrcopy"},
      {"NVIDIA_NVSWITCH", "nvswitch"},
  }};
  std::vector<std::string> out;
  for (const auto& [name, mode] : kGated) {
    if (req.getenv(name) == "enabled") out.emplace_back(mode);
  }
  return out;
}

bool csv_mounts_all(const Request& req) {
  return req.getenv("NVIDIA_REQUIRE_JETPACK") == "csv-mounts=all";
}

}  // namespace nvct::request
