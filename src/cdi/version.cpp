// Known CDI versions and the minimum-version rules of the release history in spec/cdi.md §1.
#include "nvct/cdi/version.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace nvct::cdi {
namespace {

bool parse_component(std::string_view text, int& out) {
  if (text.empty() || text.size() > 9) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

bool edits_use_mount_type(const ContainerEdits& e) {
  return std::any_of(e.mounts.begin(), e.mounts.end(),
                     [](const Mount& m) { return !m.type.empty(); });
}

bool edits_use_host_path(const ContainerEdits& e) {
  return std::any_of(e.device_nodes.begin(), e.device_nodes.end(),
                     [](const DeviceNode& d) { return !d.host_path.empty(); });
}

bool edits_need_v070(const ContainerEdits& e) {
  return e.intel_rdt.has_value() || !e.additional_gids.empty();
}

bool edits_need_v110(const ContainerEdits& e) {
  if (!e.net_devices.empty()) return true;
  return e.intel_rdt && (!e.intel_rdt->schemata.empty() || e.intel_rdt->enable_monitoring);
}

}  // namespace

std::string Version::str() const { return fmt::format("{}.{}.{}", major, minor, patch); }

Result<Version> parse_version(std::string_view text) {
  std::string_view t = text;
  if (!t.empty() && t.front() == 'v') t.remove_prefix(1);
  Version v;
  auto dot1 = t.find('.');
  auto dot2 = dot1 == std::string_view::npos ? dot1 : t.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || !parse_component(t.substr(0, dot1), v.major) ||
      !parse_component(t.substr(dot1 + 1, dot2 - dot1 - 1), v.minor) ||
      !parse_component(t.substr(dot2 + 1), v.patch)) {
    return fail(fmt::format("invalid version \"{}\"", text));
  }
  return v;
}

const std::vector<Version>& known_versions() {
  static const std::vector<Version> kKnown = {{0, 1, 0}, {0, 2, 0}, {0, 3, 0}, {0, 4, 0},
                                              {0, 5, 0}, {0, 6, 0}, {0, 7, 0}, {0, 8, 0},
                                              {1, 0, 0}, {1, 1, 0}};
  return kKnown;
}

bool is_known_version(std::string_view text) {
  auto v = parse_version(text);
  if (!v) return false;
  const auto& known = known_versions();
  return std::find(known.begin(), known.end(), *v) != known.end();
}

Version minimum_required_version(const Spec& spec) {
  Version min{0, 3, 0};
  auto raise = [&](Version v) { min = std::max(min, v); };

  std::vector<const ContainerEdits*> all_edits{&spec.container_edits};
  for (const auto& d : spec.devices) all_edits.push_back(&d.container_edits);

  for (const auto* e : all_edits) {
    if (edits_use_mount_type(*e)) raise({0, 4, 0});
    if (edits_use_host_path(*e)) raise({0, 5, 0});
    if (edits_need_v070(*e)) raise({0, 7, 0});
    if (edits_need_v110(*e)) raise({1, 1, 0});
  }
  for (const auto& d : spec.devices) {
    if (!d.name.empty() && d.name.front() >= '0' && d.name.front() <= '9') raise({0, 5, 0});
    if (!d.annotations.empty()) raise({0, 6, 0});
  }
  if (!spec.annotations.empty()) raise({0, 6, 0});
  auto slash = spec.kind.find('/');
  if (slash != std::string::npos && spec.kind.find('.', slash + 1) != std::string::npos) {
    raise({0, 6, 0});
  }
  return min;
}

Status validate_version(const Spec& spec) {
  if (!is_known_version(spec.cdi_version)) {
    return fail(fmt::format("invalid version \"{}\"", spec.cdi_version));
  }
  Version have = *parse_version(spec.cdi_version);
  Version need = minimum_required_version(spec);
  if (have < need) {
    return fail(fmt::format("the spec version must be at least v{}", need.str()));
  }
  return ok();
}

}  // namespace nvct::cdi
