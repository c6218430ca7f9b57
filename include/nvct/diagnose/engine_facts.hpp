// The container engines' configs, read once (spec/doctor.md §3.2, §3.4): Docker's daemon.json,
// containerd's config.toml, CRI-O's crio.conf plus its drop-ins, reduced to what the checks use.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace nvct::diagnose {

class Host;

struct EngineRuntime {
  std::string name;
  std::string path;                    // path / BinaryName / runtime_path; "" when unset
  std::optional<bool> systemd_cgroup;  // containerd runc options SystemdCgroup
};

// A containerd file that the main file's `imports` name.
struct ContainerdImport {
  std::string path;  // as printed
  int version = 0;
  bool has_cri_table = false;  // it defines plugins.<cri plugin>: replaces the main file's (1.x)
  std::vector<std::string> runtime_names;
};

struct EngineConfig {
  std::string name;         // "docker", "containerd", "crio"
  bool present = false;     // its daemon is on the default PATH or its config exists
  std::string binary;       // root-relative daemon path on the default PATH, or ""
  std::string config_path;  // as printed
  bool config_exists = false;
  std::string error;  // why the config could not be read or parsed
  std::vector<EngineRuntime> runtimes;
  std::string default_runtime;
  // Whether the engine puts containers in systemd-managed cgroups, and the evidence line.
  bool systemd_cgroup = false;
  std::string cgroup_evidence;
  // containerd only.
  int version = 0;
  std::string cri_plugin;
  std::vector<std::string> disabled_plugins;
  std::vector<std::string> imports;  // patterns as written
  std::vector<ContainerdImport> imported;
  // 1 or 2 from the binary's embedded module path; 0 unknown or not needed (read only for a
  // version 3 file or a drop-in with the CRI plugin table).
  int daemon_major = 0;
};

struct EngineFacts {
  EngineConfig docker, containerd, crio;
};

EngineFacts read_engine_facts(Host& host);

}  // namespace nvct::diagnose
