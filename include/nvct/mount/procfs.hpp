// The /proc/driver/nvidia rewrite (mount.md §7.1): a tmpfs over the container's directory with
// copies of params/version/registry read from the driver root (never through the rootfs /proc,
// which an image can fake; checklist #13), params with ModifyDeviceFiles: 0 (CVE-2021-1056
// defence), and bind mounts of the selected GPUs' directories only.
#pragma once

#include <string>

#include "nvct/base/error.hpp"
#include "nvct/edits/edits.hpp"
#include "nvct/mount/in_root.hpp"
#include "nvct/mount/journal.hpp"

namespace nvct::mount {

// The first "ModifyDeviceFiles: 1" becomes "ModifyDeviceFiles: 0".
std::string rewrite_params(std::string params);

Status mount_procfs(const Root& host_root, const Root& rootfs, const edits::ProcfsEdit& edit,
                    Journal& journal);

}  // namespace nvct::mount
