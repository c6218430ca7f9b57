// Host driver discovery: everything the driver root provides (driver.md §1-§12), in two stages
// as the reference reports them: initialize_driver() ("initialization error": driver root,
// ld.so.cache, NVML or its procfs fallback) and discover_driver() ("detection error": files,
// device nodes, GPUs, MIG).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/driver/driver_root.hpp"
#include "nvct/driver/ldcache.hpp"
#include "nvct/driver/libraries.hpp"
#include "nvct/driver/nvml.hpp"
#include "nvct/driver/nvml_process.hpp"

namespace nvct::driver {

inline constexpr unsigned kNvidiaMajor = 195;
inline constexpr unsigned kNvidiaCtlMinor = 255;
inline constexpr unsigned kNvidiaModesetMinor = 254;

struct DeviceNode {
  std::string path;  // root-relative, e.g. /dev/nvidiactl
  unsigned major = 0, minor = 0;
};

struct MigDevice {
  unsigned index = 0;  // NVML enumeration index within the parent GPU (the M of G:M)
  std::string uuid;
  unsigned gi = 0, ci = 0;
  std::string gi_caps_path;  // /proc/driver/nvidia/capabilities/gpu<minor>/mig/gi<gi>
  std::string ci_caps_path;  // <gi_caps_path>/ci<ci>
  std::optional<unsigned> gi_cap_minor, ci_cap_minor;  // DeviceFileMinor of the access files
};

struct Gpu {
  unsigned index = 0;
  unsigned minor = 0;
  std::string uuid, model, brand, bus_id, arch;  // arch "9.0"; brand/arch empty if unknown
  DeviceNode node;
  bool mig_capable = false, mig_enabled = false;
  std::string mig_caps_path;  // /proc/driver/nvidia/capabilities/gpu<minor>
  std::vector<MigDevice> migs;
};

// How MIG capabilities are exposed (nvc_nvcaps_style).
enum class CapsStyle { kNone, kProc, kDev };

struct Firmware {
  std::string path;    // in-container path /lib/firmware/nvidia/<ver>/<file>
  std::string source;  // root-relative real path
};

struct DiscoverOptions {
  std::string root = "/";
  std::string ldcache = "/etc/ld.so.cache";
  std::string path_env = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  std::string mps_pipe_dir = "/tmp/nvidia-mps";
  // The binaries looked up on path_env: the CLI's list, or cdi_binary_names() for a CDI spec.
  const std::vector<DriverFileName>* binary_names = &driver_binary_names();
  bool no_persistenced = false;
  bool no_fabricmanager = false;
  bool no_gsp_firmware = false;
  // The 32-bit libraries are looked up only when wanted: configure without --compat32 never
  // mounts them, and looking them up is a quarter of its discovery (24 libraries on a full driver).
  bool libs32 = true;
  std::optional<NvmlUser> nvml_user;
};

// Queries NVML given the driver root and the root-relative path of libnvidia-ml.so.1. The
// default runs it in a child process; tests pass a fake.
using NvmlQuery = std::function<Result<NvmlFacts>(const DriverRoot&, const std::string&)>;
NvmlQuery isolated_nvml_query(std::optional<NvmlUser> user);

struct DriverContext {
  DriverRoot root;
  std::optional<LdCache> ldcache;
  std::optional<Error> ldcache_error;
  NvmlFacts nvml;
  bool nvml_fallback = false;  // facts came from /proc/driver/nvidia
};

Result<DriverContext> initialize_driver(const DiscoverOptions& options, const NvmlQuery& nvml);

struct DriverInfo {
  std::string root;
  std::string nvrm_version;
  std::string cuda_version;  // empty when unknown (procfs fallback)
  bool nvml_fallback = false;
  std::map<std::string, unsigned> char_majors;  // /proc/devices
  CapsStyle caps_style = CapsStyle::kNone;
  std::vector<DeviceNode> devices;  // control nodes in list order
  std::vector<Gpu> gpus;
  std::vector<DriverLibrary> libs, libs32;
  std::vector<DriverBinary> bins;
  std::vector<std::string> ipcs;
  std::vector<Firmware> firmwares;
};

Result<DriverInfo> discover_driver(const DriverContext& ctx, const DiscoverOptions& options);

// GPUs from /proc/driver/nvidia/gpus/*/information, ordered by bus id (NVML's order), and the
// version from /proc/driver/nvidia/version.
Result<NvmlFacts> nvml_facts_from_procfs(const DriverRoot& root);

}  // namespace nvct::driver
