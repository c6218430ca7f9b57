#include "nvct/driver/listing.hpp"

#include <fmt/format.h>

#include "nvct/base/strings.hpp"
#include "nvct/driver/device_selection.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::driver {
namespace {

std::string or_na(const std::string& s) { return s.empty() ? "N/A" : s; }

// --mig-config / --mig-monitor ("all", parse_mig_value): refused with specific MIG devices
// selected, applied to the selected MIG-capable GPUs (mount.md §8). In the reference's order:
// the capability file (and, DEV style, its node), then per GPU its capability directory, and,
// DEV style, /dev/nvidia-caps and the nodes of the GPU's instances in mig-minors order.
Status list_mig_caps(const DriverInfo& info, const DriverRoot& root, const DeviceSelection& sel,
                     std::string_view stage, std::string_view file, std::vector<std::string>& out) {
  if (!sel.all && !sel.migs.empty())
    return fail(EINVAL, fmt::format("{} error: all: cannot enable {} with specific MIG devices "
                                    "selected",
                                    stage, stage));
  std::vector<const Gpu*> gpus;
  for (auto i : sel.gpus)
    if (info.gpus[i].mig_capable) gpus.push_back(&info.gpus[i]);
  if (gpus.empty()) return ok();
  const std::string cap_file = fmt::format("{}/mig/{}", kProcCapabilities, file);
  out.push_back(cap_file);
  const bool dev = info.caps_style == CapsStyle::kDev;
  auto node = [](unsigned minor) { return fmt::format("/dev/nvidia-caps/nvidia-cap{}", minor); };
  std::vector<MigMinorLine> minors;
  if (dev) {
    if (auto text = root.read(cap_file, 4096))
      if (auto minor = parse_device_file_minor(*text)) out.push_back(node(*minor));
    if (auto text = root.read(kProcMigMinors, 1u << 20))
      if (auto scanned = scan_mig_minors(*text)) minors = std::move(*scanned);
  }
  for (const Gpu* g : gpus) {
    out.push_back(g->mig_caps_path);
    if (!dev) continue;
    out.emplace_back("/dev/nvidia-caps");
    for (const auto& m : minors)
      if ((m.kind == MigMinor::Kind::kGpuInstance || m.kind == MigMinor::Kind::kComputeInstance) &&
          m.gpu == g->minor)
        out.push_back(node(m.minor));
  }
  return ok();
}

}  // namespace

std::string format_info(const DriverInfo& info, bool csv) {
  std::string s;
  if (csv) {
    s += "NVRM version,CUDA version\n";
    s += fmt::format("{},{}\n\n", or_na(info.nvrm_version), or_na(info.cuda_version));
    s += "Device Index,Device Minor,Model,Brand,GPU UUID,Bus Location,Architecture\n";
    for (const auto& g : info.gpus)
      s += fmt::format("{},{},{},{},{},{},{}\n", g.index, g.minor, or_na(g.model), or_na(g.brand),
                       or_na(g.uuid), or_na(g.bus_id), or_na(g.arch));
    return s;
  }
  auto line = [&](std::string_view label, const std::string& value) {
    s += fmt::format("{:<15} {}\n", fmt::format("{}:", label), value);
  };
  line("NVRM version", or_na(info.nvrm_version));
  line("CUDA version", or_na(info.cuda_version));
  for (const auto& g : info.gpus) {
    s += "\n";
    line("Device Index", std::to_string(g.index));
    line("Device Minor", std::to_string(g.minor));
    line("Model", or_na(g.model));
    line("Brand", or_na(g.brand));
    line("GPU UUID", or_na(g.uuid));
    line("Bus Location", or_na(g.bus_id));
    line("Architecture", or_na(g.arch));
  }
  return s;
}

Result<bool> parse_mig_value(std::string_view value, std::string_view stage) {
  for (const auto& item : strings::split(value, ',')) {
    if (item.empty()) continue;
    if (strings::to_lower(item) == "all") return true;
    return fail(EINVAL, fmt::format("{} error: {}: only 'all' devices are currently supported",
                                    stage, item));
  }
  return false;
}

bool list_everything(const ListOptions& o) {
  return !o.devices && !o.libraries && !o.binaries && !o.ipcs && !o.firmwares && !o.compat32 &&
         !o.mig_config && !o.mig_monitor && !o.other_options;
}

Result<std::vector<std::string>> list_driver_paths(const DriverInfo& info, const DriverRoot& root,
                                                   ListOptions o) {
  bool mig_config = false, mig_monitor = false;
  if (o.mig_config) {
    NVCT_ASSIGN_OR_RETURN(mig_config, parse_mig_value(*o.mig_config, "mig-config"));
  }
  if (o.mig_monitor) {
    NVCT_ASSIGN_OR_RETURN(mig_monitor, parse_mig_value(*o.mig_monitor, "mig-monitor"));
  }
  if (list_everything(o)) {
    o.devices = "all";
    o.libraries = o.binaries = o.ipcs = o.firmwares = o.compat32 = true;
  }
  std::vector<unsigned> channels;
  for (const auto& item : o.imex_channels) {
    if (item.empty()) continue;
    auto n = parse_unsigned(item);
    if (!n || *n > kMaxImexChannel)
      return fail(EINVAL,
                  fmt::format("error parsing IMEX info: unsupported IMEX channel value: {}", item));
    channels.push_back(*n);
  }
  DeviceSelection sel;
  if (o.devices) {
    auto s = select_devices(info.gpus, *o.devices, "--device");
    if (!s) return fail(s.error().code(), "device error: " + s.error().message());
    sel = std::move(*s);
  }
  std::vector<std::string> out;
  if (o.devices) {
    for (const auto& d : info.devices) out.push_back(d.path);
    for (auto i : sel.gpus) out.push_back(info.gpus[i].node.path);
  }
  std::vector<std::string> caps;
  if (mig_config) NVCT_TRY(list_mig_caps(info, root, sel, "mig-config", "config", caps));
  if (mig_monitor) NVCT_TRY(list_mig_caps(info, root, sel, "mig-monitor", "monitor", caps));
  // mig-config/mig-monitor replace the per-MIG access files.
  if (!mig_config && !mig_monitor) {
    for (const auto& [gi, mi] : sel.migs) {
      const MigDevice& m = info.gpus[gi].migs[mi];
      out.push_back(m.gi_caps_path + "/access");
      out.push_back(m.ci_caps_path + "/access");
      if (info.caps_style != CapsStyle::kDev) continue;
      for (auto minor : {m.gi_cap_minor, m.ci_cap_minor})
        if (minor) out.push_back(fmt::format("/dev/nvidia-caps/nvidia-cap{}", *minor));
    }
  }
  // A channel is listed whether or not its node exists, as the reference does: `list` names
  // what configure would inject, and configure --load-kmods creates the node (driver.md §7);
  // without it, configure is the step that fails on a missing node.
  for (unsigned c : channels)
    out.push_back(fmt::format("/dev/nvidia-caps-imex-channels/channel{}", c));
  out.insert(out.end(), caps.begin(), caps.end());
  if (o.binaries)
    for (const auto& b : info.bins) out.push_back(b.path);
  if (o.libraries)
    for (const auto& l : info.libs) out.push_back(l.path);
  if (o.libraries && o.compat32)  // --compat32 adds to -l; alone it lists nothing
    for (const auto& l : info.libs32) out.push_back(l.path);
  if (o.ipcs) out.insert(out.end(), info.ipcs.begin(), info.ipcs.end());
  if (o.firmwares)
    for (const auto& f : info.firmwares) out.push_back(f.path);
  return out;
}

}  // namespace nvct::driver
