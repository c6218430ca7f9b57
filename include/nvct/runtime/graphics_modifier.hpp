// The legacy-mode graphics modifier (spec/runtime.md §7.3). When a container requests GPUs and
// NVIDIA_DRIVER_CAPABILITIES (read raw: no default, "all" matches) names graphics or display,
// config.json gets, for the requested GPUs only:
//   - their DRM nodes /dev/dri/cardN and /dev/dri/renderDN in linux.devices, with allow rules in
//     linux.resources.devices (the same edit device_rules makes for /dev/nvidia*, so the access
//     survives `systemctl daemon-reload`);
//   - a createContainer `create-symlinks` hook (nvidia-ctk / nvidia-cdi-hook, built like the
//     jit-cdi hooks) for the /dev/dri/by-path links and the Xorg GLX module link;
//   - bind mounts of the graphics config files (driver/graphics_files.hpp), read-only.
// libnvidia-container never does this (driver.md §6): the prestart hook does not see it.
// Facts come from the driver root's procfs and sysfs, never NVML (as device_rules.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/cdi/generate_hooks.hpp"
#include "nvct/config/config.hpp"
#include "nvct/driver/driver_root.hpp"
#include "nvct/request/request.hpp"
#include "nvct/runtime/device_rules.hpp"

namespace nvct::runtime {

inline const std::vector<std::string> kGraphicsMountOptions = {"ro", "nosuid", "nodev", "rbind",
                                                               "rprivate"};

// A GPU container ("none" requests no device) whose raw capabilities include graphics,
// display or all.
bool wants_graphics(const request::Request& request);

struct GraphicsMount {
  std::string source;       // host path
  std::string destination;  // container path
  friend bool operator==(const GraphicsMount&, const GraphicsMount&) = default;
};

struct GraphicsEdits {
  std::vector<SpecDeviceNode> nodes;
  std::vector<GraphicsMount> mounts;
  std::vector<std::string> link_args;  // create-symlinks arguments ("--link", "t::l", ...)
  bool empty() const { return nodes.empty() && mounts.empty() && link_args.empty(); }
};

// The edits for the requested device ids. nullopt when the ids cannot be resolved from the
// procfs facts (unknown ids, MIG devices): nothing is added then, as for the device rules.
std::optional<GraphicsEdits> graphics_edits(const driver::DriverRoot& root,
                                            const DeviceFacts& facts,
                                            const std::vector<std::string>& devices,
                                            std::string_view driver_version);

// Writes the edits into the spec: nodes via add_nodes_to_spec, mounts appended unless a mount
// already has the destination, the hook appended to hooks.createContainer unless the same
// hook (path and args) is there. Running it twice changes nothing the second time.
Result<bool> apply_graphics_edits(nlohmann::ordered_json& spec, const GraphicsEdits& edits,
                                  const cdi::HookOptions& hooks);

// The whole modifier for a legacy-mode container; path_env finds the hook binary
// (nvidia-ctk.path). A driver that is not loaded under the root changes nothing.
Result<bool> add_graphics(nlohmann::ordered_json& spec, const request::Request& request,
                          const config::Config& cfg, std::string_view path_env);

}  // namespace nvct::runtime
