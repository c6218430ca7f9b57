// ContainerEdits -> OCI spec. Field shapes follow the OCI runtime spec's JSON (LinuxDevice,
// LinuxDeviceCgroup, Mount, Hook) with its omitempty rules.
#include "nvct/cdi/inject.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <optional>

#include <fmt/format.h>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/cdi/validate.hpp"

namespace nvct::cdi {
namespace {

using nlohmann::ordered_json;

// parent[key] as an object, created when absent or null.
Result<ordered_json*> object_at(ordered_json& parent, const char* key) {
  ordered_json& v = parent[key];
  if (v.is_null()) v = ordered_json::object();
  if (!v.is_object()) return fail(fmt::format("\"{}\" in the OCI spec is not an object", key));
  return &v;
}

Result<ordered_json*> array_at(ordered_json& parent, const char* key) {
  ordered_json& v = parent[key];
  if (v.is_null()) v = ordered_json::array();
  if (!v.is_array()) return fail(fmt::format("\"{}\" in the OCI spec is not a list", key));
  return &v;
}

std::string env_key(const std::string& entry) { return entry.substr(0, entry.find('=')); }

Status apply_env(ordered_json& spec, const std::vector<std::string>& env) {
  if (env.empty()) return ok();
  NVCT_ASSIGN_OR_RETURN(auto* process, object_at(spec, "process"));
  NVCT_ASSIGN_OR_RETURN(auto* list, array_at(*process, "env"));
  for (const auto& entry : env) {
    std::string key = env_key(entry);
    auto it = std::find_if(list->begin(), list->end(), [&](const ordered_json& e) {
      return e.is_string() && env_key(e.get<std::string>()) == key;
    });
    if (it != list->end()) {
      *it = entry;
    } else {
      list->push_back(entry);
    }
  }
  return ok();
}

std::optional<std::uint32_t> process_id(const ordered_json& spec, const char* key) {
  auto p = spec.find("process");
  if (p == spec.end() || !p->is_object()) return std::nullopt;
  auto u = p->find("user");
  if (u == p->end() || !u->is_object()) return std::nullopt;
  auto id = u->find(key);
  if (id == u->end() || !id->is_number_integer()) return std::nullopt;
  auto v = id->get<std::int64_t>();
  if (v <= 0 || v > static_cast<std::int64_t>(UINT32_MAX)) return std::nullopt;
  return static_cast<std::uint32_t>(v);
}

Status apply_device_node(ordered_json& spec, DeviceNode node, DeviceLookup& lookup) {
  NVCT_TRY(with_context(fill_missing_device_info(node, lookup),
                        fmt::format("failed to inject device node {}", node.path)));
  if (!node.uid) node.uid = process_id(spec, "uid");
  if (!node.gid) node.gid = process_id(spec, "gid");

  ordered_json dev = ordered_json::object();
  dev["path"] = node.path;
  dev["type"] = node.type;
  dev["major"] = node.major;
  dev["minor"] = node.minor;
  if (node.file_mode) dev["fileMode"] = *node.file_mode;
  if (node.uid) dev["uid"] = *node.uid;
  if (node.gid) dev["gid"] = *node.gid;

  NVCT_ASSIGN_OR_RETURN(auto* lx, object_at(spec, "linux"));
  NVCT_ASSIGN_OR_RETURN(auto* devices, array_at(*lx, "devices"));
  devices->erase(std::remove_if(devices->begin(), devices->end(),
                                [&](const ordered_json& d) {
                                  auto p = d.find("path");
                                  return d.is_object() && p != d.end() && *p == node.path;
                                }),
                 devices->end());
  devices->push_back(std::move(dev));
  log::info("CDI: device node {} ({} {}:{})", node.path, node.type, node.major, node.minor);

  if (node.type == "b" || node.type == "c") {
    std::string access = node.permissions;
    if (access.empty()) {
      access = "rwm";
    } else if (access == "none") {
      access.clear();
    }
    NVCT_ASSIGN_OR_RETURN(auto* resources, object_at(*lx, "resources"));
    NVCT_ASSIGN_OR_RETURN(auto* rules, array_at(*resources, "devices"));
    ordered_json rule = ordered_json::object();
    rule["allow"] = true;
    rule["type"] = node.type;
    rule["major"] = node.major;
    rule["minor"] = node.minor;
    if (!access.empty()) rule["access"] = access;
    rules->push_back(std::move(rule));
  }
  return ok();
}

bool has_user_namespace(const ordered_json& spec) {
  auto l = spec.find("linux");
  if (l == spec.end() || !l->is_object()) return false;
  auto ns = l->find("namespaces");
  if (ns == l->end() || !ns->is_array()) return false;
  return std::any_of(ns->begin(), ns->end(), [](const ordered_json& n) {
    return n.is_object() && n.value("type", ordered_json()) == "user";
  });
}

std::size_t depth_of(const ordered_json& mount) {
  std::string dst;
  auto d = mount.find("destination");
  if (mount.is_object() && d != mount.end() && d->is_string()) dst = d->get<std::string>();
  std::string clean = clean_path(dst);
  return static_cast<std::size_t>(std::count(clean.begin(), clean.end(), '/'));
}

Status apply_mounts(ordered_json& spec, const std::vector<Mount>& mounts) {
  if (mounts.empty()) return ok();
  bool userns = has_user_namespace(spec);
  NVCT_ASSIGN_OR_RETURN(auto* list, array_at(spec, "mounts"));
  for (const auto& m : mounts) {
    list->erase(std::remove_if(list->begin(), list->end(),
                               [&](const ordered_json& e) {
                                 auto d = e.find("destination");
                                 return e.is_object() && d != e.end() && *d == m.container_path;
                               }),
                list->end());
    std::vector<std::string> options = m.options;
    if (userns) {
      // A bind mount into a user namespace must be id-mapped to show the right owners.
      auto has = [&](const char* o) {
        return std::find(options.begin(), options.end(), o) != options.end();
      };
      if (has("rbind") && !has("ridmap")) {
        options.emplace_back("ridmap");
      } else if (has("bind") && !has("idmap")) {
        options.emplace_back("idmap");
      }
    }
    ordered_json mount = ordered_json::object();
    mount["destination"] = m.container_path;
    if (!m.type.empty()) mount["type"] = m.type;
    mount["source"] = m.host_path;
    if (!options.empty()) mount["options"] = options;
    list->push_back(std::move(mount));
    log::info("CDI: mount {} -> {} ({})", m.host_path, m.container_path,
              strings::join(options, ","));
  }
  // Shallow destinations first, otherwise in order. Each entry's depth is computed once: the
  // comparator used to clean both paths on every comparison (a sixth of a jit-cdi create's
  // instructions, callgrind, 8 GPUs).
  std::vector<std::pair<std::size_t, std::size_t>> order;  // (depth, index)
  order.reserve(list->size());
  for (std::size_t i = 0; i < list->size(); ++i) order.emplace_back(depth_of((*list)[i]), i);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  ordered_json sorted = ordered_json::array();
  sorted.get_ref<ordered_json::array_t&>().reserve(list->size());
  for (const auto& entry : order) sorted.push_back(std::move((*list)[entry.second]));
  *list = std::move(sorted);
  return ok();
}

Status apply_hooks(ordered_json& spec, const std::vector<Hook>& hooks) {
  for (const auto& h : hooks) {
    if (!is_valid_hook_name(h.hook_name)) {
      return fail(fmt::format("unknown hook name \"{}\"", h.hook_name));
    }
    NVCT_ASSIGN_OR_RETURN(auto* all, object_at(spec, "hooks"));
    NVCT_ASSIGN_OR_RETURN(auto* list, array_at(*all, h.hook_name.c_str()));
    ordered_json hook = ordered_json::object();
    hook["path"] = h.path;
    if (!h.args.empty()) hook["args"] = h.args;
    if (!h.env.empty()) hook["env"] = h.env;
    if (h.timeout) hook["timeout"] = *h.timeout;
    list->push_back(std::move(hook));
    log::info("CDI: {} hook {} {}", h.hook_name, h.path, strings::join(h.args, " "));
  }
  return ok();
}

Status apply_linux_extras(ordered_json& spec, const ContainerEdits& e) {
  if (!e.net_devices.empty()) {
    NVCT_ASSIGN_OR_RETURN(auto* lx, object_at(spec, "linux"));
    NVCT_ASSIGN_OR_RETURN(auto* net, object_at(*lx, "netDevices"));
    for (const auto& n : e.net_devices) (*net)[n.host_interface_name] = {{"name", n.name}};
  }
  if (e.intel_rdt) {
    NVCT_ASSIGN_OR_RETURN(auto* lx, object_at(spec, "linux"));
    ordered_json rdt = ordered_json::object();
    const IntelRdt& r = *e.intel_rdt;
    if (!r.clos_id.empty()) rdt["closID"] = r.clos_id;
    if (!r.l3_cache_schema.empty()) rdt["l3CacheSchema"] = r.l3_cache_schema;
    if (!r.mem_bw_schema.empty()) rdt["memBwSchema"] = r.mem_bw_schema;
    if (!r.schemata.empty()) rdt["schemata"] = r.schemata;
    if (r.enable_monitoring) rdt["enableMonitoring"] = true;
    (*lx)["intelRdt"] = std::move(rdt);
  }
  return ok();
}

Status apply_additional_gids(ordered_json& spec, const std::vector<std::uint32_t>& gids) {
  if (gids.empty()) return ok();
  NVCT_ASSIGN_OR_RETURN(auto* process, object_at(spec, "process"));
  NVCT_ASSIGN_OR_RETURN(auto* user, object_at(*process, "user"));
  NVCT_ASSIGN_OR_RETURN(auto* list, array_at(*user, "additionalGids"));
  for (auto gid : gids) {
    if (gid == 0) continue;
    if (std::find(list->begin(), list->end(), ordered_json(gid)) != list->end()) continue;
    list->push_back(gid);
  }
  return ok();
}

Status apply_all(ordered_json& spec, const ContainerEdits& edits, DeviceLookup& lookup) {
  if (!spec.is_object()) return fail("the OCI spec is not an object");
  NVCT_TRY(apply_env(spec, edits.env));
  for (const auto& node : edits.device_nodes) NVCT_TRY(apply_device_node(spec, node, lookup));
  NVCT_TRY(apply_mounts(spec, edits.mounts));
  NVCT_TRY(apply_hooks(spec, edits.hooks));
  NVCT_TRY(apply_linux_extras(spec, edits));
  NVCT_TRY(apply_additional_gids(spec, edits.additional_gids));
  return ok();
}

}  // namespace

Result<HostDeviceInfo> HostDeviceLookup::lstat(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return fail_errno(fmt::format("lstat {}", path));
  HostDeviceInfo info;
  if (S_ISBLK(st.st_mode)) {
    info.type = "b";
  } else if (S_ISCHR(st.st_mode)) {
    info.type = "c";
  } else if (S_ISFIFO(st.st_mode)) {
    info.type = "p";
  } else {
    return fail(ENODEV, fmt::format("{} is not a device node", path));
  }
  info.major = major(st.st_rdev);
  info.minor = minor(st.st_rdev);
  info.file_mode = st.st_mode & 07777;
  info.gid = st.st_gid;
  return info;
}

Status fill_missing_device_info(DeviceNode& node, DeviceLookup& lookup) {
  const std::string& host_path = node.host_path.empty() ? node.path : node.host_path;
  // Fully described nodes need no host node (a spec may describe a node created later).
  if (!node.type.empty() && (node.major != 0 || node.type == "p")) return ok();
  NVCT_ASSIGN_OR_RETURN(auto info, lookup.lstat(host_path));
  if (node.type.empty()) {
    node.type = info.type;
  } else if (node.type != info.type) {
    return fail(fmt::format("specified device type \"{}\" does not match host device type \"{}\"",
                            node.type, info.type));
  }
  if (node.major == 0 && node.type != "p") {
    node.major = info.major;
    node.minor = info.minor;
  }
  if (!node.file_mode) node.file_mode = info.file_mode;
  return ok();
}

Status apply_edits(ordered_json& oci_spec, const ContainerEdits& edits, DeviceLookup& lookup) {
  // Every access above checks types first; the catch is a backstop so that no nlohmann
  // exception can leave the library.
  try {
    return apply_all(oci_spec, edits, lookup);
  } catch (const std::exception& e) {
    return fail(fmt::format("failed to edit the OCI spec: {}", e.what()));
  }
}

Status inject_devices(ordered_json& oci_spec, const Registry& registry,
                      const std::vector<std::string>& qualified_names, DeviceLookup& lookup) {
  auto run = [&]() -> Status {
    NVCT_ASSIGN_OR_RETURN(auto edits, registry.collect_edits(qualified_names));
    return apply_edits(oci_spec, edits, lookup);
  };
  return with_context(run(), "failed to inject CDI devices");
}

std::string clean_path(std::string_view path) {
  if (path.empty()) return ".";
  bool rooted = path.front() == '/';
  std::vector<std::string> parts;
  for (const auto& part : strings::split(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (!rooted) {
        parts.push_back(part);
      }
      continue;
    }
    parts.push_back(part);
  }
  std::string out = (rooted ? "/" : "") + strings::join(parts, "/");
  return out.empty() ? "." : out;
}

}  // namespace nvct::cdi
