#include "nvct/cdi/generate_modes.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>

#include "nvct/base/strings.hpp"
#include "nvct/cdi/additional_gids.hpp"
#include "nvct/cdi/generate_edits.hpp"
#include "nvct/cdi/generate_wsl.hpp"
#include "nvct/cdi/version.hpp"

namespace nvct::cdi {
namespace {

constexpr std::string_view kImexChannelDir = "/dev/nvidia-caps-imex-channels";

std::vector<std::string> list_names(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());  // glibc opens directories O_CLOEXEC
  if (d == nullptr) return out;
  while (const dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(std::move(name));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// Device nodes of the CDI spec for container paths `paths`.
std::vector<DeviceNode> nodes_for(const std::vector<std::string>& paths,
                                  const std::string& dev_root, DeviceLookup& lookup) {
  std::vector<edits::DeviceNode> nodes;
  for (const auto& p : paths) {
    edits::DeviceNode n;
    n.container_path = p;
    n.host_path = p;
    nodes.push_back(std::move(n));
  }
  return to_cdi_device_nodes(nodes, dev_root, lookup);
}

// A file or directory of the driver root mounted at the same place.
void add_mount_if_present(ContainerEdits& edits, const std::string& driver_root,
                          const std::string& path) {
  std::string host = join_root(driver_root, path);
  struct stat st {};
  if (::stat(host.c_str(), &st) != 0) return;
  edits.mounts.push_back(Mount{host, path, "", kDriverFileMountOptions});
}

std::vector<std::string> mode_patterns(GenerateMode mode) {
  switch (mode) {
    case GenerateMode::kGds:
      return {"/dev/nvidia-fs*"};
    case GenerateMode::kMofed:
      return {"/dev/infiniband/uverbs*", "/dev/infiniband/rdma_cm"};
    case GenerateMode::kGdrcopy:
      return {"/dev/gdrdrv"};
    case GenerateMode::kNvswitch:
      return {"/dev/nvidia-nvswitch*"};
    default:
      return {};
  }
}

Result<Spec> build_imex_spec(const ModeOptions& o, Spec spec, DeviceLookup& lookup) {
  auto channels = find_device_nodes(o.dev_root, std::string(kImexChannelDir) + "/channel*", lookup);
  bool all = std::find(o.device_ids.begin(), o.device_ids.end(), "all") != o.device_ids.end();
  std::vector<std::string> selected;
  for (const auto& id : o.device_ids) {
    if (id == "all" || id == "none") continue;
    std::string path = fmt::format("{}/channel{}", kImexChannelDir, id);
    if (std::find(channels.begin(), channels.end(), path) == channels.end())
      return fail(ENOENT, fmt::format("IMEX channel {} not found under {}", id,
                                      join_root(o.dev_root, std::string(kImexChannelDir))));
    strings::append_unique(selected, path);
  }
  if (all)
    for (const auto& c : channels) strings::append_unique(selected, c);
  std::vector<std::string> all_paths;
  for (const auto& path : selected) {
    Device d;
    d.name = path.substr(kImexChannelDir.size() + std::string_view("/channel").size());
    d.container_edits.device_nodes = nodes_for({path}, o.dev_root, lookup);
    spec.devices.push_back(std::move(d));
    all_paths.push_back(path);
  }
  if (!o.no_all_device && !all_paths.empty()) {
    Device d;
    d.name = "all";
    d.container_edits.device_nodes = nodes_for(all_paths, o.dev_root, lookup);
    spec.devices.push_back(std::move(d));
  }
  return spec;
}

void finish(Spec& spec, const FeatureFlags& features) {
  if (!features.no_additional_gids_for_device_nodes) add_device_node_gids(spec);
  spec.cdi_version = minimum_required_version(spec).str();
}

}  // namespace

Result<GenerateMode> parse_generate_mode(std::string_view text) {
  if (text == "auto" || text == "nvml") return GenerateMode::kNvml;
  if (text == "management") return GenerateMode::kManagement;
  if (text == "gds") return GenerateMode::kGds;
  if (text == "mofed") return GenerateMode::kMofed;
  if (text == "gdrcopy") return GenerateMode::kGdrcopy;
  if (text == "nvswitch") return GenerateMode::kNvswitch;
  if (text == "imex") return GenerateMode::kImex;
  if (text == "csv") return GenerateMode::kCsv;
  if (text == "wsl") return GenerateMode::kWsl;
  return fail(EINVAL, fmt::format("invalid discovery mode \"{}\" (expected one of auto, csv, "
                                  "gdrcopy, gds, imex, management, mofed, nvml, nvswitch, wsl)",
                                  text));
}

std::string_view generate_mode_name(GenerateMode mode) {
  switch (mode) {
    case GenerateMode::kNvml:
      return "nvml";
    case GenerateMode::kManagement:
      return "management";
    case GenerateMode::kGds:
      return "gds";
    case GenerateMode::kMofed:
      return "mofed";
    case GenerateMode::kGdrcopy:
      return "gdrcopy";
    case GenerateMode::kNvswitch:
      return "nvswitch";
    case GenerateMode::kImex:
      return "imex";
    case GenerateMode::kCsv:
      return "csv";
    case GenerateMode::kWsl:
      return "wsl";
  }
  return "nvml";
}

std::string_view default_vendor(GenerateMode mode) {
  return mode == GenerateMode::kManagement ? "management.nvidia.com" : "nvidia.com";
}

bool mode_needs_driver(GenerateMode mode) {
  return mode == GenerateMode::kNvml || mode == GenerateMode::kManagement;
}

std::vector<std::string> find_device_nodes(const std::string& dev_root, std::string_view pattern,
                                           DeviceLookup& lookup) {
  std::vector<std::string> out;
  std::string dir = strings::dirname(pattern);
  std::string base(strings::basename(pattern));
  std::vector<std::string> candidates;
  if (!base.empty() && base.back() == '*') {
    base.pop_back();
    for (const auto& name : list_names(join_root(dev_root, dir)))
      if (strings::starts_with(name, base)) candidates.push_back(join_root(dir, name));
  } else {
    candidates.emplace_back(pattern);
  }
  for (const auto& c : candidates) {
    auto info = lookup.lstat(join_root(dev_root, c));
    if (info && info->type == "c") out.push_back(c);
  }
  return out;
}

Result<Spec> build_device_mode_spec(GenerateMode mode, const ModeOptions& o, DeviceLookup& lookup) {
  if (mode_needs_driver(mode))
    return fail(EINVAL, fmt::format("mode {} needs the driver", generate_mode_name(mode)));
  if (mode == GenerateMode::kCsv) {
    NVCT_ASSIGN_OR_RETURN(auto rows, read_csv_mount_spec_files(o.csv_files));
    return build_csv_spec(rows, o, lookup);
  }
  if (mode == GenerateMode::kWsl) return build_wsl_spec(o, lookup);
  Spec spec;
  spec.kind = o.vendor + "/" +
              (o.class_name.empty() ? std::string(generate_mode_name(mode)) : o.class_name);
  if (mode == GenerateMode::kImex) {
    NVCT_ASSIGN_OR_RETURN(spec, build_imex_spec(o, std::move(spec), lookup));
    finish(spec, o.features);
    return spec;
  }
  std::vector<std::string> paths;
  for (const auto& pattern : mode_patterns(mode))
    for (const auto& p : find_device_nodes(o.dev_root, pattern, lookup))
      strings::append_unique(paths, p);
  Device all;
  all.name = "all";
  all.container_edits.device_nodes = nodes_for(paths, o.dev_root, lookup);
  if (mode == GenerateMode::kGds) {
    add_mount_if_present(all.container_edits, o.driver_root, "/etc/cufile.json");
    add_mount_if_present(all.container_edits, o.driver_root, "/run/udev");
  }
  if (!all.container_edits.empty()) spec.devices.push_back(std::move(all));
  finish(spec, o.features);
  return spec;
}

Result<Spec> build_management_spec(const driver::DriverInfo& info, const GenerateOptions& options,
                                   DeviceLookup& lookup) {
  GenerateOptions o = options;
  o.device_ids = {"none"};
  o.no_all_device = true;
  // The chmod hook is added below for the nodes of the `all` device.
  HookOptions no_chmod = o.hooks;
  no_chmod.enabled.erase("chmod");
  no_chmod.disabled.insert("chmod");
  o.hooks = no_chmod;
  o.features.no_additional_gids_for_device_nodes = true;  // recomputed in finish()
  NVCT_ASSIGN_OR_RETURN(Spec spec, build_spec(info, o, lookup));
  const std::string dev_root = options.dev_root.empty() ? info.root : options.dev_root;

  std::vector<std::string> paths;
  for (const char* pattern : {"/dev/nvidia*", "/dev/nvidia-caps/nvidia-cap*", "/dev/nvidia-modeset",
                              "/dev/nvidia-uvm-tools", "/dev/nvidia-uvm", "/dev/nvidiactl",
                              "/dev/nvidia-caps-imex-channels/channel*"})
    for (const auto& p : find_device_nodes(dev_root, pattern, lookup))
      strings::append_unique(paths, p);
  spec.container_edits.device_nodes.clear();
  Device all;
  all.name = "all";
  all.container_edits.device_nodes = nodes_for(paths, dev_root, lookup);
  bool caps = std::any_of(paths.begin(), paths.end(), [](const std::string& p) {
    return strings::starts_with(p, "/dev/nvidia-caps/");
  });
  if (caps)
    if (auto hook =
            make_hook(options.hooks, "chmod", {"--mode", "755", "--path", "/dev/nvidia-caps"}))
      spec.container_edits.hooks.push_back(std::move(*hook));
  spec.devices = {std::move(all)};
  finish(spec, options.features);
  return spec;
}

}  // namespace nvct::cdi
