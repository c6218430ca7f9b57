#include "nvct/request/volume_mounts.hpp"

#include <algorithm>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/request/cdi_name.hpp"

namespace nvct::request {
namespace {

std::string_view trim_slashes(std::string_view s) {
  while (!s.empty() && s.front() == '/') s.remove_prefix(1);
  while (!s.empty() && s.back() == '/') s.remove_suffix(1);
  return s;
}

// "vendor/class/name" or "vendor/class=name" -> "vendor/class=name".
std::string cdi_name_from_mount(std::string_view rest) {
  if (rest.find('=') != std::string_view::npos) return std::string(rest);
  auto first = rest.find('/');
  if (first == std::string_view::npos) return std::string(rest);
  auto second = rest.find('/', first + 1);
  if (second == std::string_view::npos) return std::string(rest);
  std::string out(rest);
  out[second] = '=';
  return out;
}

}  // namespace

MountRequests requests_from_mounts(const std::vector<SpecMount>& mounts) {
  MountRequests out;
  std::vector<std::string> seen;
  for (const auto& mount : mounts) {
    if (clean_path(mount.source) != "/dev/null") continue;
    std::string destination = clean_path(mount.destination);
    if (!strings::starts_with(destination, kDeviceListMountRoot)) continue;
    if (std::find(seen.begin(), seen.end(), destination) != seen.end()) continue;
    seen.push_back(destination);

    std::string_view request =
        trim_slashes(std::string_view(destination).substr(kDeviceListMountRoot.size()));
    if (request.empty()) continue;
    if (strings::starts_with(request, "cdi/")) {
      std::string name = cdi_name_from_mount(request.substr(4));
      if (auto parsed = parse_qualified_name(name); !parsed) {
        log::warn("Ignoring invalid CDI device request in volume mount {}: {}", destination,
                  parsed.error().message());
        continue;
      }
      out.devices.push_back(std::move(name));
    } else if (strings::starts_with(request, "imex/")) {
      out.imex_channels.emplace_back(request.substr(5));
    } else {
      out.devices.emplace_back(request);
    }
  }
  return out;
}

std::vector<std::string> requests_from_annotations(
    const std::vector<std::pair<std::string, std::string>>& sorted_annotations,
    const std::vector<std::string>& prefixes) {
  std::vector<std::string> out;
  for (const auto& annotation : sorted_annotations) {
    // Not a structured binding: clang 14 (the fuzz preset) cannot capture one in a lambda.
    const std::string& key = annotation.first;
    const std::string& value = annotation.second;
    bool matches = std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) {
      return !p.empty() && strings::starts_with(key, p);
    });
    if (!matches) continue;
    for (auto& item : strings::split(value, ',')) {
      if (!item.empty()) out.push_back(std::move(item));
    }
  }
  return out;
}

}  // namespace nvct::request
