#include "nvct/edits/edits.hpp"

#include <fmt/format.h>
#include <sys/sysmacros.h>

#include <algorithm>

namespace nvct::edits {

dev_t DeviceNode::expected_rdev() const { return makedev(major, minor); }

MountFlags default_flags(FileKind kind) {
  switch (kind) {
    case FileKind::kIpc:
      return MountFlags{.read_only = false, .nosuid = true, .nodev = true, .noexec = true};
    case FileKind::kLibrary:
    case FileKind::kBinary:
    case FileKind::kFirmware:
    case FileKind::kDirectory:
      break;
  }
  return MountFlags{.read_only = true, .nosuid = true, .nodev = true, .noexec = false};
}

MountFlags device_flags() {
  return MountFlags{.read_only = true, .nosuid = true, .nodev = false, .noexec = true};
}

std::string CgroupRule::to_string() const {
  auto num = [](const std::optional<std::uint32_t>& v) {
    return v ? fmt::format("{}", *v) : std::string("*");
  };
  return fmt::format("{} {}:{} {}", type, num(major), num(minor), access);
}

bool Edits::empty() const {
  return device_nodes.empty() && mounts.empty() && symlinks.empty() && env.empty() &&
         cgroup_rules.empty() && ldcache_folders.empty() && !procfs && !application_profile &&
         hooks.empty();
}

namespace {

template <class T>
void append_unique(std::vector<T>& to, const std::vector<T>& from) {
  for (const auto& item : from)
    if (std::find(to.begin(), to.end(), item) == to.end()) to.push_back(item);
}

}  // namespace

void Edits::merge(const Edits& other) {
  append_unique(device_nodes, other.device_nodes);
  append_unique(mounts, other.mounts);
  append_unique(symlinks, other.symlinks);
  append_unique(env, other.env);
  append_unique(cgroup_rules, other.cgroup_rules);
  append_unique(ldcache_folders, other.ldcache_folders);
  append_unique(hooks, other.hooks);
  if (other.procfs) {
    if (!procfs) {
      procfs = other.procfs;
    } else {
      append_unique(procfs->gpu_bus_ids, other.procfs->gpu_bus_ids);
    }
  }
  if (other.application_profile) {
    if (!application_profile) {
      application_profile = other.application_profile;
    } else {
      append_unique(application_profile->gpu_minors, other.application_profile->gpu_minors);
    }
  }
}

std::string_view to_string(FileKind kind) {
  switch (kind) {
    case FileKind::kLibrary:
      return "lib";
    case FileKind::kBinary:
      return "bin";
    case FileKind::kFirmware:
      return "firmware";
    case FileKind::kIpc:
      return "ipc";
    case FileKind::kDirectory:
      return "dir";
  }
  return "unknown";
}

}  // namespace nvct::edits
