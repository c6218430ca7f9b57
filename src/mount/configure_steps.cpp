#include "nvct/mount/configure_steps.hpp"

#include <fmt/format.h>

#include "nvct/base/strings.hpp"
#include "nvct/driver/listing.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::mount {
namespace {

std::optional<unsigned> cap_minor(const driver::DriverRoot& root, std::string_view file) {
  auto text = root.read(fmt::format("{}/mig/{}", driver::kProcCapabilities, file), 4096);
  if (!text) return std::nullopt;
  auto minor = driver::parse_device_file_minor(*text);
  if (!minor) return std::nullopt;
  return *minor;
}

}  // namespace

Result<ValidatedConfigure> validate_configure_options(const ConfigureOptions& o) {
  ValidatedConfigure v;
  if (o.rootfs.empty() || o.rootfs[0] != '/' ||
      o.rootfs.find_first_not_of('/') == std::string::npos)
    return fail(EINVAL, fmt::format("container error: rootfs {} must be an absolute path other "
                                    "than /",
                                    o.rootfs));
  if (!o.ldconfig.empty() &&
      (o.ldconfig[0] != '@' || o.ldconfig.size() < 2 || o.ldconfig[1] != '/'))
    return fail(EPERM, fmt::format("ldcache error: refusing to run ldconfig {} from the container: "
                                   "use an absolute host path with the '@' prefix",
                                   o.ldconfig));
  auto modes = strings::split_trimmed(o.cuda_compat_mode, ',');
  auto compat = resolve_cuda_compat_mode(modes, o.no_cntlibs);
  if (!compat) return fail(EINVAL, "container error: " + compat.error().message());
  v.compat = *compat;
  for (const auto& item : o.imex_channels)
    for (const auto& c : strings::split(item, ',')) {
      if (c.empty()) continue;
      auto n = driver::parse_unsigned(c);
      if (!n || *n > driver::kMaxImexChannel)
        return fail(EINVAL,
                    fmt::format("error parsing IMEX info: unsupported IMEX channel value: {}", c));
      v.imex_channels.push_back(*n);
    }
  if (o.mig_config) {
    NVCT_ASSIGN_OR_RETURN(v.mig_config, driver::parse_mig_value(*o.mig_config, "mig-config"));
  }
  if (o.mig_monitor) {
    NVCT_ASSIGN_OR_RETURN(v.mig_monitor, driver::parse_mig_value(*o.mig_monitor, "mig-monitor"));
  }
  std::vector<std::string> items;
  for (const auto& d : o.devices)
    if (!d.empty()) items.push_back(d);
  v.devices = strings::join(items, ",");
  return v;
}

Result<edits::BuildOptions> build_options(const ConfigureOptions& o, const ValidatedConfigure& v,
                                          const driver::DriverInfo& info,
                                          const driver::DeviceSelection& sel,
                                          const driver::DriverRoot& root,
                                          const edits::ContainerLayout& layout) {
  edits::BuildOptions b;
  b.capabilities = {o.compute, o.utility, o.video, o.graphics, o.display, o.ngx, o.compat32};
  b.no_devbind = o.no_devbind;
  b.no_persistenced = o.no_persistenced;
  b.no_fabricmanager = o.no_fabricmanager;
  b.no_gsp_firmware = o.no_gsp_firmware;
  b.layout = layout;
  b.mig_config = v.mig_config;
  b.mig_monitor = v.mig_monitor;
  for (auto [set, stage] :
       {std::pair{b.mig_config, "mig-config"}, std::pair{b.mig_monitor, "mig-monitor"}}) {
    if (set && !sel.all && !sel.migs.empty())
      return fail(EINVAL, fmt::format("{} error: all: cannot enable {} with specific MIG devices "
                                      "selected",
                                      stage, stage));
  }
  if (b.mig_config || b.mig_monitor) {
    if (b.mig_config) b.mig_config_minor = cap_minor(root, "config");
    if (b.mig_monitor) b.mig_monitor_minor = cap_minor(root, "monitor");
    if (info.char_majors.count("nvidia-caps")) {
      auto text = root.read(driver::kProcMigMinors, 1u << 20);
      if (text) {
        auto minors = driver::parse_mig_minors(*text);
        if (!minors)
          return fail(minors.error().code(), "mig-config error: " + minors.error().message());
        b.mig_minors = std::move(*minors);
      }
    }
  }
  for (unsigned c : v.imex_channels) {
    std::string path = fmt::format("/dev/nvidia-caps-imex-channels/channel{}", c);
    if (!root.exists(path))
      return fail(ENOENT, fmt::format("device error: {}: no such file or directory", path));
    b.imex_channels.push_back(c);
  }
  return b;
}

request::RequirementFacts requirement_facts(const driver::DriverInfo& info,
                                            const driver::DeviceSelection& sel) {
  request::RequirementFacts f;
  if (!info.cuda_version.empty()) f.cuda_version = info.cuda_version;
  if (!info.nvrm_version.empty()) f.driver_version = info.nvrm_version;
  for (auto i : sel.gpus) {
    if (i >= info.gpus.size()) continue;
    request::DeviceFacts d;
    if (!info.gpus[i].arch.empty()) d.arch = info.gpus[i].arch;
    if (!info.gpus[i].brand.empty()) d.brand = info.gpus[i].brand;
    if (!info.gpus[i].model.empty()) d.model = info.gpus[i].model;
    f.devices.push_back(std::move(d));
  }
  return f;
}

}  // namespace nvct::mount
