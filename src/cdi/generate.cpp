#include "nvct/cdi/generate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "nvct/cdi/additional_gids.hpp"
#include "nvct/cdi/generate_edits.hpp"
#include "nvct/cdi/generate_graphics.hpp"
#include "nvct/cdi/generate_wsl.hpp"
#include "nvct/cdi/validate.hpp"
#include "nvct/cdi/version.hpp"
#include "nvct/driver/device_selection.hpp"
#include "nvct/edits/builder.hpp"

namespace nvct::cdi {
namespace {

// Everything a generated spec offers: the reference's CDI content is not filtered by
// NVIDIA_DRIVER_CAPABILITIES (the spec is shared by every container). 32-bit libraries are not
// part of it.
edits::BuildOptions spec_build_options(const GenerateOptions& g) {
  edits::BuildOptions o;
  o.imex_channels = g.imex_channels;
  o.capabilities = edits::Capabilities{.compute = true,
                                       .utility = true,
                                       .video = true,
                                       .graphics = true,
                                       .display = true,
                                       .ngx = true,
                                       .compat32 = false};
  return o;
}

// One GPU or MIG device of the spec.
struct Target {
  std::size_t gpu = 0;
  std::optional<std::size_t> mig;
};

bool all_digits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

Result<std::vector<Target>> targets_for(const driver::DriverInfo& info, const std::string& id) {
  std::vector<Target> out;
  if (id == "all") {
    for (std::size_t g = 0; g < info.gpus.size(); ++g) {
      out.push_back(Target{g, std::nullopt});
      for (std::size_t m = 0; m < info.gpus[g].migs.size(); ++m) out.push_back(Target{g, m});
    }
    return out;
  }
  // NVML's words first (what users of the reference search for), then what would have worked.
  if (all_digits(id) && (id.size() > 9 || std::stoul(id) >= info.gpus.size()))
    return fail(EINVAL, fmt::format("failed to get device handle from index: "
                                    "ERROR_INVALID_ARGUMENT; valid devices: {}",
                                    driver::describe_valid_devices(info.gpus)));
  auto sel = driver::select_devices(info.gpus, id);
  if (!sel)
    return fail(sel.error().code(), "failed to get device handle: " + sel.error().message());
  if (!sel->migs.empty()) {
    for (const auto& [g, m] : sel->migs) out.push_back(Target{g, m});
  } else {
    for (auto g : sel->gpus) out.push_back(Target{g, std::nullopt});
  }
  return out;
}

driver::DeviceSelection selection_of(const Target& t) {
  driver::DeviceSelection s;
  s.gpus.push_back(t.gpu);
  if (t.mig) s.migs.emplace_back(t.gpu, *t.mig);
  return s;
}

// The device's own nodes: what the builder adds for it beyond the common (no-device) edits.
std::vector<edits::DeviceNode> own_nodes(const edits::Edits& device, const edits::Edits& common) {
  std::vector<edits::DeviceNode> out;
  for (const auto& n : device.device_nodes)
    if (std::find(common.device_nodes.begin(), common.device_nodes.end(), n) ==
        common.device_nodes.end())
      out.push_back(n);
  return out;
}

ModeOptions wsl_mode_options(const driver::DriverInfo& info, const GenerateOptions& g,
                             const std::string& dev_root) {
  ModeOptions m;
  m.vendor = g.vendor;
  m.class_name = g.class_name;
  m.driver_root = info.root.empty() ? "/" : info.root;
  m.dev_root = dev_root.empty() ? m.driver_root : dev_root;
  m.device_ids = g.device_ids;
  m.features = g.features;
  m.hooks = g.hooks;
  return m;
}

}  // namespace

Result<NameStrategy> parse_name_strategy(std::string_view text) {
  if (text == "index") return NameStrategy::kIndex;
  if (text == "uuid") return NameStrategy::kUuid;
  if (text == "type-index") return NameStrategy::kTypeIndex;
  return fail(EINVAL, fmt::format("invalid device name strategy: {} (expected index, uuid or "
                                  "type-index)",
                                  text));
}

std::string device_name(NameStrategy strategy, const driver::Gpu& gpu,
                        const driver::MigDevice* mig) {
  switch (strategy) {
    case NameStrategy::kIndex:
      return mig ? fmt::format("{}:{}", gpu.index, mig->index) : fmt::format("{}", gpu.index);
    case NameStrategy::kUuid:
      return mig ? mig->uuid : gpu.uuid;
    case NameStrategy::kTypeIndex:
      return mig ? fmt::format("mig{}:{}", gpu.index, mig->index) : fmt::format("gpu{}", gpu.index);
  }
  return {};
}

Result<Spec> build_spec(const driver::DriverInfo& info, const GenerateOptions& o,
                        DeviceLookup& lookup) {
  NVCT_TRY(validate_hook_options(o.hooks));
  const std::string dev_root = o.dev_root.empty() ? info.root : o.dev_root;
  if (o.detect_wsl && is_wsl_root(info.root, dev_root, lookup))
    return build_wsl_spec(wsl_mode_options(info, o, dev_root), lookup);
  const auto build = spec_build_options(o);
  edits::Edits common = with_host_layout(edits::build_edits(info, {}, build), info.bins);
  if (o.features.disable_ipc_discoverer)
    std::erase_if(common.mounts,
                  [](const edits::FileMount& m) { return m.kind == edits::FileKind::kIpc; });
  const GraphicsFacts graphics = discover_graphics(info, dev_root, o.config_search_paths);
  add_graphics_symlinks(common, graphics);

  std::vector<Target> targets;
  bool none = false;
  for (const auto& id : o.device_ids) {
    if (id == "none") {
      none = true;
      continue;
    }
    NVCT_ASSIGN_OR_RETURN(auto t,
                          with_context(targets_for(info, id), "failed to create device CDI specs"));
    targets.insert(targets.end(), t.begin(), t.end());
  }

  Spec spec;
  spec.kind = o.vendor + "/" + o.class_name;
  std::vector<edits::DeviceNode> all_nodes;
  std::vector<Hook> all_hooks;
  for (NameStrategy strategy : o.strategies) {
    for (const auto& t : targets) {
      const driver::Gpu& gpu = info.gpus[t.gpu];
      const driver::MigDevice* mig = t.mig ? &gpu.migs[*t.mig] : nullptr;
      std::string name = device_name(strategy, gpu, mig);
      bool seen = std::any_of(spec.devices.begin(), spec.devices.end(),
                              [&](const Device& d) { return d.name == name; });
      if (seen) continue;
      auto nodes = own_nodes(edits::build_edits(info, selection_of(t), build), common);
      std::optional<Hook> by_path;
      if (!mig) {  // cdi.md §6.3: a full GPU's DRM nodes and its by-path links
        auto drm = drm_device_nodes(graphics, gpu);
        nodes.insert(nodes.end(), drm.begin(), drm.end());
        by_path = drm_by_path_hook(graphics, gpu, o.hooks);
      }
      if (by_path && std::find(all_hooks.begin(), all_hooks.end(), *by_path) == all_hooks.end())
        all_hooks.push_back(*by_path);
      for (const auto& n : nodes)
        if (std::find(all_nodes.begin(), all_nodes.end(), n) == all_nodes.end())
          all_nodes.push_back(n);
      Device d;
      d.name = std::move(name);
      d.container_edits.device_nodes = to_cdi_device_nodes(nodes, dev_root, lookup);
      if (by_path) d.container_edits.hooks.push_back(std::move(*by_path));
      spec.devices.push_back(std::move(d));
    }
  }
  bool has_all = std::any_of(spec.devices.begin(), spec.devices.end(),
                             [](const Device& d) { return d.name == "all"; });
  if (!o.no_all_device && !none && !has_all && !all_nodes.empty()) {
    Device all;
    all.name = "all";
    all.container_edits.device_nodes = to_cdi_device_nodes(all_nodes, dev_root, lookup);
    all.container_edits.hooks = all_hooks;
    spec.devices.push_back(std::move(all));
  }

  ConvertOptions convert;
  convert.driver_root = info.root;
  convert.dev_root = dev_root;
  convert.driver_version = info.nvrm_version;
  convert.hooks = o.hooks;
  spec.container_edits = to_cdi_common_edits(common, convert, lookup);
  add_graphics_mounts(spec.container_edits, graphics, info.root);
  if (!o.features.no_additional_gids_for_device_nodes) add_device_node_gids(spec);
  spec.cdi_version = minimum_required_version(spec).str();
  return spec;
}

Result<Spec> generate_spec(const driver::DriverInfo& info, const GenerateOptions& o,
                           DeviceLookup& lookup) {
  NVCT_ASSIGN_OR_RETURN(auto spec, build_spec(info, o, lookup));
  NVCT_TRY(with_context(validate_spec(spec), "generated spec is invalid"));
  return spec;
}

}  // namespace nvct::cdi
