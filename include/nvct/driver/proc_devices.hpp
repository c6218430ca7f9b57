// Which /proc/devices describes the driver's kernel: the driver root's own when it has one (the
// host's when the root is /; a driver container's procfs, the same kernel's; a test's stand-in),
// else the host's, as libnvidia-container and the toolkit always read it. A driver root that
// holds only the driver's files (an unpacked driver package) still gets the host kernel's
// majors, so MIG capabilities (the nvidia-caps major) and the device numbers are found.
#pragma once

#include <string>

#include "nvct/base/error.hpp"
#include "nvct/driver/driver_root.hpp"

namespace nvct::driver {

// The text of that file; an error only when neither can be read (no procfs at all).
Result<std::string> read_proc_devices(const DriverRoot& root);

}  // namespace nvct::driver
