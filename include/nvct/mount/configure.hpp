// `configure`: the whole legacy-mode job for one container (mount.md §3), shared by
// `nvidia-container-cli configure` and `nvidia-container-runtime-hook prestart`, which builds the
// same options in-process (hook.md §5) instead of exec'ing the cli.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"

namespace nvct::mount {

struct ConfigureOptions {
  // Global options (cli.md §3).
  std::string root = "/";  // driver root
  std::string ldcache;     // "" = /etc/ld.so.cache under the root
  bool load_kmods = false;
  bool no_pivot = false;
  std::optional<std::string> user;  // "UID[:GID]"; nullopt = overflowuid:overflowgid
  bool no_create_imex_channels = false;
  std::string debug_file;

  // configure options (cli.md §4).
  std::optional<pid_t> pid;          // supervised mode when set; else the parent (standalone)
  std::vector<std::string> devices;  // items as given (comma lists allowed), "" items ignored
  // Where `devices` came from, named in an unknown device's error: the flag, or the container's
  // variable when the hook calls.
  std::string devices_source = "--device";
  std::vector<std::string> requirements;
  std::string ldconfig;  // "@/sbin/ldconfig" = host binary
  // Run `ldconfig` for the ld.so.cache instead of the native writer (config
  // nvidia-container-cli.exec-ldconfig; the native writer also falls back on trees it does not
  // model).
  bool exec_ldconfig = false;
  bool compute = false, utility = false, video = false, graphics = false, display = false,
       ngx = false, compat32 = false;
  std::optional<std::string> mig_config, mig_monitor;
  std::vector<std::string> imex_channels;
  bool no_cgroups = false, no_devbind = false, no_persistenced = false, no_fabricmanager = false,
       no_gsp_firmware = false, no_cntlibs = false;
  std::string cuda_compat_mode;  // "", "ldconfig", "mount", "disabled"
  std::string rootfs;            // absolute, not "/"
};

// Runs the configure steps. A failure's message starts with the reference's stage prefix
// (cli.md §2), e.g. "requirement error: unsatisfied condition: cuda>=99.0, please update your
// driver to a newer version, or use an earlier cuda container"; callers print it as is
// (the cli prefixes "nvidia-container-cli: ").
Status configure(const ConfigureOptions& options);

}  // namespace nvct::mount
