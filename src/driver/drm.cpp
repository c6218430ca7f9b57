#include "nvct/driver/drm.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::driver {
namespace {

std::optional<std::pair<unsigned, unsigned>> parse_dev_file(std::string_view text) {
  auto parts = strings::split(strings::trim(text), ':');
  if (parts.size() != 2) return std::nullopt;
  auto major = parse_unsigned(parts[0]);
  auto minor = parse_unsigned(parts[1]);
  if (!major || !minor) return std::nullopt;
  return std::make_pair(*major, *minor);
}

}  // namespace

std::optional<std::string> sysfs_pci_bus_id(std::string_view bus_id) {
  auto nvml = normalize_pci_bus_id(bus_id);  // "%08x:%02x:%02x.0"
  if (!nvml) return std::nullopt;
  // The kernel prints the domain with %04x; NVML pads it to 8 digits (VMD domains are wider
  // than 16 bits, so only the padding is dropped).
  std::size_t start = 0;
  while (start < 4 && (*nvml)[start] == '0') ++start;
  return nvml->substr(start);
}

std::optional<std::pair<DrmNodeKind, unsigned>> parse_drm_entry(std::string_view name) {
  DrmNodeKind kind;
  std::string_view digits;
  if (strings::starts_with(name, "renderD")) {
    kind = DrmNodeKind::kRender;
    digits = name.substr(7);
  } else if (strings::starts_with(name, "card")) {
    kind = DrmNodeKind::kCard;
    digits = name.substr(4);
  } else {
    return std::nullopt;
  }
  auto n = parse_unsigned(digits);
  if (!n) return std::nullopt;
  return std::make_pair(kind, *n);
}

Result<DriverRoot> sysfs_root_for(const DriverRoot& root) {
  if (root.path() == "/" || root.exists(kSysPciDevices)) return DriverRoot::open(root.path());
  log::debug("no {} under {}: reading the host's", kSysPciDevices, root.path());
  return DriverRoot::open("/");
}

Result<std::vector<DrmNode>> find_drm_nodes(const DriverRoot& root, std::string_view bus_id) {
  NVCT_ASSIGN_OR_RETURN(auto sysfs, sysfs_root_for(root));
  return find_drm_nodes(sysfs, root, bus_id);
}

Result<std::vector<DrmNode>> find_drm_nodes(const DriverRoot& sysfs, const DriverRoot& root,
                                            std::string_view bus_id) {
  auto bus = sysfs_pci_bus_id(bus_id);
  if (!bus) return fail(EINVAL, fmt::format("invalid PCI bus id '{}'", bus_id));
  const std::string drm_dir = fmt::format("{}/{}/drm", kSysPciDevices, *bus);
  auto entries = sysfs.list_dir(drm_dir);
  if (!entries) {
    if (entries.error().code() == ENOENT || entries.error().code() == ENOTDIR) {
      log::debug("no {} under {}: GPU {} has no DRM nodes", drm_dir, sysfs.path(), *bus);
      return std::vector<DrmNode>{};
    }
    return fail(entries.error().code(),
                fmt::format("list {}: {}", drm_dir, entries.error().message()));
  }
  std::vector<DrmNode> nodes;
  for (const auto& entry : *entries) {
    auto parsed = parse_drm_entry(entry);
    if (!parsed) continue;
    DrmNode node;
    node.kind = parsed->first;
    node.name = entry;
    node.path = fmt::format("{}/{}", kDevDri, entry);
    node.minor = parsed->second;
    if (auto dev = sysfs.read(fmt::format("{}/{}/dev", drm_dir, entry), 64)) {
      auto numbers = parse_dev_file(*dev);
      if (!numbers) {
        log::warn("skipping DRM node {}: unreadable {}/{}/dev '{}'", entry, drm_dir, entry,
                  strings::trim(*dev));
        continue;
      }
      node.major = numbers->first;
      node.minor = numbers->second;
    }
    auto st = root.stat(node.path);
    if (!st) {
      log::warn("skipping DRM node {}: {} under {}: {}", entry, node.path, root.path(),
                st.error().message());
      continue;
    }
    // The node is bind-mounted or recreated with this number: only a real character device
    // with the sysfs number is trusted (the runc CVE-2025-31133 lesson, driver.md §6 nvct).
    if (!S_ISCHR(st->st_mode) || st->st_rdev != makedev(node.major, node.minor)) {
      log::warn("skipping DRM node {}: {} under {} is not the character device {}:{}", entry,
                node.path, root.path(), node.major, node.minor);
      continue;
    }
    nodes.push_back(std::move(node));
  }
  std::sort(nodes.begin(), nodes.end(), [](const DrmNode& a, const DrmNode& b) {
    if (a.kind != b.kind) return a.kind == DrmNodeKind::kCard;
    return a.minor < b.minor;
  });
  return nodes;
}

std::vector<ContainerLink> drm_by_path_links(std::string_view bus_id,
                                             const std::vector<DrmNode>& nodes) {
  std::vector<ContainerLink> links;
  auto bus = sysfs_pci_bus_id(bus_id);
  if (!bus) return links;
  for (const auto& node : nodes) {
    const char* suffix = node.kind == DrmNodeKind::kCard ? "card" : "render";
    ContainerLink link{fmt::format("{}/by-path/pci-{}-{}", kDevDri, *bus, suffix),
                       fmt::format("../{}", node.name)};
    // One link per kind: a GPU with two card entries keeps the first, as udev's rule would.
    bool taken = std::any_of(links.begin(), links.end(),
                             [&](const ContainerLink& l) { return l.link == link.link; });
    if (!taken) links.push_back(std::move(link));
  }
  return links;
}

std::vector<std::string> create_symlinks_args(const std::vector<ContainerLink>& links) {
  std::vector<std::string> args;
  for (const auto& l : links) {
    args.emplace_back("--link");
    args.push_back(l.target + "::" + l.link);
  }
  return args;
}

}  // namespace nvct::driver
