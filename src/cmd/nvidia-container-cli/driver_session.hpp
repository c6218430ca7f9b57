// Shared by the commands: driver discovery from the global options, with the reference's stage
// prefixes on errors, after the optional --load-kmods step.
#pragma once

#include <vector>

#include "global_options.hpp"
#include "nvct/driver/driver_info.hpp"

namespace nvct::cli {

struct DriverSession {
  driver::DriverContext context;
  driver::DriverInfo info;
};

// Fills root, ldcache, PATH and CUDA_MPS_PIPE_DIRECTORY (from this process's environment).
driver::DiscoverOptions discover_options(const GlobalOptions& g);

// imex_channels: the channels --load-kmods creates (unless --no-create-imex-channels).
Result<DriverSession> open_driver_session(const GlobalOptions& g, driver::DiscoverOptions options,
                                          std::vector<unsigned> imex_channels = {});

}  // namespace nvct::cli
