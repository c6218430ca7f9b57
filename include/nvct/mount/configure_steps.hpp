// The pure steps of configure() (mount.md §3 steps 0, 5, 6): option validation, the builder's
// options from the discovered driver, and the facts requirements are checked against. Split
// out so that every check and message is unit-tested without a driver or a container.
#pragma once

#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/driver/device_selection.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/driver/driver_root.hpp"
#include "nvct/edits/builder.hpp"
#include "nvct/mount/configure.hpp"
#include "nvct/mount/configure_compat.hpp"
#include "nvct/request/requirement_expr.hpp"

namespace nvct::mount {

struct ValidatedConfigure {
  std::string devices;  // the --device items joined with ','
  CudaCompatMode compat = CudaCompatMode::kLdconfig;
  std::vector<unsigned> imex_channels;
  bool mig_config = false, mig_monitor = false;  // driver::parse_mig_value of the options
};

// Step 0 and the option checks of container setup. Errors (nothing has been touched yet):
//   "container error: rootfs <p> must be an absolute path other than /"
//   "container error: standalone mode (no --pid) is not supported; pass --pid" (nvct decision)
//   "ldcache error: ..." for an ldconfig path without '@' (the image's binary is never run)
//   "container error: only one cuda-compat-mode can be specified at a time" (cuda_compat_mode
//   may hold a comma list: the values of repeated --cuda-compat-mode flags)
//   "error parsing IMEX info: unsupported IMEX channel value: <v>"
//   "mig-config error: only 'all' devices are currently supported" (and mig-monitor)
Result<ValidatedConfigure> validate_configure_options(const ConfigureOptions& o);

// The builder's options for this driver and selection, reading the MIG minors and IMEX nodes
// under the driver root when asked for. Errors:
//   "mig-config error: all: cannot enable mig-config with specific MIG devices selected"
//   "device error: /dev/nvidia-caps-imex-channels/channel<N>: no such file or directory"
Result<edits::BuildOptions> build_options(const ConfigureOptions& o, const ValidatedConfigure& v,
                                          const driver::DriverInfo& info,
                                          const driver::DeviceSelection& selection,
                                          const driver::DriverRoot& root,
                                          const edits::ContainerLayout& layout);

// Requirements are checked for each selected GPU (MIG devices count as their parent, which the
// selection already holds); unknown values are satisfied.
request::RequirementFacts requirement_facts(const driver::DriverInfo& info,
                                            const driver::DeviceSelection& selection);

}  // namespace nvct::mount
