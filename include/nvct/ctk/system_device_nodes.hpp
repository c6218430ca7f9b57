// `nvidia-ctk system create-device-nodes` (spec/ctk.md §8.2) and the NVIDIA device-node
// inventory that `create-dev-char-symlinks` shares: which nodes exist or can exist, with which
// majors (driver.md §6).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/ctk/system_ops.hpp"
#include "nvct/driver/driver_root.hpp"

namespace nvct::ctk {

struct NvidiaMajors {
  std::optional<unsigned> nvidia;  // "nvidia-frontend", else "nvidia"
  std::optional<unsigned> uvm;     // "nvidia-uvm"
  std::optional<unsigned> caps;    // "nvidia-caps"
};
NvidiaMajors nvidia_majors_from_text(std::string_view proc_devices);
// The driver root's /proc/devices when it has one (a driver container's root, the mock driver),
// else the host's: majors are the kernel's, whichever root the files come from.
NvidiaMajors read_nvidia_majors(const driver::DriverRoot& root);

struct NodeSpec {
  std::string path;  // root-relative, e.g. /dev/nvidia0
  unsigned major = 0, minor = 0;
  bool operator==(const NodeSpec&) const = default;
};

// nvidiactl (255), nvidia-modeset (254) with the nvidia major; nvidia-uvm (0) and
// nvidia-uvm-tools (1) with the uvm major, each only when its major is known.
std::vector<NodeSpec> control_device_nodes(const NvidiaMajors& majors);

// Every node the loaded driver can have: the control nodes, /dev/nvidia<minor> per GPU of
// /proc/driver/nvidia/gpus, and the MIG capability nodes of /proc/driver/nvidia-caps/mig-minors
// whose capability file exists (as nvidia-modprobe creates them).
std::vector<NodeSpec> all_possible_nodes(const driver::DriverRoot& root,
                                         const NvidiaMajors& majors);

// modprobe nvidia, nvidia-uvm, nvidia-modeset in the root. Skipped with a warning where it cannot
// work (inside a user namespace, no /sbin/modprobe in the root); a failing modprobe is an error.
Status load_nvidia_kernel_modules(const driver::DriverRoot& root, SystemOps& ops, bool dry_run);

struct DeviceNodesOptions {
  std::string root = "/";  // --root/--driver-root
  std::string dev_root;    // --dev-root; "" = the driver root
  bool control_devices = false;
  bool load_kernel_modules = false;
  bool dry_run = false;
};

// Loads the modules when asked, then mknods the control devices under <dev-root>/dev with mode
// 0666. An existing node with the right number is kept.
Status create_device_nodes(const DeviceNodesOptions& options, SystemOps& ops);

}  // namespace nvct::ctk
