#include "nvct/request/visible_devices.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "nvct/base/strings.hpp"

namespace nvct::request {

std::optional<std::vector<std::string>> parse_device_list(const std::optional<std::string>& value,
                                                          bool legacy_image) {
  if (!value) {
    if (legacy_image) return std::vector<std::string>{"all"};
    return std::nullopt;
  }
  std::vector<std::string> items = strings::split_trimmed(*value, ',');
  if (items.empty() || std::find(items.begin(), items.end(), "void") != items.end()) {
    return std::nullopt;
  }
  for (const auto& item : items) {
    if (item == "all") return std::vector<std::string>{"all"};
    if (item == "none") return std::vector<std::string>{""};
  }
  // The reference stores ids in a map from id to its last index and then fills a slice of the
  // original length, leaving "" at the earlier slots of a duplicate. Kept so that the hook's
  // --device list is identical ("--device=,1,0"); the mount library skips empty items.
  std::unordered_map<std::string_view, std::size_t> last_index;
  for (std::size_t i = 0; i < items.size(); ++i) last_index[items[i]] = i;
  std::vector<std::string> out(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (last_index[items[i]] == i) out[i] = items[i];
  }
  return out;
}

std::optional<std::string> device_list_value(const Environment& env, const config::Config& cfg) {
  std::vector<std::string> values;
  bool any_present = false;
  for (const auto& name : strings::split_trimmed(cfg.swarm_resource, ',')) {
    auto it = env.find(name);
    if (it == env.end()) continue;
    any_present = true;
    values.push_back(it->second);
  }
  if (any_present) return strings::join(values, ",");
  auto it = env.find(kVisibleDevicesEnv);
  if (it == env.end()) return std::nullopt;
  return it->second;
}

std::string device_list_source(const Environment& env, const config::Config& cfg) {
  std::vector<std::string> names;
  for (const auto& name : strings::split_trimmed(cfg.swarm_resource, ','))
    if (env.find(name) != env.end()) names.push_back(name);
  return names.empty() ? std::string(kVisibleDevicesEnv) : strings::join(names, ",");
}

std::optional<std::vector<std::string>> visible_devices_from_env(const Environment& env,
                                                                 const config::Config& cfg,
                                                                 bool legacy_image) {
  return parse_device_list(device_list_value(env, cfg), legacy_image);
}

std::vector<std::string> imex_channels_from_env(const Environment& env, bool legacy_image) {
  std::optional<std::string> value;
  if (auto it = env.find(kImexChannelsEnv); it != env.end()) value = it->second;
  auto list = parse_device_list(value, legacy_image);
  std::vector<std::string> out;
  if (!list || (list->size() == 1 && list->front() == "all")) return out;
  for (auto& id : *list) {
    if (id.empty() || std::find(out.begin(), out.end(), id) != out.end()) continue;
    out.push_back(id);
  }
  return out;
}

}  // namespace nvct::request
