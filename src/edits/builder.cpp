#include "nvct/edits/builder.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "nvct/base/strings.hpp"

namespace nvct::edits {
namespace {

constexpr std::string_view kProcDriverDir = "/proc/driver/nvidia";

std::string join_dir(const std::string& dir, std::string_view name) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d == "/" ? fmt::format("/{}", name) : fmt::format("{}/{}", d, name);
}

bool library_wanted(driver::Capability cap, const Capabilities& c) {
  switch (cap) {
    case driver::Capability::kUtility:
      return c.utility_libs();
    case driver::Capability::kCompute:
      return c.compute_libs();
    case driver::Capability::kNgx:
      return c.ngx_libs();
    case driver::Capability::kVideo:
      return c.video_libs();
    case driver::Capability::kGraphics:
      return c.graphics_libs();
  }
  return false;
}

bool binary_wanted(driver::Capability cap, const Capabilities& c) {
  if (cap == driver::Capability::kUtility) return c.utility_bins();
  if (cap == driver::Capability::kCompute) return c.compute_bins();
  return false;
}

FileMount file_mount(std::string host, std::string container, FileKind kind) {
  return FileMount{std::move(host), std::move(container), kind, default_flags(kind)};
}

// driver.md §4: persistenced and fabricmanager sockets belong to utility, the MPS pipe
// directory to compute libs. Discovery resolved the paths in the driver root, so the names are
// those of the real locations (/run/... for /var/run/...).
bool ipc_wanted(const std::string& path, const BuildOptions& o) {
  const Capabilities& c = o.capabilities;
  if (path.find("/nvidia-persistenced/") != std::string::npos)
    return c.utility_libs() && !o.no_persistenced;
  if (path.find("/nvidia-fabricmanager/") != std::string::npos)
    return c.utility_libs() && !o.no_fabricmanager;
  return c.compute_libs();
}

// driver.md §6: nvidiactl always, the dynamic-major UVM nodes only with compute libs, modeset
// only with display.
bool control_node_wanted(const driver::DeviceNode& d, const Capabilities& c) {
  if (d.major == driver::kNvidiaMajor && d.minor == driver::kNvidiaModesetMinor) return c.display;
  if (d.major != driver::kNvidiaMajor) return c.compute_libs();
  return true;
}

void add_node(Edits& e, const std::string& path, unsigned major, unsigned minor, bool bind) {
  if (bind) {
    DeviceNode n;
    n.container_path = path;
    n.host_path = path;
    n.major = major;
    n.minor = minor;
    if (std::find(e.device_nodes.begin(), e.device_nodes.end(), n) == e.device_nodes.end())
      e.device_nodes.push_back(n);
  }
  CgroupRule r{'c', major, minor, "rw", true};
  if (std::find(e.cgroup_rules.begin(), e.cgroup_rules.end(), r) == e.cgroup_rules.end())
    e.cgroup_rules.push_back(r);
}

void add_libraries(Edits& e, const std::vector<driver::DriverLibrary>& libs, const std::string& dir,
                   const Capabilities& c) {
  for (const auto& lib : libs) {
    if (!library_wanted(lib.capability, c)) continue;
    e.mounts.push_back(
        file_mount(lib.path, join_dir(dir, strings::basename(lib.path)), FileKind::kLibrary));
  }
}

std::vector<const driver::Gpu*> selected_mig_capable(const driver::DriverInfo& info,
                                                     const driver::DeviceSelection& sel) {
  std::vector<const driver::Gpu*> out;
  for (auto i : sel.gpus)
    if (i < info.gpus.size() && info.gpus[i].mig_capable) out.push_back(&info.gpus[i]);
  return out;
}

std::optional<unsigned> caps_major(const driver::DriverInfo& info) {
  auto it = info.char_majors.find("nvidia-caps");
  if (it == info.char_majors.end()) return std::nullopt;
  return it->second;
}

// mount.md §8 "mig-config/monitor all": the config (or monitor) minor and every mig-minors
// entry of each selected MIG-capable GPU get a cgroup rule.
void add_mig_all_rules(Edits& e, const driver::DriverInfo& info, const driver::DeviceSelection& sel,
                       const BuildOptions& o) {
  auto gpus = selected_mig_capable(info, sel);
  auto major = caps_major(info);
  if (gpus.empty() || !major) return;
  if (o.mig_config && o.mig_config_minor) add_node(e, "", *major, *o.mig_config_minor, false);
  if (o.mig_monitor && o.mig_monitor_minor) add_node(e, "", *major, *o.mig_monitor_minor, false);
  for (const driver::Gpu* g : gpus)
    for (const auto& m : o.mig_minors)
      if ((m.kind == driver::MigMinor::Kind::kGpuInstance ||
           m.kind == driver::MigMinor::Kind::kComputeInstance) &&
          m.gpu == g->minor)
        add_node(e, "", *major, m.minor, false);
}

void add_mig_access_nodes(Edits& e, const driver::DriverInfo& info,
                          const driver::DeviceSelection& sel, const BuildOptions& o) {
  auto major = caps_major(info);
  if (!major || info.caps_style != driver::CapsStyle::kDev) return;
  for (const auto& [gi, mi] : sel.migs) {
    if (gi >= info.gpus.size() || mi >= info.gpus[gi].migs.size()) continue;
    const driver::MigDevice& m = info.gpus[gi].migs[mi];
    for (auto minor : {m.gi_cap_minor, m.ci_cap_minor})
      if (minor)
        add_node(e, fmt::format("/dev/nvidia-caps/nvidia-cap{}", *minor), *major, *minor,
                 !o.no_devbind);
  }
}

}  // namespace

