// Device access in the spec (spec/runtime.md §8 nvct bullet, mount.md §10.6, security checklist
// #30). In legacy mode the hook mounts the device nodes and adds cgroup rules out of band; with
// the systemd cgroup driver `systemctl daemon-reload` re-applies the unit's rules and drops
// those, and the container loses its GPUs ("Failed to initialize NVML: Unknown Error"). So at
// `create` the shim also writes the selected nodes into config.json:
//   - linux.resources.devices: one allow rule "c MAJ:MIN rwm" per node, appended after the
//     engine's default deny rule, so runc hands them to systemd as DeviceAllow= entries;
//   - linux.devices: the node itself, so runc creates and owns it in the container's /dev.
// The hook still bind-mounts the host node later: the mount library accepts an existing
// character device as a device target (mount/target.cpp, PathPolicy::kDevice), so the bind
// mount lands on the node runc made and the container sees the host's node either way.
//
// GPU facts come from the driver root's procfs only (never NVML in the shim: it must stay cheap
// and must not load driver code into the runtime path).
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/driver/driver_root.hpp"
#include "nvct/request/request.hpp"

namespace nvct::runtime {

// The cheap facts: GPUs from /proc/driver/nvidia/gpus/*/information (NVML's bus order) and the
// character majors of /proc/devices, both under the driver root.
struct DeviceFacts {
  std::vector<driver::Gpu> gpus;
  unsigned nvidia_major = driver::kNvidiaMajor;
  std::optional<unsigned> uvm_major;  // "nvidia-uvm"; absent while the module is not loaded
};

// Fails (ENOENT) when the driver is not loaded under the root (no /proc/driver/nvidia/version).
Result<DeviceFacts> read_device_facts(const driver::DriverRoot& root);

// One node the container gets; its path is the same on the host (under the driver root) and in
// the container.
struct SpecDeviceNode {
  std::string path;
  unsigned major = 0, minor = 0;
  mode_t mode = 0666;  // permission bits of linux.devices[].fileMode
  uid_t uid = 0;
  gid_t gid = 0;
  bool operator==(const SpecDeviceNode&) const = default;
};

// The nodes a request gets, in the mount library's order: nvidiactl always; nvidia-uvm and
// nvidia-uvm-tools with the compute capability (when the uvm major is known); nvidia-modeset
// with display; /dev/nvidia<minor> per selected GPU. nullopt when the shim leaves the request
// to the hook: an id that the procfs facts cannot resolve (unknown ids, MIG devices, whose UUIDs
// only NVML knows), or capabilities that the hook will reject. Mode/owner are the defaults here
// (see stat_host_nodes).
std::optional<std::vector<SpecDeviceNode>> nodes_for_request(
    const DeviceFacts& facts, const std::vector<std::string>& devices,
    const std::vector<std::string>& capabilities);

// spec[key] as an object / an array, created when absent or null; any other type is an error
// naming `what` (e.g. "linux.resources.devices").
Result<nlohmann::ordered_json*> object_field(nlohmann::ordered_json& parent, const char* key,
                                             std::string_view what);
Result<nlohmann::ordered_json*> array_field(nlohmann::ordered_json& parent, const char* key,
                                            std::string_view what);

// Takes mode and owner from the host node under the driver root when it is the character device
// with the expected number; otherwise keeps 0666 root:root (the node may appear later, when the
// hook loads the kernel modules).
void stat_host_nodes(const driver::DriverRoot& root, std::vector<SpecDeviceNode>& nodes);

// Appends the nodes to linux.devices and their allow rules to linux.resources.devices, each at
// most once (running the shim twice adds nothing the second time). A linux.devices entry that
// already uses the path for a different device is left alone (runc would reject the spec) and
// only the cgroup rule is added. Returns whether the spec changed; a linux/devices field of the
// wrong JSON type is an error naming it.
Result<bool> add_nodes_to_spec(nlohmann::ordered_json& spec,
                               const std::vector<SpecDeviceNode>& nodes);

// The whole step for a GPU request in legacy mode: facts from the config's driver root
// (nvidia-container-cli.root), the selection, the spec edit. Anything the shim cannot decide
// cheaply (driver not loaded, unknown ids) changes nothing and is left to the hook, which
// reports it with the reference's error.
Result<bool> add_device_rules(nlohmann::ordered_json& spec, const request::Request& request,
                              const config::Config& cfg);

}  // namespace nvct::runtime
