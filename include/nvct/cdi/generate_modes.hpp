// The discovery modes of `nvidia-ctk cdi generate --mode` (spec/cdi.md §6.1) besides nvml, and
// the gated device sets the runtime adds on NVIDIA_GDS / NVIDIA_MOFED / NVIDIA_GDRCOPY /
// NVIDIA_NVSWITCH (spec/runtime.md §7.4). The spec names the modes but not their content; nvct
// follows the toolkit's discoverers:
//   gds:      char nodes /dev/nvidia-fs*, mounts /etc/cufile.json and /run/udev (driver root);
//   mofed:    char nodes /dev/infiniband/uverbs*, /dev/infiniband/rdma_cm;
//   gdrcopy:  char node /dev/gdrdrv;
//   nvswitch: char nodes /dev/nvidia-nvswitch*;
//   each as one device named `all`;
//   imex:     one device per /dev/nvidia-caps-imex-channels/channelN, named N, plus `all`;
//   management (needs the driver): the driver content of nvml mode, and one `all` device with
//             every NVIDIA node (/dev/nvidia*, /dev/nvidia-caps/nvidia-cap*, IMEX channels);
//             vendor management.nvidia.com.
//   csv:      one device named `all` (Tegra has one integrated GPU; nvct does not name it after
//             an index) built from the CSV mount specs (csv_mount_spec.hpp):
//               dev: char nodes under the dev root; the path may be a glob(3) pattern;
//               lib: read-only bind mounts under the driver root (globs allowed); a library that
//                    is a symlink is followed to its final file, which is mounted, and each link
//                    of the chain becomes a create-symlinks argument; their directories go to
//                    update-ldcache as --folder;
//               sym: a create-symlinks argument `<target as read on the host>::<path>`;
//               dir: a read-only bind mount of the directory;
//             --csv.ignore-pattern drops rows (and glob matches) whose path, or basename, matches
//             the fnmatch(3) pattern. A mounted libcuda.so.<version> adds enable-cuda-compat
//             (--host-driver-version=<version>, plus --cuda-compat-container-root=<dir> from
//             --csv.compat-container-root). Entries that do not exist are skipped.
//   wsl:      WSL2's /dev/dxg, driver store files and libdxcore.so (generate_wsl.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/cdi/csv_mount_spec.hpp"
#include "nvct/cdi/generate.hpp"
#include "nvct/cdi/inject.hpp"
#include "nvct/cdi/spec.hpp"
#include "nvct/driver/driver_info.hpp"

namespace nvct::cdi {

enum class GenerateMode {
  kNvml,
  kManagement,
  kGds,
  kMofed,
  kGdrcopy,
  kNvswitch,
  kImex,
  kCsv,
  kWsl
};

// "auto" and "nvml" -> kNvml (resolve_generate_mode in generate_wsl.hpp turns auto into wsl on
// a WSL2 root); anything else unknown is EINVAL listing the valid ones.
Result<GenerateMode> parse_generate_mode(std::string_view text);

std::string_view generate_mode_name(GenerateMode mode);

// management.nvidia.com for management, else nvidia.com.
std::string_view default_vendor(GenerateMode mode);

// Modes whose content comes from the driver (libraries, GPUs): nvml and management.
bool mode_needs_driver(GenerateMode mode);

// The char device nodes under dev_root that match `pattern` (an absolute path whose last
// component may end in '*'), in name order. Non-device entries are skipped.
std::vector<std::string> find_device_nodes(const std::string& dev_root, std::string_view pattern,
                                           DeviceLookup& lookup);

struct ModeOptions {
  std::string vendor = "nvidia.com";
  std::string class_name;                         // "" = the mode's name
  std::string driver_root = "/";                  // host prefix of file mounts
  std::string dev_root = "/";                     // host prefix of nodes
  std::vector<std::string> device_ids = {"all"};  // imex: channel numbers or "all"
  bool no_all_device = false;
  FeatureFlags features;
  HookOptions hooks;  // csv: create-symlinks, enable-cuda-compat, update-ldcache
  std::vector<std::string> csv_files = kDefaultCsvFiles;
  std::vector<std::string> csv_ignore_patterns;
  std::string csv_compat_container_root;
  // wsl: root-relative directories searched for libdxcore.so (empty = /usr/lib/wsl/lib).
  std::vector<std::string> library_search_paths;
};

// gds, mofed, gdrcopy, nvswitch, imex, csv and wsl specs (not validated; may have no devices
// when the host has none of the nodes).
// The csv spec from already-read mount specs (build_device_mode_spec reads options.csv_files).
Result<Spec> build_csv_spec(const std::vector<CsvMountSpec>& specs, const ModeOptions& options,
                            DeviceLookup& lookup);

Result<Spec> build_device_mode_spec(GenerateMode mode, const ModeOptions& options,
                                    DeviceLookup& lookup);

// The management spec from the discovered driver (GenerateOptions as for nvml; device ids and
// name strategies do not apply).
Result<Spec> build_management_spec(const driver::DriverInfo& info, const GenerateOptions& options,
                                   DeviceLookup& lookup);

}  // namespace nvct::cdi
