#include "configure_command.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "argp.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::cli {
namespace {

enum Id {
  kPid,
  kDevice,
  kRequire,
  kLdconfig,
  kCompute,
  kUtility,
  kVideo,
  kGraphics,
  kDisplay,
  kNgx,
  kCompat32,
  kMigConfig,
  kMigMonitor,
  kImex,
  kNoCgroups,
  kNoDevbind,
  kNoPersistenced,
  kNoFabricmanager,
  kNoGspFirmware,
  kNoCntlibs,
  kCudaCompatMode,
  kHelp
};

const std::vector<OptionSpec> kSpecs = {
    {kPid, 'p', "pid", ArgKind::kRequired, "PID", "Container PID"},
    {kDevice, 'd', "device", ArgKind::kRequired, "ID", "Device UUID(s) or index(es) to isolate"},
    {kRequire, 'r', "require", ArgKind::kRequired, "EXPR", "Check container requirements"},
    {kLdconfig, 'l', "ldconfig", ArgKind::kRequired, "PATH", "Path to the ldconfig binary"},
    {kCompute, 'c', "compute", ArgKind::kNone, "", "Enable compute capability"},
    {kUtility, 'u', "utility", ArgKind::kNone, "", "Enable utility capability"},
    {kVideo, 'v', "video", ArgKind::kNone, "", "Enable video capability"},
    {kGraphics, 'g', "graphics", ArgKind::kNone, "", "Enable graphics capability"},
    {kDisplay, 'D', "display", ArgKind::kNone, "", "Enable display capability"},
    {kNgx, 'n', "ngx", ArgKind::kNone, "", "Enable ngx capability"},
    {kCompat32, 0, "compat32", ArgKind::kNone, "", "Enable 32bits compatibility"},
    {kMigConfig, 0, "mig-config", ArgKind::kRequired, "ID", "Enable configuration of MIG devices"},
    {kMigMonitor, 0, "mig-monitor", ArgKind::kRequired, "ID", "Enable monitoring of MIG devices"},
    {kImex, 0, "imex-channel", ArgKind::kRequired, "CHANNEL", "IMEX channel ID(s) to inject"},
    {kNoCgroups, 0, "no-cgroups", ArgKind::kNone, "", "Don't use cgroup enforcement"},
    {kNoDevbind, 0, "no-devbind", ArgKind::kNone, "", "Don't bind mount devices"},
    {kNoPersistenced, 0, "no-persistenced", ArgKind::kNone, "",
     "Don't include the NVIDIA persistence daemon"},
    {kNoFabricmanager, 0, "no-fabricmanager", ArgKind::kNone, "",
     "Don't include the NVIDIA fabricmanager daemon"},
    {kNoGspFirmware, 0, "no-gsp-firmware", ArgKind::kNone, "", "Don't include GSP Firmware"},
    {kNoCntlibs, 0, "no-cntlibs", ArgKind::kNone, "",
     "Don't overwrite host mounts with CUDA "
     "compat libs from the container"},
    {kCudaCompatMode, 0, "cuda-compat-mode", ArgKind::kRequired, "MODE",
     "Mode for CUDA compat libs: mount, ldconfig or disabled"},
    {kHelp, '?', "help", ArgKind::kNone, "", "Give this help list"},
};

// The reference accepts at most 32 --require flags.
constexpr std::size_t kMaxRequirements = 32;

}  // namespace

Result<std::optional<mount::ConfigureOptions>> parse_configure_options(
    const GlobalOptions& g, const std::vector<std::string>& args) {
  NVCT_ASSIGN_OR_RETURN(ParsedArgs parsed, parse_args(kSpecs, args, false));
  mount::ConfigureOptions o;
  o.root = g.root;
  o.ldcache = g.ldcache;
  o.load_kmods = g.load_kmods;
  o.no_pivot = g.no_pivot;
  o.no_create_imex_channels = g.no_create_imex_channels;
  o.debug_file = g.debug_file;
  if (g.user_given) {
    NVCT_ASSIGN_OR_RETURN(driver::NvmlUser u, resolve_nvml_user(g));
    o.user = fmt::format("{}:{}", u.uid, u.gid);
  }
  std::vector<std::string> compat_modes;
  for (const auto& opt : parsed.options) {
    const std::string value = opt.value.value_or("");
    switch (opt.id) {
      case kPid: {
        auto n = driver::parse_unsigned(value);
        if (!n || *n == 0) return fail(EINVAL, fmt::format("invalid pid: {}", value));
        o.pid = static_cast<pid_t>(*n);
        break;
      }
      case kDevice:
        o.devices.push_back(value);
        break;
      case kRequire:
        if (o.requirements.size() >= kMaxRequirements) return fail(EINVAL, "too many requirements");
        o.requirements.push_back(value);
        break;
      case kLdconfig:
        o.ldconfig = value;
        break;
      case kCompute:
        o.compute = true;
        break;
      case kUtility:
        o.utility = true;
        break;
      case kVideo:
        o.video = true;
        break;
      case kGraphics:
        o.graphics = true;
        break;
      case kDisplay:
        o.display = true;
        break;
      case kNgx:
        o.ngx = true;
        break;
      case kCompat32:
        o.compat32 = true;
        break;
      case kMigConfig:
        o.mig_config = value;
        break;
      case kMigMonitor:
        o.mig_monitor = value;
        break;
      case kImex:
        o.imex_channels.push_back(value);
        break;
      case kNoCgroups:
        o.no_cgroups = true;
        break;
      case kNoDevbind:
        o.no_devbind = true;
        break;
      case kNoPersistenced:
        o.no_persistenced = true;
        break;
      case kNoFabricmanager:
        o.no_fabricmanager = true;
        break;
      case kNoGspFirmware:
        o.no_gsp_firmware = true;
        break;
      case kNoCntlibs:
        o.no_cntlibs = true;
        break;
      case kCudaCompatMode:
        compat_modes.push_back(value);
        break;
      case kHelp:
        std::fputs(format_help("nvidia-container-cli configure [OPTION...] ROOTFS",
                               "Configure a container with GPU support by exposing device "
                               "drivers to it.\n\nThe ROOTFS is the container root filesystem.",
                               kSpecs)
                       .c_str(),
                   stdout);
        return std::optional<mount::ConfigureOptions>();
      default:
        break;
    }
  }
  // configure() checks the combination ("only one cuda-compat-mode ...").
  for (const auto& m : compat_modes)
    o.cuda_compat_mode += (o.cuda_compat_mode.empty() ? "" : ",") + m;
  if (parsed.positionals.empty()) return fail(EINVAL, "too few arguments");
  if (parsed.positionals.size() > 1)
    return fail(EINVAL, fmt::format("too many arguments: {}", parsed.positionals[1]));
  o.rootfs = parsed.positionals.front();
  return std::optional<mount::ConfigureOptions>(std::move(o));
}

Status run_configure(const GlobalOptions& g, const std::vector<std::string>& args) {
  NVCT_ASSIGN_OR_RETURN(auto options, parse_configure_options(g, args));
  if (!options) return ok();
  return mount::configure(*options);
}

}  // namespace nvct::cli
