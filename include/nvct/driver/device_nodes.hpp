// `--load-kmods` (driver.md §7): load the kernel modules and create the device nodes that are
// missing under <root>/dev, with the majors of /proc/devices and the owner and mode of
// /proc/driver/nvidia/params. Failures only log, as in the reference.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/driver/driver_root.hpp"

namespace nvct::driver {

struct DeviceFileParams {
  uid_t uid = 0;
  gid_t gid = 0;
  mode_t mode = 0666;
  bool modify = true;  // ModifyDeviceFiles
};
// Parses /proc/driver/nvidia/params (DeviceFileUID/GID/Mode are decimal).
DeviceFileParams parse_device_file_params(std::string_view text);

// Creates a character device <root>/<dir>/<name> and its /dev/char/MAJ:MIN link. An existing
// node of the same type and number is kept (EEXIST from a concurrent creator is fine); a
// different file in the way is an error and is never replaced.
Status create_char_device(const DriverRoot& root, std::string_view path, unsigned major,
                          unsigned minor, const DeviceFileParams& params);

struct KmodOptions {
  std::string root = "/";
  bool create_imex_channels = true;
  std::vector<unsigned> imex_channels;
  std::string modprobe = "/sbin/modprobe";  // host path, run with an empty environment
};

// True inside a user namespace (uid_map/gid_map not the identity of all ids, or setgroups deny),
// where the reference skips the whole step.
bool in_user_namespace();

// True when <root>/proc/modules lists `module` (the kernel writes '_' for '-' in its names).
bool kernel_module_loaded(const DriverRoot& root, std::string_view module);

// Runs the §7 sequence. modprobe runs only for the host root ("/"); a driver root other than
// "/" only gets its missing nodes. A node is created only for a loaded module, as
// nvidia-modprobe does: nvidiactl, nvidia<N> and the caps only when /proc/devices has the
// nvidia (or nvidia-frontend) major after modprobe, the UVM nodes only with the nvidia-uvm major,
// and nvidia-modeset (which shares nvidia's major) only when /proc/modules lists nvidia_modeset.
// On a host without the module nothing is created, not even /dev/char links.
Status load_kernel_modules(const KmodOptions& options);

// NVIDIA display-class PCI devices (vendor 0x10de, class 0x03xxxx) under <root>/sys.
unsigned count_nvidia_pci_devices(const DriverRoot& root);

}  // namespace nvct::driver
