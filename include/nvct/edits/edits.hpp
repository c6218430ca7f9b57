// The edits model: what a GPU container gets, as plain data (design.md "edits/"). The builder
// fills it from driver facts and the request; mount/ applies it to a live container, cdi/ writes
// it as a CDI spec and runtime/ applies it to config.json. No I/O here.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nvct::edits {

enum class DeviceType { kChar, kBlock };

// A device node the container gets. container_path is where it appears, host_path what backs
// it; the host node must be of `type` with st_rdev == makedev(major, minor) when used.
struct DeviceNode {
  std::string container_path;
  std::string host_path;
  DeviceType type = DeviceType::kChar;
  std::uint32_t major = 0;
  std::uint32_t minor = 0;
  mode_t mode = 0666;

  dev_t expected_rdev() const;
  friend bool operator==(const DeviceNode&, const DeviceNode&) = default;
};

// What a bind-mounted file is; it decides the mount flags (mount.md §5).
enum class FileKind { kLibrary, kBinary, kFirmware, kIpc, kDirectory };

struct MountFlags {
  bool read_only = true;
  bool nosuid = true;
  bool nodev = true;
  bool noexec = false;
  friend bool operator==(const MountFlags&, const MountFlags&) = default;
};

// The flags mount.md §5 gives each kind: driver files ro,nosuid,nodev; IPC rw,nosuid,nodev,noexec.
MountFlags default_flags(FileKind kind);
// Device nodes: ro,nosuid,noexec.
MountFlags device_flags();

struct FileMount {
  std::string host_path;
  std::string container_path;
  FileKind kind = FileKind::kLibrary;
  MountFlags flags;
  friend bool operator==(const FileMount&, const FileMount&) = default;
};

// A symlink created in the container: container_path -> target (target kept verbatim).
struct Symlink {
  std::string container_path;
  std::string target;
  friend bool operator==(const Symlink&, const Symlink&) = default;
};

struct EnvVar {
  std::string name;
  std::string value;
  friend bool operator==(const EnvVar&, const EnvVar&) = default;
};

// One device cgroup rule. type 'c', 'b' or 'a'; major/minor nullopt means any ("*");
// access is a subset of "rwm".
struct CgroupRule {
  char type = 'c';
  std::optional<std::uint32_t> major;
  std::optional<std::uint32_t> minor;
  std::string access = "rw";
  bool allow = true;

  // "c 195:0 rw", "a *:* rwm".
  std::string to_string() const;
  friend bool operator==(const CgroupRule&, const CgroupRule&) = default;
};

// The /proc/driver/nvidia rewrite (mount.md §7.1): a tmpfs with copies of params/version/
// registry read from host_proc_dir (under the driver root), params with ModifyDeviceFiles: 0,
// and the directories of the selected GPUs (bus ids as "%08x:%02x:%02x.0").
struct ProcfsEdit {
  std::string host_proc_dir = "/proc/driver/nvidia";
  std::vector<std::string> gpu_bus_ids;
  friend bool operator==(const ProcfsEdit&, const ProcfsEdit&) = default;
};

// The graphics application profile of legacy mode (mount.md §7.2): a tmpfs on
// /etc/nvidia/nvidia-application-profiles-rc.d and 10-container.conf with EGLVisibleDGPUDevices =
// OR of (1 << minor) of the selected GPUs (MIG devices count as their parent GPU).
struct ApplicationProfileEdit {
  std::vector<unsigned> gpu_minors;
  friend bool operator==(const ApplicationProfileEdit&, const ApplicationProfileEdit&) = default;
};

// An OCI hook to inject (cdi/ and runtime/ consumers).
struct Hook {
  std::string stage;  // "createContainer", "prestart", ...
  std::string path;
  std::vector<std::string> args;
  std::vector<std::string> env;
  std::optional<int> timeout_s;
  friend bool operator==(const Hook&, const Hook&) = default;
};

struct Edits {
  std::vector<DeviceNode> device_nodes;
  std::vector<FileMount> mounts;
  std::vector<Symlink> symlinks;
  std::vector<EnvVar> env;
  std::vector<CgroupRule> cgroup_rules;
  // Container directories ldconfig must scan, in order.
  std::vector<std::string> ldcache_folders;
  std::optional<ProcfsEdit> procfs;
  // Only with graphics or display (legacy appliers; CDI uses the update-application-profile hook).
  std::optional<ApplicationProfileEdit> application_profile;
  std::vector<Hook> hooks;

  bool empty() const;
  // Appends other's entries; an entry equal to one already present is not repeated.
  void merge(const Edits& other);
  friend bool operator==(const Edits&, const Edits&) = default;
};

std::string_view to_string(FileKind kind);

}  // namespace nvct::edits
