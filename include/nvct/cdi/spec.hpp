// The CDI spec model (spec/cdi.md §1), kept field-for-field close to the CDI format so that a
// spec read and written again keeps its content. Optional fields are std::optional where the
// format distinguishes "unset" from a zero value (fileMode, uid, gid, timeout, intelRdt).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nvct::cdi {

struct DeviceNode {
  std::string path;
  std::string host_path;
  std::string type;  // "", "b", "c", "u", "p"
  std::int64_t major = 0;
  std::int64_t minor = 0;
  std::optional<std::uint32_t> file_mode;
  std::string permissions;  // "" (rwm), "none", or letters of "rwm"
  std::optional<std::uint32_t> uid;
  std::optional<std::uint32_t> gid;
  friend bool operator==(const DeviceNode&, const DeviceNode&) = default;
};

struct Mount {
  std::string host_path;
  std::string container_path;
  std::string type;
  std::vector<std::string> options;
  friend bool operator==(const Mount&, const Mount&) = default;
};

struct Hook {
  std::string hook_name;
  std::string path;
  std::vector<std::string> args;
  std::vector<std::string> env;
  std::optional<std::int64_t> timeout;
  friend bool operator==(const Hook&, const Hook&) = default;
};

struct IntelRdt {
  std::string clos_id;
  std::string l3_cache_schema;
  std::string mem_bw_schema;
  std::vector<std::string> schemata;  // 1.1.0
  bool enable_monitoring = false;     // 1.1.0
  friend bool operator==(const IntelRdt&, const IntelRdt&) = default;
};

struct NetDevice {
  std::string host_interface_name;
  std::string name;
  friend bool operator==(const NetDevice&, const NetDevice&) = default;
};

// Output order is the format's: env, deviceNodes, netDevices, hooks, mounts, intelRdt,
// additionalGids.
struct ContainerEdits {
  std::vector<std::string> env;
  std::vector<DeviceNode> device_nodes;
  std::vector<NetDevice> net_devices;
  std::vector<Hook> hooks;
  std::vector<Mount> mounts;
  std::optional<IntelRdt> intel_rdt;
  std::vector<std::uint32_t> additional_gids;

  bool empty() const;
  // Lists concatenate; a set intelRdt replaces ours (the last one wins, cdi.md §3 step 2).
  void append(const ContainerEdits& other);
  friend bool operator==(const ContainerEdits&, const ContainerEdits&) = default;
};

// Annotations are kept sorted by key, as Go's encoders write maps.
using Annotations = std::map<std::string, std::string>;

struct Device {
  std::string name;
  Annotations annotations;
  ContainerEdits container_edits;
  friend bool operator==(const Device&, const Device&) = default;
};

struct Spec {
  std::string cdi_version;
  std::string kind;  // "vendor/class"
  Annotations annotations;
  std::vector<Device> devices;
  ContainerEdits container_edits;
  friend bool operator==(const Spec&, const Spec&) = default;
};

}  // namespace nvct::cdi
