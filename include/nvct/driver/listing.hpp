// What `nvidia-container-cli info` and `list` print (cli.md §5, §6), as pure functions of the
// discovered DriverInfo so that formats and ordering are unit-tested.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/driver/driver_info.hpp"

namespace nvct::driver {

// Text or CSV form of `info`. Unknown values (procfs fallback) print as "N/A".
std::string format_info(const DriverInfo& info, bool csv);

// IMEX channel numbers are below 2^20 (driver.md §12.4).
inline constexpr unsigned kMaxImexChannel = (1u << 20) - 1;

struct ListOptions {
  std::optional<std::string> devices;  // the joined --device lists; nullopt = no --device
  bool libraries = false, binaries = false, ipcs = false, firmwares = false, compat32 = false;
  std::optional<std::string> mig_config, mig_monitor;
  std::vector<std::string> imex_channels;  // raw items of --imex-channel
  // --no-persistenced, --no-fabricmanager or --no-gsp-firmware was given: they select nothing,
  // but as any option but --imex-channel they turn off the list-everything default (cli.md §6).
  bool other_options = false;
};

// A --mig-config / --mig-monitor value, as the reference reads it: a comma list whose first
// non-empty item must be "all" (any case) -> true; no item at all -> false (as if not given);
// another item -> "<stage> error: <item>: only 'all' devices are currently supported".
Result<bool> parse_mig_value(std::string_view value, std::string_view stage);

// True when `list` was given nothing but --imex-channel: then it lists everything.
bool list_everything(const ListOptions& o);

// The paths of `list`, root-relative, in cli.md §6 order. Errors carry their stage prefix
// ("device error: 5: unknown device", "mig-config error: ..."). IMEX channels are listed whether
// or not their nodes exist (the reference's rule: configure --load-kmods creates them).
Result<std::vector<std::string>> list_driver_paths(const DriverInfo& info, const DriverRoot& root,
                                                   ListOptions options);

}  // namespace nvct::driver
