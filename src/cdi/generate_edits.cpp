#include "nvct/cdi/generate_edits.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/edits/builder.hpp"

namespace nvct::cdi {
namespace {

std::vector<std::string> library_dirs(const edits::Edits& e) {
  std::vector<std::string> dirs;
  for (const auto& m : e.mounts)
    if (m.kind == edits::FileKind::kLibrary)
      strings::append_unique(dirs, strings::dirname(m.container_path));
  return dirs;
}

std::vector<std::string> libcuda_dirs(const edits::Edits& e) {
  std::vector<std::string> dirs;
  for (const auto& m : e.mounts)
    if (m.kind == edits::FileKind::kLibrary &&
        strings::starts_with(strings::basename(m.container_path), "libcuda.so"))
      strings::append_unique(dirs, strings::dirname(m.container_path));
  return dirs;
}

void add_hooks(ContainerEdits& out, const edits::Edits& e, const ConvertOptions& o) {
  std::vector<std::string> links;
  for (const auto& s : e.symlinks) {
    links.emplace_back("--link");
    links.push_back(s.target + "::" + s.container_path);
  }
  add_hook(out, o.hooks, "create-symlinks", links);
  if (!o.driver_version.empty())
    add_hook(out, o.hooks, "enable-cuda-compat", {"--host-driver-version=" + o.driver_version});
  std::vector<std::string> ldcache;
  if (!o.hooks.ldconfig_path.empty()) {
    ldcache.emplace_back("--ldconfig-path");
    ldcache.push_back(o.hooks.ldconfig_path);
  }
  for (const auto& dir : library_dirs(e)) {
    ldcache.emplace_back("--folder");
    ldcache.push_back(dir);
  }
  add_hook(out, o.hooks, "update-ldcache", ldcache);
  add_hook(out, o.hooks, "disable-device-node-modification", {});
  add_hook(out, o.hooks, "update-application-profile", {});
  // chmod only matters for the MIG capability directory (its nodes' parent is 0755 on hosts
  // that create it with the driver's modprobe).
  bool caps = std::any_of(e.device_nodes.begin(), e.device_nodes.end(), [](const auto& n) {
    return strings::starts_with(n.container_path, "/dev/nvidia-caps/");
  });
  if (caps) add_hook(out, o.hooks, "chmod", {"--mode", "755", "--path", "/dev/nvidia-caps"});
}

Mount to_cdi_mount(const edits::FileMount& m, const std::string& root) {
  Mount out;
  out.host_path = join_root(root, m.host_path);
  out.container_path = m.container_path;
  out.options = m.kind == edits::FileKind::kIpc ? kIpcMountOptions : kDriverFileMountOptions;
  return out;
}

}  // namespace

std::string join_root(const std::string& root, const std::string& path) {
  std::string r = root;
  while (!r.empty() && r.back() == '/') r.pop_back();
  if (path.empty() || path.front() != '/') return r + "/" + path;
  return r + path;
}

edits::Edits with_host_layout(edits::Edits e, const std::vector<driver::DriverBinary>& bins) {
  e.symlinks.clear();
  for (auto& m : e.mounts) {
    if (m.kind != edits::FileKind::kLibrary && m.kind != edits::FileKind::kBinary) continue;
    m.container_path = m.host_path;
    if (m.kind == edits::FileKind::kBinary) {
      auto b = std::find_if(bins.begin(), bins.end(), [&](const driver::DriverBinary& x) {
        return x.path == m.host_path && !x.found_at.empty();
      });
      if (b != bins.end()) m.container_path = b->found_at;
    }
    if (m.kind != edits::FileKind::kLibrary) continue;
    auto link = edits::library_symlink(m.container_path);
    if (link && std::find(e.symlinks.begin(), e.symlinks.end(), *link) == e.symlinks.end())
      e.symlinks.push_back(std::move(*link));
  }
  e.ldcache_folders = library_dirs(e);
  return e;
}

std::vector<DeviceNode> to_cdi_device_nodes(const std::vector<edits::DeviceNode>& nodes,
                                            const std::string& dev_root, DeviceLookup& lookup) {
  std::vector<DeviceNode> out;
  for (const auto& n : nodes) {
    if (n.container_path.empty()) continue;  // a cgroup-only entry
    DeviceNode d;
    d.path = n.container_path;
    std::string host = join_root(dev_root, n.host_path);
    if (host != d.path) d.host_path = host;
    auto info = lookup.lstat(host);
    if (!info && info.error().code() == ENOENT) {
      // cdi.md §6.3: only the nodes that exist (a host without nvidia_modeset has no
      // /dev/nvidia-modeset, and the runtime would fail every container on it).
      log::warn("missing device {}: left out of the CDI edits", host);
      continue;
    }
    if (info) {
      d.type = info->type;
      d.major = info->major;
      d.minor = info->minor;
      d.file_mode = info->file_mode;
      // gid 0 is what an unset gid means to the runtime, and leaving it out keeps the spec's
      // content what consumers older than CDI 0.7.0 read.
      if (info->gid != 0) d.gid = info->gid;
    }
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(std::move(d));
  }
  return out;
}

ContainerEdits to_cdi_common_edits(const edits::Edits& e, const ConvertOptions& o,
                                   DeviceLookup& lookup) {
  ContainerEdits out;
  auto cuda_dirs = libcuda_dirs(e);
  if (!cuda_dirs.empty())
    out.env.push_back("NVIDIA_CTK_LIBCUDA_DIR=" + strings::join(cuda_dirs, ":"));
  out.env.emplace_back("NVIDIA_VISIBLE_DEVICES=void");
  out.device_nodes = to_cdi_device_nodes(e.device_nodes, o.dev_root, lookup);
  add_hooks(out, e, o);
  for (const auto& m : e.mounts)
    if (m.kind == edits::FileKind::kLibrary) out.mounts.push_back(to_cdi_mount(m, o.driver_root));
  for (const auto& m : e.mounts)
    if (m.kind != edits::FileKind::kLibrary) out.mounts.push_back(to_cdi_mount(m, o.driver_root));
  return out;
}

}  // namespace nvct::cdi
