#include "nvct/mount/cgroup.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct::mount {
namespace {

struct CgroupLine {
  std::vector<std::string> controllers;
  std::string path;
};

Result<std::vector<CgroupLine>> parse_proc_cgroup(std::string_view text) {
  std::vector<CgroupLine> out;
  for (auto& line : strings::split(text, '\n')) {
    if (line.empty()) continue;
    // The path may itself contain ':'; only the first two separate fields.
    auto a = line.find(':');
    auto b = a == std::string::npos ? a : line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos)
      return fail(EINVAL, fmt::format("malformed cgroup entry: {}", line));
    std::string controllers = line.substr(a + 1, b - a - 1);
    CgroupLine l;
    if (!controllers.empty()) l.controllers = strings::split(controllers, ',');
    l.path = line.substr(b + 1);
    out.push_back(std::move(l));
  }
  return out;
}

bool has_devices(const CgroupLine& l) {
  for (const auto& c : l.controllers)
    if (c == "devices") return true;
  return false;
}

}  // namespace

Result<CgroupVersion> detect_cgroup_version(std::string_view proc_pid_cgroup) {
  NVCT_ASSIGN_OR_RETURN(auto lines, parse_proc_cgroup(proc_pid_cgroup));
  for (const auto& l : lines)
    if (has_devices(l)) return CgroupVersion::kV1;
  for (const auto& l : lines)
    if (l.controllers.empty()) return CgroupVersion::kV2;
  return fail(ENOENT, "no devices or unified cgroup entries found");
}

Result<std::string> device_cgroup_path(std::string_view mountinfo, std::string_view proc_pid_cgroup,
                                       CgroupVersion version, const std::string& proc_root) {
  std::string mount_root, mount_point;
  for (auto& line : strings::split(mountinfo, '\n')) {
    auto f = strings::split(line, ' ');
    if (f.size() < 10) continue;
    const std::string& fstype = f[f.size() - 3];
    bool match = version == CgroupVersion::kV1
                     ? fstype == "cgroup" && strings::basename(f[4]) == "devices"
                     : fstype == "cgroup2";
    if (!match) continue;
    mount_root = f[3];
    mount_point = f[4];
    break;
  }
  if (mount_point.empty())
    return fail(ENOENT, version == CgroupVersion::kV1 ? "cgroup subsystem devices not found"
                                                      : "cgroup2 mount not found");
  if (mount_root.rfind("/..", 0) == 0)
    return fail(EINVAL,
                fmt::format("cgroup mount root {} is outside the cgroup namespace", mount_root));

  NVCT_ASSIGN_OR_RETURN(auto lines, parse_proc_cgroup(proc_pid_cgroup));
  const CgroupLine* found = nullptr;
  for (const auto& l : lines)
    if (version == CgroupVersion::kV1 ? has_devices(l) : l.controllers.empty()) {
      found = &l;
      break;
    }
  if (!found) return fail(ENOENT, "container cgroup entry not found");
  std::string path = found->path;
  if (mount_root != "/" && path.rfind(mount_root, 0) == 0) path = path.substr(mount_root.size());
  std::string prefix = proc_root;
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  std::string out = prefix + mount_point + (path.empty() || path[0] == '/' ? "" : "/") + path;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

Result<DeviceCgroup> find_device_cgroup(pid_t container_pid, pid_t mountinfo_pid,
                                        const std::string& proc_root) {
  std::string prefix = proc_root == "/" ? "" : proc_root;
  NVCT_ASSIGN_OR_RETURN(std::string cg,
                        read_file(fmt::format("{}/proc/{}/cgroup", prefix, container_pid)));
  NVCT_ASSIGN_OR_RETURN(std::string mi,
                        read_file(fmt::format("{}/proc/{}/mountinfo", prefix, mountinfo_pid)));
  NVCT_ASSIGN_OR_RETURN(CgroupVersion v, detect_cgroup_version(cg));
  NVCT_ASSIGN_OR_RETURN(std::string path, device_cgroup_path(mi, cg, v, proc_root));
  return DeviceCgroup{v, std::move(path)};
}

Status allow_devices_v1(const std::string& cgroup_dir,
                        const std::vector<edits::CgroupRule>& rules) {
  unique_fd dir(::open(cgroup_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return fail_errno(fmt::format("open cgroup {}", cgroup_dir));
  unique_fd allow(
      ::openat(dir.get(), "devices.allow", O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC));
  if (!allow) return fail_errno(fmt::format("open {}/devices.allow", cgroup_dir));
  for (const auto& rule : rules) {
    if (!rule.allow) continue;  // v1 deny rules would go to devices.deny; we only ever allow
    std::string line = rule.to_string();
    // One write per rule: the kernel parses each write as one rule.
    if (::write(allow.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size()))
      return fail_errno(fmt::format("write '{}' to {}/devices.allow", line, cgroup_dir));
    log::info("added device cgroup rule '{}' to {}", line, cgroup_dir);
  }
  return ok();
}

Status allow_devices(const DeviceCgroup& cgroup, const std::vector<edits::CgroupRule>& rules) {
  if (cgroup.version == CgroupVersion::kV1) return allow_devices_v1(cgroup.path, rules);
  NVCT_TRY(allow_devices_v2(cgroup.path, rules));
  return ok();
}

}  // namespace nvct::mount
