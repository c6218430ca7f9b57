#include "driver_session.hpp"

#include <stdlib.h>

#include "nvct/driver/device_nodes.hpp"

namespace nvct::cli {

driver::DiscoverOptions discover_options(const GlobalOptions& g) {
  driver::DiscoverOptions o;
  o.root = g.root;
  o.ldcache = g.ldcache;
  if (const char* path = ::secure_getenv("PATH"); path && *path) o.path_env = path;
  if (const char* mps = ::secure_getenv("CUDA_MPS_PIPE_DIRECTORY"); mps && *mps)
    o.mps_pipe_dir = mps;
  return o;
}

Result<DriverSession> open_driver_session(const GlobalOptions& g, driver::DiscoverOptions o,
                                          std::vector<unsigned> imex_channels) {
  auto init_error = [](const Error& e) {
    return tl::unexpected(Error(e.code(), "initialization error: " + e.message()));
  };
  if (g.load_kmods) {
    driver::KmodOptions k;
    k.root = g.root;
    k.create_imex_channels = !g.no_create_imex_channels;
    k.imex_channels = std::move(imex_channels);
    if (auto st = driver::load_kernel_modules(k); !st) return init_error(st.error());
  }
  auto user = resolve_nvml_user(g);
  if (!user) return init_error(user.error());
  o.nvml_user = *user;
  auto ctx = driver::initialize_driver(o, driver::isolated_nvml_query(o.nvml_user));
  if (!ctx) return init_error(ctx.error());
  auto info = driver::discover_driver(*ctx, o);
  if (!info)
    return tl::unexpected(Error(info.error().code(), "detection error: " + info.error().message()));
  return DriverSession{std::move(*ctx), std::move(*info)};
}

}  // namespace nvct::cli
