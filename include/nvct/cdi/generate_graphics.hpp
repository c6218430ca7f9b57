// The graphics content of a generated spec (spec/cdi.md §6.3): each full GPU's DRM nodes
// (/dev/dri/cardN, renderDN) and a create-symlinks hook for its /dev/dri/by-path links in the
// device's edits, and the graphics config files (driver/graphics_files.hpp) plus the GLX
// module link in the common edits. MIG devices get no DRM nodes (they share the parent's).
#pragma once

#include <map>
#include <string>

#include "nvct/cdi/generate_hooks.hpp"
#include "nvct/cdi/inject.hpp"
#include "nvct/cdi/spec.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/driver/drm.hpp"
#include "nvct/driver/graphics_files.hpp"
#include "nvct/edits/edits.hpp"

namespace nvct::cdi {

struct GraphicsFacts {
  std::map<std::string, std::vector<driver::DrmNode>> drm;  // by the GPU's bus_id
  driver::GraphicsFiles files;
};

// DRM nodes of every GPU, read from sysfs and /dev/dri under dev_root (the host prefix of the
// spec's device nodes), and the graphics files under the driver root. A root that cannot be
// opened, or a GPU whose nodes cannot be read, contributes nothing (logged): a host without
// nvidia-drm still gets a usable spec.
// config_search_paths: extra root-relative config directories, searched first.
GraphicsFacts discover_graphics(const driver::DriverInfo& info, const std::string& dev_root,
                                const std::vector<std::string>& config_search_paths = {});

// The DRM nodes of one GPU as edits nodes (host path = container path, under dev_root later).
std::vector<edits::DeviceNode> drm_device_nodes(const GraphicsFacts& facts, const driver::Gpu& gpu);

// The by-path create-symlinks hook of one GPU; nullopt without DRM nodes or when the hook is
// disabled.
std::optional<Hook> drm_by_path_hook(const GraphicsFacts& facts, const driver::Gpu& gpu,
                                     const HookOptions& hooks);

// Adds the GLX module link to the common edits' symlinks (so the common create-symlinks hook
// carries it).
void add_graphics_symlinks(edits::Edits& common, const GraphicsFacts& facts);

// Appends the graphics file mounts (driver-file options) to the spec-level edits.
void add_graphics_mounts(ContainerEdits& common, const GraphicsFacts& facts,
                         const std::string& driver_root);

}  // namespace nvct::cdi
