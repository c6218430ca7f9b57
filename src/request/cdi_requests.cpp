#include "nvct/request/cdi_requests.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "nvct/request/cdi_name.hpp"

namespace nvct::request {

std::vector<std::string> cdi_device_requests(const std::vector<std::string>& devices,
                                             std::string_view default_kind) {
  std::vector<std::string> out;
  for (const auto& device : devices) {
    std::string id = device.empty() ? std::string("none") : device;
    std::string name = is_qualified_name(id) ? id : fmt::format("{}={}", default_kind, id);
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
  }
  return out;
}

Result<std::string> cdi_annotation_key(std::string_view plugin, std::string_view device_id) {
  std::string name = fmt::format("{}_{}", plugin, device_id);
  std::replace(name.begin(), name.end(), '/', '_');
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  bool valid = !name.empty() && name.size() <= 63 && alnum(name.front()) && alnum(name.back()) &&
               std::all_of(name.begin(), name.end(),
                           [&](char c) { return alnum(c) || c == '_' || c == '.' || c == '-'; });
  if (!valid) {
    return fail(
        fmt::format("invalid CDI annotation key name '{}': at most 63 characters of "
                    "[A-Za-z0-9_.-], starting and ending with a letter or digit",
                    name));
  }
  return "cdi.k8s.io/" + name;
}

}  // namespace nvct::request
