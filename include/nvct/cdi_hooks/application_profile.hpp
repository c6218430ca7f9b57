// The update-application-profile hook (spec/cdi.md §8, mount.md §7.2): the EGL application
// profile /etc/nvidia/nvidia-application-profiles-rc.d/10-container.conf restricts
// EGLVisibleDGPUDevices to the GPUs given to the container, as a mask of device minors. The GPUs
// are the /dev/nvidiaN entries of the container's linux.devices (config.json). The text, the
// mask and the file update are mount/app_profile.hpp's, shared with legacy mode.
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "nvct/base/error.hpp"
#include "nvct/mount/in_root.hpp"

namespace nvct::cdi_hooks {

// OR of (1 << minor) over the spec's /dev/nvidia<N> devices (minor from the entry, else N).
// Minors of 64 and above cannot be expressed and are an error.
Result<std::uint64_t> gpu_mask_of_spec(const nlohmann::ordered_json& spec);

// Writes the profile (mask OR the existing one). Returns nullopt when the spec has no GPU.
Result<std::optional<std::uint64_t>> update_application_profile(const mount::Root& rootfs,
                                                                const nlohmann::ordered_json& spec);

}  // namespace nvct::cdi_hooks
