#include "nvct/driver/device_selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "nvct/base/strings.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::driver {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strings::to_lower(a) == strings::to_lower(b);
}

bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

struct Picks {
  std::set<std::size_t> gpus;
  std::set<std::pair<std::size_t, std::size_t>> migs;
};

bool pick_item(const std::vector<Gpu>& gpus, std::string_view item, Picks& picks) {
  if (istarts_with(item, "GPU-")) {
    for (const auto& g : gpus)
      if (iequals(g.uuid, item)) return picks.gpus.insert(g.index), true;
    return false;
  }
  if (auto bus = normalize_pci_bus_id(item)) {
    for (const auto& g : gpus)
      if (istarts_with(g.bus_id, *bus)) return picks.gpus.insert(g.index), true;
    return false;
  }
  if (auto index = parse_unsigned(item)) {
    if (*index >= gpus.size()) return false;
    picks.gpus.insert(*index);
    return true;
  }
  if (istarts_with(item, "MIG-")) {
    for (const auto& g : gpus)
      for (std::size_t m = 0; m < g.migs.size(); ++m)
        if (iequals(g.migs[m].uuid, item)) return picks.migs.insert({g.index, m}), true;
    return false;
  }
  auto colon = item.find(':');
  if (colon == std::string_view::npos) return false;
  auto gi = parse_unsigned(item.substr(0, colon));
  auto mi = parse_unsigned(item.substr(colon + 1));
  if (!gi || !mi || *gi >= gpus.size()) return false;
  const Gpu& g = gpus[*gi];
  for (std::size_t m = 0; m < g.migs.size(); ++m)
    if (g.migs[m].index == *mi) return picks.migs.insert({*gi, m}), true;
  return false;
}

}  // namespace

Result<DeviceSelection> select_devices(const std::vector<Gpu>& gpus, std::string_view list) {
  DeviceSelection sel;
  Picks picks;
  for (const auto& raw : strings::split(list, ',')) {
    std::string_view item = raw;
    if (item.empty()) continue;
    if (iequals(item, "all")) {
      sel.all = true;
      picks = {};
      for (const auto& g : gpus) {
        picks.gpus.insert(g.index);
        for (std::size_t m = 0; m < g.migs.size(); ++m) picks.migs.insert({g.index, m});
      }
      break;  // the rest of the list is ignored
    }
    if (!pick_item(gpus, item, picks)) return fail(ENODEV, fmt::format("{}: unknown device", item));
  }
  // Selecting a MIG device also selects its parent GPU.
  for (const auto& [g, m] : picks.migs) picks.gpus.insert(g);
  sel.gpus.assign(picks.gpus.begin(), picks.gpus.end());
  sel.migs.assign(picks.migs.begin(), picks.migs.end());
  return sel;
}

}  // namespace nvct::driver
