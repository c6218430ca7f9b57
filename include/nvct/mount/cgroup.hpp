// Device cgroup rules for a running container (mount.md §10): finding the container's device
// cgroup (v1 "devices" controller or the v2 unified hierarchy) and adding rules, v1 through
// devices.allow, v2 by replacing the attached BPF_CGROUP_DEVICE programs with ours + theirs.
// Honouring no-cgroups is the caller's job.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/edits/edits.hpp"

namespace nvct::mount {

enum class CgroupVersion { kV1, kV2 };

// From /proc/<pid>/cgroup: v1 when a line's controller list holds "devices", else v2 when a
// controller field is empty, else an error. A line without exactly 3 fields is an error
// ("malformed cgroup entry").
Result<CgroupVersion> detect_cgroup_version(std::string_view proc_pid_cgroup);

// mount.md §10.2: the mount point of the devices (v1) or first cgroup2 (v2) mount in
// `mountinfo`, plus the container's cgroup path with the mount's root stripped, prefixed by
// proc_root ("/" when supervised, the rootfs when standalone).
Result<std::string> device_cgroup_path(std::string_view mountinfo, std::string_view proc_pid_cgroup,
                                       CgroupVersion version, const std::string& proc_root = "/");

struct DeviceCgroup {
  CgroupVersion version;
  std::string path;
};

// Reads /proc/<container_pid>/cgroup and /proc/<mountinfo_pid>/mountinfo under proc_root.
Result<DeviceCgroup> find_device_cgroup(pid_t container_pid, pid_t mountinfo_pid,
                                        const std::string& proc_root = "/");

// v1: one write of "c MAJ:MIN rw" per rule to <dir>/devices.allow, opened O_NOFOLLOW.
Status allow_devices_v1(const std::string& cgroup_dir, const std::vector<edits::CgroupRule>& rules);

// v2 (decision in shared/spec/README.md): with no device program attached, access is not
// restricted and nothing is attached; otherwise every attached program is replaced by ours +
// its instructions (BPF_F_REPLACE where available). Returns how many programs were replaced.
Result<int> allow_devices_v2(const std::string& cgroup_dir,
                             const std::vector<edits::CgroupRule>& rules);

// Dispatches on the version.
Status allow_devices(const DeviceCgroup& cgroup, const std::vector<edits::CgroupRule>& rules);

}  // namespace nvct::mount
