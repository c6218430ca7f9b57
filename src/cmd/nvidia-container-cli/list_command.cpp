// `nvidia-container-cli list [OPTION...]` (cli.md §6).
#include <fmt/format.h>

#include <cstdio>

#include "argp.hpp"
#include "commands.hpp"
#include "driver_session.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/driver/listing.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::cli {
namespace {

enum Id {
  kDevice,
  kLibraries,
  kBinaries,
  kIpcs,
  kFirmwares,
  kCompat32,
  kMigConfig,
  kMigMonitor,
  kImex,
  kNoPersistenced,
  kNoFabricmanager,
  kNoGspFirmware,
  kHelp
};
const std::vector<OptionSpec> kSpecs = {
    {kDevice, 'd', "device", ArgKind::kRequired, "ID", "Device UUID(s) or index(es) to list"},
    {kLibraries, 'l', "libraries", ArgKind::kNone, "", "List driver libraries"},
    {kBinaries, 'b', "binaries", ArgKind::kNone, "", "List driver binaries"},
    {kIpcs, 'i', "ipcs", ArgKind::kNone, "", "List driver ipcs"},
    {kFirmwares, 'f', "firmwares", ArgKind::kNone, "", "List driver firmwares"},
    {kCompat32, 0, "compat32", ArgKind::kNone, "", "Enable 32bits compatibility"},
    {kMigConfig, 0, "mig-config", ArgKind::kRequired, "ID", "Enable configuration of MIG devices"},
    {kMigMonitor, 0, "mig-monitor", ArgKind::kRequired, "ID", "Enable monitoring of MIG devices"},
    {kImex, 0, "imex-channel", ArgKind::kRequired, "CHANNEL", "IMEX channel ID(s) to list"},
    {kNoPersistenced, 0, "no-persistenced", ArgKind::kNone, "",
     "Don't include the NVIDIA persistence daemon"},
    {kNoFabricmanager, 0, "no-fabricmanager", ArgKind::kNone, "",
     "Don't include the NVIDIA fabricmanager daemon"},
    {kNoGspFirmware, 0, "no-gsp-firmware", ArgKind::kNone, "", "Don't include GSP Firmware"},
    {kHelp, '?', "help", ArgKind::kNone, "", "Give this help list"},
};

}  // namespace

Status run_list(const GlobalOptions& g, const std::vector<std::string>& args) {
  NVCT_ASSIGN_OR_RETURN(ParsedArgs parsed, parse_args(kSpecs, args, false));
  if (!parsed.positionals.empty())
    return fail(EINVAL, fmt::format("too many arguments: {}", parsed.positionals.front()));
  driver::ListOptions lo;
  driver::DiscoverOptions dopts = discover_options(g);
  std::vector<std::string> devices;
  for (const auto& o : parsed.options) {
    switch (o.id) {
      case kDevice:
        devices.push_back(*o.value);
        break;
      case kLibraries:
        lo.libraries = true;
        break;
      case kBinaries:
        lo.binaries = true;
        break;
      case kIpcs:
        lo.ipcs = true;
        break;
      case kFirmwares:
        lo.firmwares = true;
        break;
      case kCompat32:
        lo.compat32 = true;
        break;
      case kMigConfig:
        lo.mig_config = *o.value;
        break;
      case kMigMonitor:
        lo.mig_monitor = *o.value;
        break;
      case kImex:
        for (auto& c : strings::split(*o.value, ',')) lo.imex_channels.push_back(c);
        break;
      case kNoPersistenced:
        dopts.no_persistenced = true;
        lo.other_options = true;
        break;
      case kNoFabricmanager:
        dopts.no_fabricmanager = true;
        lo.other_options = true;
        break;
      case kNoGspFirmware:
        dopts.no_gsp_firmware = true;
        lo.other_options = true;
        break;
      case kHelp:
        std::fputs(format_help("nvidia-container-cli list [OPTION...]",
                               "Query the driver and list the components required in order to "
                               "configure a container with GPU support",
                               kSpecs)
                       .c_str(),
                   stdout);
        return ok();
      default:
        break;
    }
  }
  if (!devices.empty()) lo.devices = strings::join(devices, ",");
  // Valid channels are created by --load-kmods; invalid ones are reported by the listing.
  std::vector<unsigned> channels;
  for (const auto& c : lo.imex_channels)
    if (auto n = driver::parse_unsigned(c); n && *n <= driver::kMaxImexChannel)
      channels.push_back(*n);
  NVCT_ASSIGN_OR_RETURN(DriverSession s, open_driver_session(g, dopts, std::move(channels)));
  NVCT_ASSIGN_OR_RETURN(auto paths, driver::list_driver_paths(s.info, s.context.root, lo));
  std::string out;
  for (const auto& p : paths) out += p + "\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  return ok();
}

}  // namespace nvct::cli
