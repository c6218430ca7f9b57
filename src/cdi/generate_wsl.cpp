#include "nvct/cdi/generate_wsl.hpp"
#include "nvct/base/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "nvct/cdi/additional_gids.hpp"
#include "nvct/cdi/generate_edits.hpp"
#include "nvct/cdi/version.hpp"
#include "nvct/driver/wsl_driver_store.hpp"

namespace nvct::cdi {
namespace {

bool has_file(const driver::WslDriverStore& store, std::string_view name) {
  return std::find(store.files.begin(), store.files.end(), name) != store.files.end();
}

// A driver-root file mounted at its root-relative path.
Mount driver_file_mount(const driver::DriverRoot& root, const std::string& path) {
  auto real = root.resolve(path);
  return Mount{root.host_path(real ? *real : path), path, "", kDriverFileMountOptions};
}

void add_hooks(ContainerEdits& out, const std::vector<driver::WslDriverStore>& stores,
               const std::string& dxcore, const HookOptions& hooks) {
  std::vector<std::string> links;
  bool smi_linked = false;
  for (const auto& store : stores) {
    // One /usr/bin/nvidia-smi: a second link at the same path would make the hook fail.
    if (!smi_linked && has_file(store, "nvidia-smi")) {
      links.emplace_back("--link");
      links.push_back(store.path + "/nvidia-smi::/usr/bin/nvidia-smi");
      smi_linked = true;
    }
    if (has_file(store, "libcuda.so.1.1")) {
      links.emplace_back("--link");
      links.push_back("libcuda.so.1.1::" + store.path + "/libcuda.so.1");
    }
  }
  add_hook(out, hooks, "create-symlinks", links);

  std::vector<std::string> ldcache;
  if (!hooks.ldconfig_path.empty()) {
    ldcache.emplace_back("--ldconfig-path");
    ldcache.push_back(hooks.ldconfig_path);
  }
  std::vector<std::string> folders;
  for (const auto& store : stores) folders.push_back(store.path);
  if (std::find(folders.begin(), folders.end(), strings::dirname(dxcore)) == folders.end())
    folders.push_back(strings::dirname(dxcore));
  for (const auto& f : folders) {
    ldcache.emplace_back("--folder");
    ldcache.push_back(f);
  }
  add_hook(out, hooks, "update-ldcache", ldcache);
}

}  // namespace

bool is_wsl_root(const std::string& driver_root, const std::string& dev_root,
                 DeviceLookup& lookup) {
  const std::string devs = dev_root.empty() ? driver_root : dev_root;
  if (!find_device_nodes(devs.empty() ? "/" : devs, driver::kDxgNode, lookup).empty()) return true;
  auto root = driver::DriverRoot::open(driver_root);
  return root && driver::find_dxcore(*root, {}).has_value();
}

Result<GenerateMode> resolve_generate_mode(std::string_view text, const std::string& driver_root,
                                           const std::string& dev_root, DeviceLookup& lookup) {
  NVCT_ASSIGN_OR_RETURN(auto mode, parse_generate_mode(text));
  if (text == "auto" && is_wsl_root(driver_root, dev_root, lookup)) return GenerateMode::kWsl;
  return mode;
}

Result<Spec> build_wsl_spec(const ModeOptions& o, DeviceLookup& lookup) {
  NVCT_TRY(validate_hook_options(o.hooks));
  NVCT_ASSIGN_OR_RETURN(auto root, driver::DriverRoot::open(o.driver_root));
  NVCT_ASSIGN_OR_RETURN(auto stores, driver::find_wsl_driver_stores(root));
  NVCT_ASSIGN_OR_RETURN(auto dxcore, driver::find_dxcore(root, o.library_search_paths));
  const std::string dev_root = o.dev_root.empty() ? o.driver_root : o.dev_root;
  if (find_device_nodes(dev_root, driver::kDxgNode, lookup).empty())
    return fail(ENOENT,
                fmt::format("WSL device node {} not found: {} is not a character device",
                            driver::kDxgNode, join_root(dev_root, std::string(driver::kDxgNode))));

  Spec spec;
  spec.kind = o.vendor + "/" + (o.class_name.empty() ? std::string("gpu") : o.class_name);
  bool wanted = std::any_of(o.device_ids.begin(), o.device_ids.end(),
                            [](const std::string& id) { return id != "none"; });
  if (wanted) {
    edits::DeviceNode dxg;
    dxg.container_path = std::string(driver::kDxgNode);
    dxg.host_path = dxg.container_path;
    Device all;
    all.name = "all";
    all.container_edits.device_nodes = to_cdi_device_nodes({dxg}, dev_root, lookup);
    spec.devices.push_back(std::move(all));
  }

  ContainerEdits& e = spec.container_edits;
  e.env.emplace_back("NVIDIA_VISIBLE_DEVICES=void");
  add_hooks(e, stores, dxcore, o.hooks);
  for (const auto& store : stores)
    for (const auto& file : store.files)
      e.mounts.push_back(driver_file_mount(root, store.path + "/" + file));
  e.mounts.push_back(driver_file_mount(root, dxcore));

  if (!o.features.no_additional_gids_for_device_nodes) add_device_node_gids(spec);
  spec.cdi_version = minimum_required_version(spec).str();
  return spec;
}

}  // namespace nvct::cdi
