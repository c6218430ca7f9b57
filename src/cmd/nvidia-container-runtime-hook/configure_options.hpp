// The options the hook hands to the shared configure job (spec/hook.md §5): the in-process
// equivalent of the argv the reference builds for `nvidia-container-cli configure`.
#pragma once

#include <sys/types.h>

#include <string>

#include "nvct/config/config.hpp"
#include "nvct/mount/configure.hpp"
#include "nvct/request/mount_request.hpp"

namespace nvct::hook {

struct HookContext {
  pid_t pid = 0;       // the container's init, from the OCI state
  std::string rootfs;  // absolute host path of the container root
  bool debug = false;  // the hook's -debug flag: the mount library logs to /dev/stderr
};

// hook.md §5, row by row (the cli path of row 0 has no equivalent in-process):
//   root (non-empty), load-kmods, disable-imex-channel-creation, no-pivot, debug (flag, else
//   nvidia-container-cli.debug), ldcache, user, cuda-compat-mode (ldconfig/mount kept,
//   disabled/hook -> disabled, unset -> disabled unless allow-cuda-compat-libs-from-container),
//   ldconfig, no-cgroups, device list (omitted when empty), MIG config/monitor, IMEX channels,
//   capabilities, requirements, pid, rootfs.
mount::ConfigureOptions configure_options(const config::Config& cfg,
                                          const request::MountRequest& req, const HookContext& ctx);

}  // namespace nvct::hook
