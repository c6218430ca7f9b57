// Spec -> JSON tree in the format's field order, with the format's omitempty rules; the YAML and
// JSON texts are both rendered from that tree so that they always agree.
#include <fmt/format.h>

#include "nvct/cdi/spec_io.hpp"

namespace nvct::cdi {
namespace {

using nlohmann::ordered_json;

void put_string(ordered_json& o, const char* key, const std::string& v) {
  if (!v.empty()) o[key] = v;
}

void put_strings(ordered_json& o, const char* key, const std::vector<std::string>& v) {
  if (!v.empty()) o[key] = v;
}

ordered_json annotations_json(const Annotations& a) {
  ordered_json o = ordered_json::object();
  for (const auto& [k, v] : a) o[k] = v;
  return o;
}

ordered_json device_node_json(const DeviceNode& d) {
  ordered_json o = ordered_json::object();
  o["path"] = d.path;
  put_string(o, "hostPath", d.host_path);
  put_string(o, "type", d.type);
  if (d.major != 0) o["major"] = d.major;
  if (d.minor != 0) o["minor"] = d.minor;
  if (d.file_mode) o["fileMode"] = *d.file_mode;
  put_string(o, "permissions", d.permissions);
  if (d.uid) o["uid"] = *d.uid;
  if (d.gid) o["gid"] = *d.gid;
  return o;
}

ordered_json mount_json(const Mount& m) {
  ordered_json o = ordered_json::object();
  o["hostPath"] = m.host_path;
  o["containerPath"] = m.container_path;
  put_string(o, "type", m.type);
  put_strings(o, "options", m.options);
  return o;
}

ordered_json hook_json(const Hook& h) {
  ordered_json o = ordered_json::object();
  o["hookName"] = h.hook_name;
  o["path"] = h.path;
  put_strings(o, "args", h.args);
  put_strings(o, "env", h.env);
  if (h.timeout) o["timeout"] = *h.timeout;
  return o;
}

ordered_json intel_rdt_json(const IntelRdt& r) {
  ordered_json o = ordered_json::object();
  put_string(o, "closID", r.clos_id);
  put_string(o, "l3CacheSchema", r.l3_cache_schema);
  put_string(o, "memBwSchema", r.mem_bw_schema);
  put_strings(o, "schemata", r.schemata);
  if (r.enable_monitoring) o["enableMonitoring"] = true;
  return o;
}

template <class T, class F>
void put_list(ordered_json& o, const char* key, const std::vector<T>& items, F&& to_json_item) {
  if (items.empty()) return;
  ordered_json list = ordered_json::array();
  for (const auto& item : items) list.push_back(to_json_item(item));
  o[key] = std::move(list);
}

ordered_json edits_json(const ContainerEdits& e) {
  ordered_json o = ordered_json::object();
  put_strings(o, "env", e.env);
  put_list(o, "deviceNodes", e.device_nodes, device_node_json);
  put_list(o, "netDevices", e.net_devices, [](const NetDevice& n) {
    return ordered_json{{"hostInterfaceName", n.host_interface_name}, {"name", n.name}};
  });
  put_list(o, "hooks", e.hooks, hook_json);
  put_list(o, "mounts", e.mounts, mount_json);
  if (e.intel_rdt) o["intelRdt"] = intel_rdt_json(*e.intel_rdt);
  if (!e.additional_gids.empty()) o["additionalGids"] = e.additional_gids;
  return o;
}

}  // namespace

ordered_json to_json(const Spec& spec) {
  ordered_json o = ordered_json::object();
  o["cdiVersion"] = spec.cdi_version;
  o["kind"] = spec.kind;
  if (!spec.annotations.empty()) o["annotations"] = annotations_json(spec.annotations);
  ordered_json devices = ordered_json::array();
  for (const auto& d : spec.devices) {
    ordered_json dev = ordered_json::object();
    dev["name"] = d.name;
    if (!d.annotations.empty()) dev["annotations"] = annotations_json(d.annotations);
    // containerEdits is not omitempty on a device.
    dev["containerEdits"] = edits_json(d.container_edits);
    devices.push_back(std::move(dev));
  }
  o["devices"] = std::move(devices);
  if (!spec.container_edits.empty()) o["containerEdits"] = edits_json(spec.container_edits);
  return o;
}

std::string to_json_text(const Spec& spec) {
  // The spec holds only strings we decoded or built, so dump() cannot meet invalid UTF-8 in
  // practice; "replace" keeps it from throwing if it ever does.
  return to_json(spec).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

std::string to_yaml(const Spec& spec) { return json_to_yaml(to_json(spec)); }

std::string render(const Spec& spec, Format format) {
  return format == Format::kJson ? to_json_text(spec) : to_yaml(spec);
}

}  // namespace nvct::cdi
