#include "nvct/ctk/system_device_nodes.hpp"

#include <fmt/format.h>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/driver/proc_devices.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::ctk {
namespace {

constexpr mode_t kControlDeviceMode = 0666;
constexpr const char* kModules[] = {"nvidia", "nvidia-uvm", "nvidia-modeset"};

std::optional<unsigned> major_of(const std::map<std::string, unsigned>& m, const char* name) {
  auto it = m.find(name);
  return it == m.end() ? std::nullopt : std::optional<unsigned>(it->second);
}

}  // namespace

NvidiaMajors nvidia_majors_from_text(std::string_view proc_devices) {
  auto m = driver::parse_proc_devices(proc_devices);
  NvidiaMajors majors;
  majors.nvidia = major_of(m, "nvidia-frontend");
  if (!majors.nvidia) majors.nvidia = major_of(m, "nvidia");
  majors.uvm = major_of(m, "nvidia-uvm");
  majors.caps = major_of(m, "nvidia-caps");
  return majors;
}

NvidiaMajors read_nvidia_majors(const driver::DriverRoot& root) {
  auto text = driver::read_proc_devices(root);
  if (!text) {
    log::warn("read {}: {}", driver::kProcDevices, text.error().message());
    return {};
  }
  return nvidia_majors_from_text(*text);
}

std::vector<NodeSpec> control_device_nodes(const NvidiaMajors& majors) {
  std::vector<NodeSpec> nodes;
  if (majors.nvidia) {
    nodes.push_back({"/dev/nvidiactl", *majors.nvidia, driver::kNvidiaCtlMinor});
    nodes.push_back({"/dev/nvidia-modeset", *majors.nvidia, driver::kNvidiaModesetMinor});
  }
  if (majors.uvm) {
    nodes.push_back({"/dev/nvidia-uvm", *majors.uvm, 0});
    nodes.push_back({"/dev/nvidia-uvm-tools", *majors.uvm, 1});
  }
  return nodes;
}

std::vector<NodeSpec> all_possible_nodes(const driver::DriverRoot& root,
                                         const NvidiaMajors& majors) {
  std::vector<NodeSpec> nodes = control_device_nodes(majors);
  if (majors.nvidia) {
    if (auto dirs = root.list_dir(driver::kProcGpus)) {
      for (const auto& d : *dirs) {
        auto text = root.read(fmt::format("{}/{}/information", driver::kProcGpus, d), 64 * 1024);
        auto info = text ? driver::parse_proc_gpu_information(*text)
                         : Result<driver::ProcGpuInformation>(tl::unexpected(text.error()));
        if (!info) {
          log::warn("GPU {}: {}", d, info.error().message());
          continue;
        }
        nodes.push_back({fmt::format("/dev/nvidia{}", info->minor), *majors.nvidia, info->minor});
      }
    }
  }
  if (majors.caps) {
    if (auto text = root.read(driver::kProcMigMinors, 1u << 20)) {
      auto entries = driver::parse_mig_minors(*text);
      if (!entries) log::warn("{}: {}", driver::kProcMigMinors, entries.error().message());
      for (const auto& e : entries ? *entries : std::vector<driver::MigMinor>{}) {
        if (!root.exists(e.proc_path)) continue;
        nodes.push_back(
            {fmt::format("/dev/nvidia-caps/nvidia-cap{}", e.minor), *majors.caps, e.minor});
      }
    }
  }
  return nodes;
}

Status load_nvidia_kernel_modules(const driver::DriverRoot& root, SystemOps& ops, bool dry_run) {
  if (ops.in_user_namespace()) {
    log::warn("Skipping kernel module load: running in a user namespace, where modules cannot "
              "be loaded");
    return ok();
  }
  if (!ops.modprobe_available(root)) {
    log::warn("Skipping kernel module load: /sbin/modprobe not found in {}", root.path());
    return ok();
  }
  for (const char* module : kModules) {
    log::info("Loading kernel module {}", module);
    if (dry_run) continue;
    NVCT_TRY(with_context(ops.modprobe(root, module), "load kernel modules"));
  }
  return ok();
}

Status create_device_nodes(const DeviceNodesOptions& o, SystemOps& ops) {
  NVCT_ASSIGN_OR_RETURN(auto root, with_context(driver::DriverRoot::open(o.root), "driver root"));
  if (o.load_kernel_modules) NVCT_TRY(load_nvidia_kernel_modules(root, ops, o.dry_run));
  if (!o.control_devices) return ok();
  NVCT_ASSIGN_OR_RETURN(auto dev_root,
                        with_context(driver::DriverRoot::open(o.dev_root.empty() ? o.root
                                                                                 : o.dev_root),
                                     "device root"));
  // Read after modprobe: loading a module is what adds its major.
  NvidiaMajors majors = read_nvidia_majors(root);
  if (!majors.nvidia)
    return fail(ENODEV,
                "create control device nodes: the NVIDIA kernel module is not loaded (no "
                "\"nvidia\" or \"nvidia-frontend\" character device in /proc/devices)");
  if (!majors.uvm)
    log::warn("nvidia-uvm is not in /proc/devices; not creating nvidia-uvm and nvidia-uvm-tools");
  for (const auto& node : control_device_nodes(majors)) {
    log::info("Creating control device node {} ({}:{}) in {}", node.path, node.major, node.minor,
              dev_root.path());
    if (o.dry_run) continue;
    NVCT_TRY(with_context(ops.mknod_char(dev_root, node.path, node.major, node.minor,
                                         kControlDeviceMode),
                          "create control device node " + node.path));
  }
  return ok();
}

}  // namespace nvct::ctk
