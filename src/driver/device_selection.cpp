#include "nvct/driver/device_selection.hpp"

#include <fmt/format.h>

#include <algorithm>

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

// In the order asked for, each once: libnvidia-container lists and mounts the devices in the
// order of the request (a MIG device brings its parent GPU in at that point).
struct Picks {
  std::vector<std::size_t> gpus;
  std::vector<std::pair<std::size_t, std::size_t>> migs;
  bool add_gpu(std::size_t g) {
    if (std::find(gpus.begin(), gpus.end(), g) == gpus.end()) gpus.push_back(g);
    return true;
  }
  bool add_mig(std::size_t g, std::size_t m) {
    add_gpu(g);
    if (std::find(migs.begin(), migs.end(), std::pair{g, m}) == migs.end()) migs.emplace_back(g, m);
    return true;
  }
};

bool pick_item(const std::vector<Gpu>& gpus, std::string_view item, Picks& picks) {
  if (istarts_with(item, "GPU-")) {
    for (const auto& g : gpus)
      if (iequals(g.uuid, item)) return picks.add_gpu(g.index);
    return false;
  }
  if (auto bus = normalize_pci_bus_id(item)) {
    for (const auto& g : gpus)
      if (istarts_with(g.bus_id, *bus)) return picks.add_gpu(g.index);
    return false;
  }
  if (auto index = parse_unsigned(item)) {
    if (*index >= gpus.size()) return false;
    return picks.add_gpu(*index);
  }
  if (istarts_with(item, "MIG-")) {
    for (const auto& g : gpus)
      for (std::size_t m = 0; m < g.migs.size(); ++m)
        if (iequals(g.migs[m].uuid, item)) return picks.add_mig(g.index, m);
    return false;
  }
  auto colon = item.find(':');
  if (colon == std::string_view::npos) return false;
  auto gi = parse_unsigned(item.substr(0, colon));
  auto mi = parse_unsigned(item.substr(colon + 1));
  if (!gi || !mi || *gi >= gpus.size()) return false;
  const Gpu& g = gpus[*gi];
  for (std::size_t m = 0; m < g.migs.size(); ++m)
    if (g.migs[m].index == *mi) return picks.add_mig(*gi, m);
  return false;
}

// Enough to pick from on a large MIG host without a message of kilobytes.
constexpr std::size_t kMaxListedDevices = 32;

}  // namespace

std::string describe_valid_devices(const std::vector<Gpu>& gpus) {
  if (gpus.empty()) return "none: the driver reports no GPU";
  std::vector<std::string> names;
  for (const auto& g : gpus) names.push_back(fmt::format("{} ({})", g.index, g.uuid));
  for (const auto& g : gpus)
    for (const auto& m : g.migs)
      names.push_back(fmt::format("{}:{} ({})", g.index, m.index, m.uuid));
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kMaxListedDevices; ++i) {
    out += names[i];
    out += ", ";
  }
  if (names.size() > kMaxListedDevices)
    out += fmt::format("and {} more, ", names.size() - kMaxListedDevices);
  return out + "or all";
}

Result<DeviceSelection> select_devices(const std::vector<Gpu>& gpus, std::string_view list,
                                       std::string_view source) {
  DeviceSelection sel;
  Picks picks;
  for (const auto& raw : strings::split(list, ',')) {
    std::string_view item = raw;
    if (item.empty()) continue;
    if (iequals(item, "all")) {
      sel.all = true;  // what was asked before keeps its place; the rest follows in index order
      for (const auto& g : gpus) {
        picks.add_gpu(g.index);
        for (std::size_t m = 0; m < g.migs.size(); ++m) picks.add_mig(g.index, m);
      }
      break;  // the rest of the list is ignored
    }
    if (!pick_item(gpus, item, picks)) {
      std::string from = source.empty() ? "" : fmt::format(" (from {})", source);
      return fail(ENODEV, fmt::format("{}: unknown device{}; valid devices: {}", item, from,
                                      describe_valid_devices(gpus)));
    }
  }
  sel.gpus = std::move(picks.gpus);
  sel.migs = std::move(picks.migs);
  return sel;
}

}  // namespace nvct::driver
