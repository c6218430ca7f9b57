// The disable-device-node-modification hook (spec/cdi.md §8, mount.md §7.1): the host's
// /proc/driver/nvidia/params with "ModifyDeviceFiles: 1" turned to 0 is put in a tmpfs and
// bind-mounted read-only and private over the container's params file, so the driver inside
// the container does not create device nodes (a CVE-2021-1056 defence). The source is read from
// the HOST procfs only: the rootfs /proc can be faked by an image (checklist #13).
#pragma once

#include <string>

#include "nvct/base/error.hpp"
#include "nvct/mount/in_root.hpp"

namespace nvct::cdi_hooks {

inline constexpr const char* kParamsPath = "/proc/driver/nvidia/params";

enum class ParamsOutcome { kMounted, kNoHostParams, kAlreadyDisabled };

// `host_root` is "/" in the hook; tests pass a fake host. `host_params` is the params path in it.
Result<ParamsOutcome> disable_device_node_modification(const mount::Root& host_root,
                                                       const std::string& host_params,
                                                       const mount::Root& rootfs);

}  // namespace nvct::cdi_hooks
