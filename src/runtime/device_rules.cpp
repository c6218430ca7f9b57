#include "nvct/runtime/device_rules.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/driver/device_selection.hpp"
#include "nvct/driver/proc_devices.hpp"
#include "nvct/driver/procfs.hpp"
#include "nvct/request/capabilities.hpp"

namespace nvct::runtime {
namespace {

using nlohmann::ordered_json;

bool has(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

template <typename T>
std::optional<T> number_of(const ordered_json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<T>();
}

// A view of the member (no copy: every node is compared with every device and rule).
std::string_view string_of(const ordered_json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return {};
  return it->get_ref<const std::string&>();
}

bool is_allow_rule_for(const ordered_json& rule, const SpecDeviceNode& node) {
  if (!rule.is_object()) return false;
  auto allow = rule.find("allow");
  return allow != rule.end() && allow->is_boolean() && allow->get<bool>() &&
         string_of(rule, "type") == "c" && number_of<long long>(rule, "major") == node.major &&
         number_of<long long>(rule, "minor") == node.minor && string_of(rule, "access") == "rwm";
}

}  // namespace

// The object at spec[key], created when absent or null; any other type is an error.
Result<ordered_json*> object_field(ordered_json& parent, const char* key, std::string_view what) {
  auto it = parent.find(key);
  if (it == parent.end() || it->is_null()) {
    parent[key] = ordered_json::object();
    return &parent[key];
  }
  if (!it->is_object()) return fail(EINVAL, fmt::format("{} is not an object", what));
  return &*it;
}

Result<ordered_json*> array_field(ordered_json& parent, const char* key, std::string_view what) {
  auto it = parent.find(key);
  if (it == parent.end() || it->is_null()) {
    parent[key] = ordered_json::array();
    return &parent[key];
  }
  if (!it->is_array()) return fail(EINVAL, fmt::format("{} is not an array", what));
  return &*it;
}

Result<DeviceFacts> read_device_facts(const driver::DriverRoot& root) {
  // The procfs files directly, not driver::nvml_facts_from_procfs: that object file also holds
  // the NVML discovery, which would drag dlopen into the statically linked shim.
  if (!root.exists(driver::kProcDriverVersion))
    return fail(ENOENT, fmt::format("the NVIDIA driver is not loaded under {} (no {})",
                                    root.path(), driver::kProcDriverVersion));
  DeviceFacts facts;
  auto dirs = root.list_dir(driver::kProcGpus);
  for (const auto& d : dirs ? *dirs : std::vector<std::string>{}) {
    std::string file = fmt::format("{}/{}/information", driver::kProcGpus, d);
    NVCT_ASSIGN_OR_RETURN(std::string text, root.read(file, 64 * 1024));
    NVCT_ASSIGN_OR_RETURN(auto info,
                          with_context(driver::parse_proc_gpu_information(text), file));
    driver::Gpu gpu;
    gpu.minor = info.minor;
    gpu.uuid = info.uuid;
    gpu.model = info.model;
    gpu.bus_id = info.bus_id;
    facts.gpus.push_back(std::move(gpu));
  }
  // NVML enumerates GPUs in PCI bus order; indices in NVIDIA_VISIBLE_DEVICES follow it.
  std::sort(facts.gpus.begin(), facts.gpus.end(),
            [](const driver::Gpu& a, const driver::Gpu& b) { return a.bus_id < b.bus_id; });
  for (std::size_t i = 0; i < facts.gpus.size(); ++i)
    facts.gpus[i].index = static_cast<unsigned>(i);
  if (auto text = driver::read_proc_devices(root)) {
    auto majors = driver::parse_proc_devices(*text);
    if (auto it = majors.find("nvidia-frontend"); it != majors.end())
      facts.nvidia_major = it->second;
    else if (auto nv = majors.find("nvidia"); nv != majors.end())
      facts.nvidia_major = nv->second;
    if (auto uvm = majors.find("nvidia-uvm"); uvm != majors.end()) facts.uvm_major = uvm->second;
  }
  for (auto& gpu : facts.gpus)
    gpu.node = {fmt::format("/dev/nvidia{}", gpu.minor), facts.nvidia_major, gpu.minor};
  return facts;
}

std::optional<std::vector<SpecDeviceNode>> nodes_for_request(
    const DeviceFacts& facts, const std::vector<std::string>& devices,
    const std::vector<std::string>& capabilities) {
  auto selection = driver::select_devices(facts.gpus, strings::join(devices, ","));
  if (!selection) {
    log::info("device request [{}] is left to the hook: {}", strings::join(devices, ","),
              selection.error().message());
    return std::nullopt;
  }
  std::vector<SpecDeviceNode> nodes;
  nodes.push_back({"/dev/nvidiactl", facts.nvidia_major, driver::kNvidiaCtlMinor});
  if (has(capabilities, "compute")) {
    if (facts.uvm_major) {
      nodes.push_back({"/dev/nvidia-uvm", *facts.uvm_major, 0});
      nodes.push_back({"/dev/nvidia-uvm-tools", *facts.uvm_major, 1});
    } else {
      log::info("nvidia-uvm is not in /proc/devices; its nodes are left to the hook");
    }
  }
  if (has(capabilities, "display"))
    nodes.push_back({"/dev/nvidia-modeset", facts.nvidia_major, driver::kNvidiaModesetMinor});
  for (std::size_t i : selection->gpus) {
    const auto& gpu = facts.gpus[i];
    nodes.push_back({gpu.node.path, gpu.node.major, gpu.node.minor});
  }
  return nodes;
}

void stat_host_nodes(const driver::DriverRoot& root, std::vector<SpecDeviceNode>& nodes) {
  for (auto& node : nodes) {
    auto st = root.stat(node.path);
    if (!st || !S_ISCHR(st->st_mode) || st->st_rdev != makedev(node.major, node.minor)) continue;
    node.mode = st->st_mode & 0777;
    node.uid = st->st_uid;
    node.gid = st->st_gid;
  }
}

Result<bool> add_nodes_to_spec(ordered_json& spec, const std::vector<SpecDeviceNode>& nodes) {
  if (!spec.is_object()) return fail(EINVAL, "the spec is not a JSON object");
  // ordered_json keeps an object's members in a vector: adding a member moves its siblings, so
  // every member is created first and the pointers are taken afterwards.
  NVCT_ASSIGN_OR_RETURN(ordered_json * linux_obj, object_field(spec, "linux", "linux"));
  NVCT_TRY(array_field(*linux_obj, "devices", "linux.devices"));
  NVCT_ASSIGN_OR_RETURN(ordered_json * resources,
                        object_field(*linux_obj, "resources", "linux.resources"));
  NVCT_ASSIGN_OR_RETURN(ordered_json * rules,
                        array_field(*resources, "devices", "linux.resources.devices"));
  ordered_json* devices = &(*linux_obj)["devices"];
  bool changed = false;
  for (const auto& node : nodes) {
    auto same_path = std::find_if(devices->begin(), devices->end(), [&](const ordered_json& d) {
      return d.is_object() && string_of(d, "path") == node.path;
    });
    if (same_path == devices->end()) {
      ordered_json entry = ordered_json::object();
      entry["path"] = node.path;
      entry["type"] = "c";
      entry["major"] = node.major;
      entry["minor"] = node.minor;
      entry["fileMode"] = static_cast<unsigned>(node.mode);
      entry["uid"] = static_cast<unsigned>(node.uid);
      entry["gid"] = static_cast<unsigned>(node.gid);
      devices->push_back(std::move(entry));
      log::info("added device {} (c {}:{}, mode {:o}) to linux.devices", node.path, node.major,
                node.minor, node.mode);
      changed = true;
    } else if (string_of(*same_path, "type") != "c" ||
               number_of<long long>(*same_path, "major") != node.major ||
               number_of<long long>(*same_path, "minor") != node.minor) {
      log::warn("linux.devices already has {} as another device; only its cgroup rule is added",
                node.path);
    }
    bool has_rule = std::any_of(rules->begin(), rules->end(),
                                [&](const ordered_json& r) { return is_allow_rule_for(r, node); });
    if (!has_rule) {
      // Appended after the engine's default deny rule: device rules apply in order.
      ordered_json rule = ordered_json::object();
      rule["allow"] = true;
      rule["type"] = "c";
      rule["major"] = node.major;
      rule["minor"] = node.minor;
      rule["access"] = "rwm";
      rules->push_back(std::move(rule));
      log::info("added cgroup rule allow c {}:{} rwm ({})", node.major, node.minor, node.path);
      changed = true;
    }
  }
  return changed;
}

Result<bool> add_device_rules(ordered_json& spec, const request::Request& request,
                              const config::Config& cfg) {
  if (!request.is_gpu_container()) return false;
  auto root = driver::DriverRoot::open(cfg.cli.root);
  if (!root) {
    log::info("device rules left to the hook: driver root: {}", root.error().message());
    return false;
  }
  auto facts = read_device_facts(*root);
  if (!facts) {
    log::info("device rules left to the hook: {}", facts.error().message());
    return false;
  }
  auto caps = request::driver_capabilities(request, cfg);
  if (!caps) {
    log::info("device rules left to the hook: {}", caps.error().message());
    return false;
  }
  auto nodes = nodes_for_request(*facts, *request.devices, *caps);
  if (!nodes) return false;
  stat_host_nodes(*root, *nodes);
  return add_nodes_to_spec(spec, *nodes);
}

}  // namespace nvct::runtime
