// DRM device nodes of a GPU (driver.md §6 DRM row; runtime.md §7.3; cdi.md §6.3): the toolkit,
// not libnvidia-container, gives graphics containers /dev/dri/cardN and /dev/dri/renderDN of
// their GPUs, plus /dev/dri/by-path links that Vulkan/EGL loaders and Xorg use to match a node
// to its PCI device. The kernel lists a GPU's nodes as entries of
// /sys/bus/pci/devices/<domain:bus:dev.fn>/drm/; each entry's `dev` file holds "MAJ:MIN".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/driver/driver_root.hpp"

namespace nvct::driver {

inline constexpr unsigned kDrmMajor = 226;
inline constexpr unsigned kDrmRenderMinorBase = 128;
inline constexpr std::string_view kSysPciDevices = "/sys/bus/pci/devices";
inline constexpr std::string_view kDevDri = "/dev/dri";

enum class DrmNodeKind { kCard, kRender };

struct DrmNode {
  DrmNodeKind kind = DrmNodeKind::kCard;
  std::string name;  // "card1", "renderD129"
  std::string path;  // root-relative and container path: /dev/dri/card1
  unsigned major = kDrmMajor, minor = 0;
  friend bool operator==(const DrmNode&, const DrmNode&) = default;
};

// A link to create in the container: link -> target (target relative, "../card1").
struct ContainerLink {
  std::string link;
  std::string target;
  friend bool operator==(const ContainerLink&, const ContainerLink&) = default;
};

// The sysfs name of a PCI bus id: NVML's "00000000:3B:00.0" and procfs' "0000:3b:00.0" both
// become "0000:3b:00.0" (the kernel's %04x domain, lower case). nullopt for anything else.
std::optional<std::string> sysfs_pci_bus_id(std::string_view bus_id);

// "card<N>" / "renderD<N>" (N decimal) -> kind and N; nullopt for other drm entries
// ("controlD64", "card1-DP-1" connectors, "version").
std::optional<std::pair<DrmNodeKind, unsigned>> parse_drm_entry(std::string_view name);

// The DRM nodes of the GPU at bus_id, cards before render nodes, each
// sorted by number. The number comes from the entry's `dev` file (226:N when it has none); a
// node is kept only when <devs>/dev/dri/<name> is a character device with that number (a
// regular file or another device in its place is skipped with a warning, never trusted). A
// GPU without a drm directory (no nvidia-drm module) has no nodes: not an error.
// The GPU's entries are read from `sysfs`, the nodes checked under `devs`.
Result<std::vector<DrmNode>> find_drm_nodes(const DriverRoot& sysfs, const DriverRoot& devs,
                                            std::string_view bus_id);
// The same with sysfs_root_for(root) and the nodes under root.
Result<std::vector<DrmNode>> find_drm_nodes(const DriverRoot& root, std::string_view bus_id);

// Where the kernel's PCI devices are read: the root's own /sys/bus/pci/devices when it has one
// (the host's when the root is /, a driver container's sysfs, a test's stand-in), else the
// host's /sys, as the toolkit always does: a driver root that holds only the driver's files (no
// sysfs) still gets its GPUs' DRM nodes (docs/deviations.md).
Result<DriverRoot> sysfs_root_for(const DriverRoot& root);

// /dev/dri/by-path/pci-<bus>-card -> ../cardN and pci-<bus>-render -> ../renderDN, for the
// nodes of one GPU (bus_id in any form sysfs_pci_bus_id accepts).
std::vector<ContainerLink> drm_by_path_links(std::string_view bus_id,
                                             const std::vector<DrmNode>& nodes);

// create-symlinks arguments: "--link", "<target>::<link>" per link.
std::vector<std::string> create_symlinks_args(const std::vector<ContainerLink>& links);

}  // namespace nvct::driver
