#include "nvct/cdi/generate_graphics.hpp"

#include <algorithm>

#include "nvct/base/log.hpp"
#include "nvct/cdi/generate_edits.hpp"

namespace nvct::cdi {

GraphicsFacts discover_graphics(const driver::DriverInfo& info, const std::string& dev_root,
                                const std::vector<std::string>& config_search_paths) {
  GraphicsFacts facts;
  if (auto root = driver::DriverRoot::open(info.root)) {
    facts.files = driver::find_graphics_files(*root, info.nvrm_version, config_search_paths);
  } else {
    log::warn("graphics files not added: driver root {}: {}", info.root, root.error().message());
  }
  auto devs = driver::DriverRoot::open(dev_root);
  if (!devs) {
    log::warn("DRM nodes not added: dev root {}: {}", dev_root, devs.error().message());
    return facts;
  }
  for (const auto& gpu : info.gpus) {
    auto nodes = driver::find_drm_nodes(*devs, gpu.bus_id);
    if (!nodes) {
      log::warn("DRM nodes of GPU {} not added: {}", gpu.bus_id, nodes.error().message());
      continue;
    }
    facts.drm[gpu.bus_id] = std::move(*nodes);
  }
  return facts;
}

std::vector<edits::DeviceNode> drm_device_nodes(const GraphicsFacts& facts,
                                                const driver::Gpu& gpu) {
  std::vector<edits::DeviceNode> out;
  auto it = facts.drm.find(gpu.bus_id);
  if (it == facts.drm.end()) return out;
  for (const auto& n : it->second) {
    edits::DeviceNode node;
    node.container_path = n.path;
    node.host_path = n.path;
    node.major = n.major;
    node.minor = n.minor;
    out.push_back(std::move(node));
  }
  return out;
}

std::optional<Hook> drm_by_path_hook(const GraphicsFacts& facts, const driver::Gpu& gpu,
                                     const HookOptions& hooks) {
  auto it = facts.drm.find(gpu.bus_id);
  if (it == facts.drm.end()) return std::nullopt;
  return make_hook(hooks, "create-symlinks",
                   driver::create_symlinks_args(driver::drm_by_path_links(gpu.bus_id, it->second)));
}

void add_graphics_symlinks(edits::Edits& common, const GraphicsFacts& facts) {
  for (const auto& l : facts.files.links) {
    edits::Symlink link{l.link, l.target};
    if (std::find(common.symlinks.begin(), common.symlinks.end(), link) == common.symlinks.end())
      common.symlinks.push_back(std::move(link));
  }
}

void add_graphics_mounts(ContainerEdits& common, const GraphicsFacts& facts,
                         const std::string& driver_root) {
  for (const auto& f : facts.files.files) {
    Mount m;
    m.host_path = join_root(driver_root, f.source);
    m.container_path = f.container_path;
    m.options = kDriverFileMountOptions;
    if (std::find(common.mounts.begin(), common.mounts.end(), m) == common.mounts.end())
      common.mounts.push_back(std::move(m));
  }
}

}  // namespace nvct::cdi