std::optional<Symlink> library_symlink(const std::string& container_path) {
  auto pos = container_path.rfind('/');
  std::string dir = pos == std::string::npos ? std::string() : container_path.substr(0, pos);
  std::string base = std::string(strings::basename(container_path));
  auto in_dir = [&](std::string_view name) { return dir.empty() ? "/" : join_dir(dir, name); };
  if (strings::starts_with(base, "libcuda.so"))
    return Symlink{in_dir("libcuda.so"), "libcuda.so.1"};
  if (strings::starts_with(base, "libGLX_nvidia.so"))
    return Symlink{in_dir("libGLX_indirect.so.0"), base};
  if (strings::starts_with(base, "libnvidia-opticalflow.so"))
    return Symlink{in_dir("libnvidia-opticalflow.so"), "libnvidia-opticalflow.so.1"};
  return std::nullopt;
}

Edits build_edits(const driver::DriverInfo& info, const driver::DeviceSelection& sel,
                  const BuildOptions& o) {
  const Capabilities& c = o.capabilities;
  Edits e;

  // Driver mount (mount.md §4.1).
  ProcfsEdit proc;
  proc.host_proc_dir = std::string(kProcDriverDir);
  for (auto i : sel.gpus)
    if (i < info.gpus.size()) proc.gpu_bus_ids.push_back(info.gpus[i].bus_id);
  e.procfs = std::move(proc);

  // §4.1 step 3 and §4.2 step 3: graphics libs (graphics or display) get the EGL application
  // profile; selected MIG devices are already represented by their parent GPU.
  if (c.graphics_libs()) {
    ApplicationProfileEdit profile;
    for (auto i : sel.gpus)
      if (i < info.gpus.size()) profile.gpu_minors.push_back(info.gpus[i].minor);
    e.application_profile = std::move(profile);
  }

  for (const auto& b : info.bins)
    if (binary_wanted(b.capability, c))
      e.mounts.push_back(file_mount(b.path, join_dir(o.layout.bins_dir, strings::basename(b.path)),
                                    FileKind::kBinary));
  add_libraries(e, info.libs, o.layout.libs_dir, c);
  if (c.compat32) add_libraries(e, info.libs32, o.layout.libs32_dir, c);
  for (const auto& m : e.mounts) {
    if (m.kind != FileKind::kLibrary) continue;
    auto link = library_symlink(m.container_path);
    if (link && std::find(e.symlinks.begin(), e.symlinks.end(), *link) == e.symlinks.end())
      e.symlinks.push_back(std::move(*link));
  }
  if (!o.no_gsp_firmware)
    for (const auto& f : info.firmwares)
      e.mounts.push_back(file_mount(f.source, f.path, FileKind::kFirmware));
  for (const auto& ipc : info.ipcs)
    if (ipc_wanted(ipc, o)) e.mounts.push_back(file_mount(ipc, ipc, FileKind::kIpc));
  for (const auto& d : info.devices)
    if (control_node_wanted(d, c)) add_node(e, d.path, d.major, d.minor, !o.no_devbind);

  // Device mount per selected GPU (§4.2); the procfs gpu dirs are in the procfs edit.
  for (auto i : sel.gpus) {
    if (i >= info.gpus.size()) continue;
    const driver::DeviceNode& n = info.gpus[i].node;
    add_node(e, n.path, n.major, n.minor, !o.no_devbind);
  }

  // MIG (§8): mig-config/monitor replace the per-MIG access caps.
  if (o.mig_config || o.mig_monitor)
    add_mig_all_rules(e, info, sel, o);
  else
    add_mig_access_nodes(e, info, sel, o);

  // IMEX channels (§8).
  if (auto it = info.char_majors.find("nvidia-caps-imex-channels"); it != info.char_majors.end())
    for (unsigned ch : o.imex_channels)
      add_node(e, fmt::format("/dev/nvidia-caps-imex-channels/channel{}", ch), it->second, ch,
               !o.no_devbind);

  // ldconfig scans the libs dirs (mount.md §11.1: libs then libs32, always both).
  e.ldcache_folders.push_back(o.layout.libs_dir);
  e.ldcache_folders.push_back(o.layout.libs32_dir);
  return e;
}

std::vector<FileMount> build_special_mounts(const driver::DriverInfo& info,
                                            const driver::DeviceSelection& sel,
                                            const BuildOptions& o) {
  const MountFlags proc_flags{.read_only = true, .nosuid = true, .nodev = true, .noexec = true};
  std::vector<FileMount> out;
  if (o.mig_config || o.mig_monitor) {
    if (selected_mig_capable(info, sel).empty()) return out;
    out.push_back(FileMount{std::string(driver::kProcCapabilities),
                            std::string(driver::kProcCapabilities), FileKind::kDirectory,
                            proc_flags});
    if (caps_major(info) && !o.no_devbind)
      out.push_back(FileMount{
          "/dev/nvidia-caps", "/dev/nvidia-caps", FileKind::kDirectory,
          MountFlags{.read_only = false, .nosuid = true, .nodev = false, .noexec = true}});
    return out;
  }
  for (const auto& [gi, mi] : sel.migs) {
    if (gi >= info.gpus.size() || mi >= info.gpus[gi].migs.size()) continue;
    const driver::MigDevice& m = info.gpus[gi].migs[mi];
    for (const auto& dir : {m.gi_caps_path, m.ci_caps_path}) {
      // A read-only driver file like firmware; the kind only tells the applier "not a dir".
      std::string access = dir + "/access";
      out.push_back(FileMount{access, access, FileKind::kFirmware, proc_flags});
    }
  }
  return out;
}

}  // namespace nvct::edits
