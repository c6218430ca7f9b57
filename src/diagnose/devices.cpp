// Family `devices` (spec/doctor.md §3.2): the NVIDIA device nodes, their numbers, the /dev/char
// links systemd's device cgroup rules need, and whether the configured user may open them.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fmt/format.h>
#include <algorithm>

#include "nvct/base/strings.hpp"
#include "nvct/diagnose/config_facts.hpp"
#include "nvct/diagnose/engine_facts.hpp"
#include "nvct/diagnose/families.hpp"
#include "nvct/diagnose/proc_facts.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::diagnose {
namespace {


struct ExpectedNode {
  std::string path;
  unsigned major, minor;
  bool required;  // a GPU or nvidiactl: its absence is an error; others only when present
};

struct Present {
  ExpectedNode node;
  struct stat st;
};

std::string describe_type(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symlink";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISCHR(mode)) return "a character device";
  return "not a device";
}

// A line of /etc/passwd or /etc/group split at ':'.
std::vector<std::vector<std::string>> colon_file(Host& host, std::string_view path) {
  std::vector<std::vector<std::string>> rows;
  auto text = host.read(path, 4u << 20);
  if (!text) return rows;
  for (const auto& line : strings::split(*text, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    rows.push_back(strings::split(line, ':'));
  }
  return rows;
}

struct UserIds {
  std::optional<uid_t> uid;
  std::vector<gid_t> gids;
};

// nvidia-container-cli.user ("user[:group]", names or numbers) as ids, names looked up in the
// host's /etc/passwd and /etc/group below the root.
UserIds resolve_user(Host& host, const std::string& spec) {
  UserIds ids;
  std::string user = spec.substr(0, spec.find(':'));
  std::optional<std::string> group;
  if (auto colon = spec.find(':'); colon != std::string::npos) group = spec.substr(colon + 1);
  auto passwd = colon_file(host, "/etc/passwd");
  auto groups = colon_file(host, "/etc/group");
  std::string user_name = user;
  if (auto n = driver::parse_unsigned(user)) {
    ids.uid = *n;
    for (const auto& row : passwd) {
      if (row.size() > 3 && row[2] == user) {
        user_name = row[0];
        if (!group) {
          if (auto g = driver::parse_unsigned(row[3])) ids.gids.push_back(*g);
        }
      }
    }
  } else {
    for (const auto& row : passwd) {
      if (row.size() > 3 && row[0] == user) {
        if (auto u = driver::parse_unsigned(row[2])) ids.uid = *u;
        if (!group) {
          if (auto g = driver::parse_unsigned(row[3])) ids.gids.push_back(*g);
        }
      }
    }
  }
  if (group) {
    if (auto g = driver::parse_unsigned(*group)) {
      ids.gids.push_back(*g);
    } else {
      for (const auto& row : groups) {
        if (row.size() > 2 && row[0] == *group) {
          if (auto gid = driver::parse_unsigned(row[2])) ids.gids.push_back(*gid);
        }
      }
    }
  } else {
    // Supplementary groups listing the user.
    for (const auto& row : groups) {
      if (row.size() < 4) continue;
      for (const auto& member : strings::split(row[3], ',')) {
        if (member == user_name) {
          if (auto gid = driver::parse_unsigned(row[2])) ids.gids.push_back(*gid);
        }
      }
    }
  }
  return ids;
}

bool is_root_user(const std::string& spec) {
  std::string user = spec.substr(0, spec.find(':'));
  return user.empty() || user == "root" || user == "0";
}

bool may_open(const struct stat& st, const UserIds& ids) {
  if ((st.st_mode & 0006) == 0006) return true;
  if (ids.uid && *ids.uid == st.st_uid && (st.st_mode & 0600) == 0600) return true;
  return std::find(ids.gids.begin(), ids.gids.end(), st.st_gid) != ids.gids.end() &&
         (st.st_mode & 0060) == 0060;
}

}  // namespace

std::vector<Finding> check_devices(Host& host) {
  std::vector<Finding> out;
  const ProcFacts& proc = host.proc();
  if (!proc.module_loaded && !proc.nvidia_major()) {
    add_ok_unless_worse(out, "devices", "no NVIDIA kernel module: device nodes not checked",
                        {fmt::format("{}: absent", driver::kProcDriverVersion)});
    return out;
  }
  const unsigned nvidia = proc.nvidia_major().value_or(driver::kNvidiaMajor);
  const auto uvm = proc.major_of("nvidia-uvm");

  std::vector<ExpectedNode> expected = {{"/dev/nvidiactl", nvidia, driver::kNvidiaCtlMinor, true}};
  for (const auto& gpu : proc.gpus) {
    expected.push_back(
        {fmt::format("/dev/nvidia{}", gpu.info.minor), nvidia, gpu.info.minor, true});
  }
  if (uvm) {
    expected.push_back({"/dev/nvidia-uvm", *uvm, 0, false});
    expected.push_back({"/dev/nvidia-uvm-tools", *uvm, 1, false});
  }
  expected.push_back({"/dev/nvidia-modeset", nvidia, driver::kNvidiaModesetMinor, false});

  std::vector<std::string> missing, wrong;
  std::vector<Present> present;
  for (const auto& node : expected) {
    auto st = host.lstat(node.path);
    if (!st) {
      if (node.required) missing.push_back(node.path + ": absent");
      continue;
    }
    if (!S_ISCHR(st->st_mode)) {
      wrong.push_back(fmt::format("{}: {}, expected character device {}:{}", node.path,
                                  describe_type(st->st_mode), node.major, node.minor));
      continue;
    }
    if (major(st->st_rdev) != node.major || minor(st->st_rdev) != node.minor) {
      wrong.push_back(fmt::format("{}: character device {}:{}, expected {}:{}", node.path,
                                  major(st->st_rdev), minor(st->st_rdev), node.major, node.minor));
      continue;
    }
    present.push_back({node, *st});
  }

  // devices.node-missing
  if (!missing.empty()) {
    std::vector<std::string> evidence;
    add_capped_evidence(evidence, missing);
    out.push_back({"devices.node-missing", Severity::kError,
                   fmt::format("{} NVIDIA device node{} missing", missing.size(),
                               missing.size() == 1 ? "" : "s"),
                   std::move(evidence),
                   "nvidia-ctk system create-device-nodes --control-devices (GPU nodes: "
                   "nvidia-modprobe -c <minor>)"});
  }
  // devices.node-wrong
  if (!wrong.empty()) {
    std::vector<std::string> evidence;
    add_capped_evidence(evidence, wrong);
    out.push_back({"devices.node-wrong", Severity::kError,
                   fmt::format("{} NVIDIA device node{} with the wrong type or number",
                               wrong.size(), wrong.size() == 1 ? "" : "s"),
                   std::move(evidence),
                   "remove the file, then recreate the node: nvidia-ctk system "
                   "create-device-nodes --control-devices"});
  }
  // devices.uvm-missing
  if (proc.module_loaded && proc.devices_readable && !uvm) {
    out.push_back({"devices.uvm-missing",
                   Severity::kError,
                   "nvidia-uvm kernel module not loaded: CUDA cannot run",
                   {fmt::format("{}: no nvidia-uvm major", driver::kProcDevices)},
                   "modprobe nvidia-uvm"});
  }

  // devices.dev-char-missing
  std::vector<std::string> no_link;
  for (const auto& p : present) {
    std::string link = fmt::format("/dev/char/{}:{}", p.node.major, p.node.minor);
    auto st = host.stat(link);
    if (!st || !S_ISCHR(st->st_mode) || st->st_rdev != p.st.st_rdev) {
      no_link.push_back(link +
                        (host.lstat(link) ? ": does not lead to " + p.node.path : ": absent"));
    }
  }
  if (!no_link.empty()) {
    const EngineFacts& engines = host.engines();
    std::vector<std::string> systemd_engines, engine_evidence;
    for (const auto* engine : {&engines.docker, &engines.containerd, &engines.crio}) {
      if (engine->systemd_cgroup) {
        systemd_engines.push_back(engine->name);
        engine_evidence.push_back(engine->cgroup_evidence);
      }
    }
    std::vector<std::string> evidence;
    add_capped_evidence(evidence, no_link);
    evidence.insert(evidence.end(), engine_evidence.begin(), engine_evidence.end());
    std::string title = fmt::format("/dev/char links missing for {} NVIDIA node{}", no_link.size(),
                                    no_link.size() == 1 ? "" : "s");
    if (!systemd_engines.empty()) {
      title +=
          fmt::format("; {} use{} the systemd cgroup driver", strings::join(systemd_engines, ", "),
                      systemd_engines.size() == 1 ? "s" : "");
    }
    evidence.push_back(
        "after systemctl daemon-reload, containers lose access: \"Failed to initialize NVML: "
        "Unknown Error\"");
    out.push_back({"devices.dev-char-missing",
                   systemd_engines.empty() ? Severity::kWarn : Severity::kError, std::move(title),
                   std::move(evidence),
                   "nvidia-ctk system create-dev-char-symlinks --create-all (at boot, or from "
                   "the udev rule)"});
  }

  // devices.mode
  const std::string& user = host.config().config.cli.user;
  if (!is_root_user(user)) {
    UserIds ids = resolve_user(host, user);
    std::vector<std::string> denied;
    for (const auto& p : present) {
      if (!may_open(p.st, ids)) {
        denied.push_back(fmt::format("{}: mode {:04o}, owner {}:{}", p.node.path,
                                     p.st.st_mode & 07777, p.st.st_uid, p.st.st_gid));
      }
    }
    if (!denied.empty()) {
      std::vector<std::string> evidence;
      add_capped_evidence(evidence, denied);
      evidence.push_back(
          fmt::format("{}: nvidia-container-cli.user = \"{}\"", host.config().path, user));
      if (auto params = host.read("/proc/driver/nvidia/params")) {
        for (const auto& line : strings::split(*params, '\n')) {
          if (strings::starts_with(line, "DeviceFile")) {
            evidence.push_back(fmt::format("/proc/driver/nvidia/params: {}", line));
          }
        }
      }
      out.push_back({"devices.mode", Severity::kWarn,
                     fmt::format("{} NVIDIA device node{} not accessible to user \"{}\"",
                                 denied.size(), denied.size() == 1 ? "" : "s", user),
                     std::move(evidence),
                     "check NVreg_DeviceFileMode/NVreg_DeviceFileGID in "
                     "/proc/driver/nvidia/params (modprobe options), or add the user to the "
                     "nodes' group"});
    }
  }

  std::vector<std::string> evidence;
  for (const auto& p : present) {
    evidence.push_back(fmt::format("{}: character device {}:{}, mode {:04o}", p.node.path,
                                   p.node.major, p.node.minor, p.st.st_mode & 07777));
  }
  add_ok_unless_worse(
      out, "devices",
      fmt::format("{} NVIDIA device nodes present, /dev/char links in place", present.size()),
      std::move(evidence));
  return out;
}

}  // namespace nvct::diagnose
