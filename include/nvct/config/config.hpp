// config.toml: every key of spec/config.md with its default (the contract other modules read).
// Loading, lookup order, validation, `config default` rendering and `--set` live in the config
// module's other headers.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace nvct::config {

class HostFacts;

struct NvidiaContainerCli {
  std::string root;                      // driver root; "" = /
  std::string path;                      // "" = look up nvidia-container-cli
  std::vector<std::string> environment;  // appended to the exec env of the cli
  std::string debug;                     // log file of the cli
  std::string ldcache;                   // "" = /etc/ld.so.cache
  bool load_kmods = true;
  bool no_pivot = false;
  bool no_cgroups = false;
  std::string user;                          // "" (SUSE: "root:video")
  std::string ldconfig = "@/sbin/ldconfig";  // normalised: ".real" when it exists on the host
  // nvct: true runs `ldconfig` (above) for the container's ld.so.cache instead of the native
  // writer (mount/ldcache_writer.hpp).
  bool exec_ldconfig = false;
};

struct CdiMode {
  std::vector<std::string> spec_dirs = {"/etc/cdi", "/var/run/cdi"};
  std::string default_kind = "nvidia.com/gpu";
  std::vector<std::string> annotation_prefixes = {"cdi.k8s.io/"};
};

struct CsvMode {
  std::string mount_spec_path = "/etc/nvidia-container-runtime/host-files-for-container.d";
  std::string compat_container_root;
};

struct JitCdiMode {
  std::optional<std::vector<std::string>> nvcdi_feature_flags;
  std::optional<std::vector<std::string>> nvcdi_disable_hooks;
};

struct LegacyMode {
  // One of ldconfig, mount, disabled, hook. nullopt when the file sets no value.
  std::optional<std::string> cuda_compat_mode = "ldconfig";
};

struct NvidiaContainerRuntime {
  std::string debug = "/dev/null";
  std::string log_level = "info";
  std::vector<std::string> runtimes = {"runc", "crun"};
  std::string mode = "auto";
  CdiMode cdi;
  CsvMode csv;
  JitCdiMode jit_cdi;
  LegacyMode legacy;
};

struct NvidiaContainerRuntimeHook {
  std::string path = "nvidia-container-runtime-hook";
  bool skip_mode_detection = false;
};

struct NvidiaCtk {
  std::string path = "nvidia-ctk";
};

struct Features {
  bool allow_cuda_compat_libs_from_container = false;
  bool allow_ldconfig_from_container = false;
  bool allow_unknown_oci_spec_fields = false;
  bool disable_cuda_compat_lib_hook = false;
  bool disable_imex_channel_creation = false;
  bool ignore_imex_channel_requests = false;
  bool no_additional_gids_for_device_nodes = false;
};

struct Config {
  bool disable_require = false;
  std::string swarm_resource;              // comma-separated env var names; "" = none
  bool accept_envvar_unprivileged = true;  // accept-nvidia-visible-devices-envvar-when-unprivileged
  bool accept_volume_mounts = false;       // accept-nvidia-visible-devices-as-volume-mounts
  std::string supported_driver_capabilities = "compat32,compute,display,graphics,ngx,utility,video";
  NvidiaContainerCli cli;
  NvidiaContainerRuntime runtime;
  NvidiaContainerRuntimeHook hook;
  NvidiaCtk ctk;
  Features features;
};

// The built-in defaults on this host: the ldconfig value normalised (".real" where it exists) and
// the SUSE cli user. `Config{}` holds the host-independent ones.
Config default_config(const HostFacts& host);
Config default_config();

// Values accepted for nvidia-container-runtime.modes.legacy.cuda-compat-mode.
inline constexpr const char* kCudaCompatModes[] = {"ldconfig", "mount", "disabled", "hook"};

}  // namespace nvct::config
