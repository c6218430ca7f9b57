#include "nvct/request/capabilities.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "nvct/base/strings.hpp"

namespace nvct::request {
namespace {

bool contains(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::vector<std::string> intersect(const std::vector<std::string>& a,
                                   const std::vector<std::string>& b) {
  std::vector<std::string> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace

std::vector<std::string> parse_capability_list(std::string_view value) {
  std::vector<std::string> out = strings::split_trimmed(value, ',');
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<std::vector<std::string>> supported_capabilities(const config::Config& cfg) {
  const std::vector<std::string> all = parse_capability_list(kAllCapabilities);
  std::vector<std::string> supported = parse_capability_list(cfg.supported_driver_capabilities);
  if (contains(supported, "all")) return all;
  for (const auto& cap : supported) {
    if (!contains(all, cap)) {
      return fail(
          fmt::format("invalid supported-driver-capabilities '{}': unknown capability '{}' "
                      "(allowed '{}')",
                      cfg.supported_driver_capabilities, cap, kAllCapabilities));
    }
  }
  return supported;
}

Result<std::vector<std::string>> driver_capabilities(const Request& req,
                                                     const config::Config& cfg) {
  NVCT_ASSIGN_OR_RETURN(std::vector<std::string> supported, supported_capabilities(cfg));
  auto value = req.getenv(kDriverCapabilitiesEnv);
  if (!value && req.is_legacy_image()) return supported;
  std::vector<std::string> requested = parse_capability_list(value.value_or(""));
  if (requested.empty()) return intersect(parse_capability_list(kDefaultCapabilities), supported);
  if (contains(requested, "all")) return supported;
  for (const auto& cap : requested) {
    if (!contains(supported, cap)) {
      // The reference's words first; then the variable and the fix.
      return fail(
          fmt::format("unsupported capabilities found in '{}' (allowed '{}'): {} names "
                      "'{}'; use the allowed ones or all",
                      *value, strings::join(supported, ","), kDriverCapabilitiesEnv, cap));
    }
  }
  return requested;
}

bool requests_capability(const Request& req, std::string_view capability) {
  auto value = req.getenv(kDriverCapabilitiesEnv);
  if (!value) return false;
  auto requested = parse_capability_list(*value);
  return contains(requested, "all") || contains(requested, capability);
}

}  // namespace nvct::request
