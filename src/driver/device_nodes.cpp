#include "nvct/driver/device_nodes.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::driver {
namespace {

std::optional<unsigned> field_value(std::string_view text, std::string_view key) {
  for (auto& line : strings::split(text, '\n')) {
    auto colon = line.find(':');
    if (colon == std::string::npos || strings::trim(std::string_view(line).substr(0, colon)) != key)
      continue;
    return parse_unsigned(strings::trim(std::string_view(line).substr(colon + 1)));
  }
  return std::nullopt;
}

// Runs modprobe by absolute path with a fixed, empty environment; a failure only logs.
void modprobe(const std::string& modprobe_path, const char* module) {
  pid_t pid = ::fork();
  if (pid < 0) {
    log::warn("modprobe {}: fork: {}", module, std::strerror(errno));
    return;
  }
  if (pid == 0) {
    const char* argv[] = {modprobe_path.c_str(), module, nullptr};
    const char* envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", nullptr};
    ::execve(modprobe_path.c_str(), const_cast<char**>(argv), const_cast<char**>(envp));
    _exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    log::warn("modprobe {} failed (status {:#x})", module, status);
}

Result<unique_fd> open_dir_in_root(const DriverRoot& root, const std::string& dir) {
  auto fd = root.open_file(dir, O_PATH | O_DIRECTORY);
  if (fd || fd.error().code() != ENOENT) return fd;
  // Create missing parents one level at a time, each relative to its resolved parent.
  auto slash = dir.rfind('/');
  std::string parent = slash == 0 ? "/" : dir.substr(0, slash);
  NVCT_ASSIGN_OR_RETURN(unique_fd pfd, open_dir_in_root(root, parent));
  std::string name = dir.substr(slash + 1);
  if (::mkdirat(pfd.get(), name.c_str(), 0755) != 0 && errno != EEXIST)
    return fail_errno(fmt::format("mkdir {} in {}", dir, root.path()));
  return root.open_file(dir, O_PATH | O_DIRECTORY);
}

std::vector<unsigned> gpu_minors_from_procfs(const DriverRoot& root) {
  std::vector<unsigned> minors;
  auto dirs = root.list_dir(kProcGpus);
  if (!dirs) return minors;
  for (const auto& d : *dirs) {
    auto text = root.read(fmt::format("{}/{}/information", kProcGpus, d), 64 * 1024);
    if (!text) {
      log::warn("skipping GPU {}: {}", d, text.error().message());  // issue 18: say why
      continue;
    }
    if (auto info = parse_proc_gpu_information(*text)) minors.push_back(info->minor);
  }
  return minors;
}

// Whether every MIG capability node that the mig-minors pass below could create is already the
// right character device, so that mig-minors need not be read. A real driver formats all 4322
// lines of that file at each read: 3.2 ms on an H200 (driver 580.159.04), the larger part of
// what --load-kmods cost there, while nvidia-smi or an earlier run has usually made the nodes.
// The capability files that exist (mig/config, mig/monitor, and gpu<N>/mig/gi*/access and
// gi*/ci*/access for N below `count`: the entries the pass would use) each name their node's
// minor (DeviceFileMinor). Anything unexpected answers false, and the full pass runs.
bool mig_cap_nodes_present(const DriverRoot& root, unsigned caps_major, unsigned count) {
  auto caps_dev = root.open_file("/dev/nvidia-caps", O_PATH | O_DIRECTORY);
  if (!caps_dev) return false;
  const std::string caps(kProcCapabilities);
  std::vector<std::string> files = {caps + "/mig/config", caps + "/mig/monitor"};
  auto folders = list_mig_folders(caps, [&root](const std::string& p) {
    auto names = root.list_dir(p);
    return names ? std::optional(std::move(*names)) : std::nullopt;
  });
  if (!folders) return false;
  for (const auto& f : *folders)
    if (f.level > 0 && f.gpu < count) files.push_back(fmt::format("{}/{}/access", caps, f.path));
  for (const auto& file : files) {
    auto text = root.read(file, 4096);
    if (!text) {
      if (text.error().code() == ENOENT) continue;  // the pass skips it too
      return false;
    }
    auto minor = field_value(*text, "DeviceFileMinor");
    if (!minor) return false;
    struct stat st {};
    std::string node = fmt::format("nvidia-cap{}", *minor);
    if (::fstatat(caps_dev->get(), node.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISCHR(st.st_mode) || st.st_rdev != makedev(caps_major, *minor))
      return false;
  }
  return true;
}

// mig-minors lists every possible GPU instance and compute instance of every GPU the driver can
// hold (thousands of lines on a real host) while only the configured ones have a capability
// directory: remembering, by number, which directories exist answers the other lines without a
// lookup or an allocation each (bench/driver, issues 3 and 19).
class CapabilityDirs {
 public:
  explicit CapabilityDirs(const DriverRoot& root) : root_(root) {}

  // Whether the directory of the line's capability file exists (with its parents).
  bool exists(const MigMinorLine& l) {
    using Kind = MigMinor::Kind;
    if (l.kind == Kind::kConfig || l.kind == Kind::kMonitor)
      return memo({0, 0, 0, 0}, [] { return fmt::format("{}/mig", kProcCapabilities); });
    if (!memo({1, l.gpu, 0, 0},
              [&] { return fmt::format("{}/gpu{}/mig", kProcCapabilities, l.gpu); }))
      return false;
    if (!memo({2, l.gpu, l.gi, 0},
              [&] { return fmt::format("{}/gpu{}/mig/gi{}", kProcCapabilities, l.gpu, l.gi); }))
      return false;
    if (l.kind == Kind::kGpuInstance) return true;
    return memo({3, l.gpu, l.gi, l.ci}, [&] {
      return fmt::format("{}/gpu{}/mig/gi{}/ci{}", kProcCapabilities, l.gpu, l.gi, l.ci);
    });
  }

 private:
  using Key = std::array<unsigned, 4>;  // level, gpu, gi, ci
  template <typename MakePath>
  bool memo(const Key& key, MakePath make_path) {
    if (auto it = known_.find(key); it != known_.end()) return it->second;
    bool present = root_.exists(make_path());
    known_.emplace(key, present);
    return present;
  }
  const DriverRoot& root_;
  std::map<Key, bool> known_;
};

}  // namespace

DeviceFileParams parse_device_file_params(std::string_view text) {
  DeviceFileParams p;
  if (auto v = field_value(text, "DeviceFileUID")) p.uid = *v;
  if (auto v = field_value(text, "DeviceFileGID")) p.gid = *v;
  if (auto v = field_value(text, "DeviceFileMode")) p.mode = static_cast<mode_t>(*v & 07777);
  if (auto v = field_value(text, "ModifyDeviceFiles")) p.modify = *v != 0;
  return p;
}

Status create_char_device(const DriverRoot& root, std::string_view path, unsigned major,
                          unsigned minor, const DeviceFileParams& params) {
  std::string p = normalize_path(path);
  auto slash = p.rfind('/');
  std::string dir = slash == 0 ? "/" : p.substr(0, slash), name = p.substr(slash + 1);
  NVCT_ASSIGN_OR_RETURN(unique_fd dfd, open_dir_in_root(root, dir));
  dev_t want = makedev(major, minor);
  if (::mknodat(dfd.get(), name.c_str(), S_IFCHR | params.mode, want) != 0) {
    if (errno != EEXIST) return fail_errno(fmt::format("mknod {} in {}", p, root.path()));
    struct stat st {};
    if (::fstatat(dfd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      return fail_errno(fmt::format("stat {} in {}", p, root.path()));
    if (!S_ISCHR(st.st_mode) || st.st_rdev != want)
      return fail(EEXIST, fmt::format("{} in {} exists and is not the character device {}:{}", p,
                                      root.path(), major, minor));
    return ok();  // created concurrently or earlier: keep it as it is
  }
  log::info("created device node {} ({}:{}, mode {:o}) in {}", p, major, minor, params.mode,
            root.path());
  if (::fchownat(dfd.get(), name.c_str(), params.uid, params.gid, AT_SYMLINK_NOFOLLOW) != 0)
    log::warn("chown {}: {}", p, std::strerror(errno));
  if (::fchmodat(dfd.get(), name.c_str(), params.mode, 0) != 0)
    log::warn("chmod {}: {}", p, std::strerror(errno));
  // /dev/char/MAJ:MIN lets systemd re-allow the device after `daemon-reload` (nvidia-docker#1730).
  if (auto cfd = open_dir_in_root(root, "/dev/char")) {
    std::string link = fmt::format("{}:{}", major, minor);
    std::string target = ".." + p.substr(4);  // "/dev/x/y" -> "../x/y"
    if (::symlinkat(target.c_str(), cfd->get(), link.c_str()) != 0 && errno != EEXIST)
      log::warn("symlink /dev/char/{}: {}", link, std::strerror(errno));
  }
  return ok();
}

bool in_user_namespace() {
  for (const char* f : {"/proc/self/uid_map", "/proc/self/gid_map"}) {
    auto text = read_file(f, 4096);
    if (!text) return true;
    std::vector<std::string> words;
    for (auto& w : strings::split(*text, ' '))
      if (!strings::trim(w).empty()) words.emplace_back(strings::trim(w));
    if (words != std::vector<std::string>{"0", "0", "4294967295"}) return true;
  }
  auto sg = read_file("/proc/self/setgroups", 64);
  return sg && strings::trim(*sg) == "deny";
}

unsigned count_nvidia_pci_devices(const DriverRoot& root) {
  auto devs = root.list_dir("/sys/bus/pci/devices");
  if (!devs) return 0;
  unsigned n = 0;
  for (const auto& d : *devs) {
    auto vendor = root.read("/sys/bus/pci/devices/" + d + "/vendor", 64);
    auto cls = root.read("/sys/bus/pci/devices/" + d + "/class", 64);
    if (vendor && cls && strings::trim(*vendor) == "0x10de" &&
        strings::starts_with(strings::trim(*cls), "0x03"))
      ++n;
  }
  return n;
}

bool kernel_module_loaded(const DriverRoot& root, std::string_view module) {
  auto text = root.read("/proc/modules", 1u << 20);
  if (!text) return false;
  std::string want(module);
  std::replace(want.begin(), want.end(), '-', '_');
  for (const auto& line : strings::split(*text, '\n')) {
    std::string name(line.substr(0, line.find(' ')));
    std::replace(name.begin(), name.end(), '-', '_');
    if (name == want) return true;
  }
  return false;
}

Status load_kernel_modules(const KmodOptions& o) {
  if (in_user_namespace()) {
    log::info("skipping kernel modules load in a user namespace");
    return ok();
  }
  auto opened = DriverRoot::open(o.root);
  if (!opened) return tl::unexpected(opened.error());
  const DriverRoot& root = *opened;
  bool host = root.path() == "/";
  bool can_modprobe = host && ::geteuid() == 0 && ::access(o.modprobe.c_str(), X_OK) == 0;
  if (!can_modprobe) log::info("not running modprobe for driver root {}", root.path());
  auto params_text = root.read("/proc/driver/nvidia/params", 64 * 1024);
  DeviceFileParams params =
      params_text ? parse_device_file_params(*params_text) : DeviceFileParams{};
  auto majors = [&] {
    auto text = root.read(kProcDevices, 64 * 1024);
    return text ? parse_proc_devices(*text) : std::map<std::string, unsigned>{};
  };
  auto mk = [&](const std::string& path, unsigned major, unsigned minor,
                const DeviceFileParams& p) {
    if (!p.modify) return;
    if (auto st = create_char_device(root, path, major, minor, p); !st)
      log::warn("{}", st.error().message());
  };

  unsigned count = count_nvidia_pci_devices(root);
  if (can_modprobe) modprobe(o.modprobe, "nvidia");
  auto m = majors();
  if (!m.count("nvidia-frontend") && !m.count("nvidia")) {
    // No module, no nodes: a node on a host without the driver only misleads (and a GPU
    // container would get a node that does not work).
    std::string proc_devices = (root.path() == "/" ? "" : root.path()) + std::string(kProcDevices);
    log::info("the NVIDIA kernel module is not loaded ({} has no nvidia major): no device nodes",
              proc_devices);
    return ok();
  }
  unsigned nvidia = m.count("nvidia-frontend") ? m["nvidia-frontend"] : m["nvidia"];
  mk("/dev/nvidiactl", nvidia, 255, params);
  // nvidia-modprobe names the nodes 0..count-1 after the PCI count. Once the module is loaded,
  // the driver's own per-GPU "Device Minor" is the exact list, and it also serves driver roots
  // that have no sysfs of their own.
  std::vector<unsigned> minors = gpu_minors_from_procfs(root);
  if (minors.empty())
    for (unsigned i = 0; i < count; ++i) minors.push_back(i);
  count = std::max<unsigned>(count, static_cast<unsigned>(minors.size()));
  for (unsigned minor : minors) mk(fmt::format("/dev/nvidia{}", minor), nvidia, minor, params);

  if (m.count("nvidia-caps") && mig_cap_nodes_present(root, m["nvidia-caps"], count)) {
    log::debug("every MIG capability node is in place; {} not read", kProcMigMinors);
  } else if (m.count("nvidia-caps")) {
    CapabilityDirs dirs(root);
    if (auto text = root.read(kProcMigMinors, 1u << 20)) {
      auto entries = scan_mig_minors(*text);
      if (!entries) {
        log::warn("{}: {}", kProcMigMinors, entries.error().message());
        entries = std::vector<MigMinorLine>{};
      }
      for (const auto& e : *entries) {
        bool per_gpu =
            e.kind == MigMinor::Kind::kGpuInstance || e.kind == MigMinor::Kind::kComputeInstance;
        if (per_gpu && e.gpu >= count) continue;
        if (!dirs.exists(e)) continue;
        auto cap = root.read(mig_minor_proc_path(e), 4096);
        if (!cap) continue;  // only caps whose proc file exists
        DeviceFileParams cp = params;
        cp.modify = true;
        if (auto v = field_value(*cap, "DeviceFileMode")) cp.mode = static_cast<mode_t>(*v & 07777);
        if (auto v = field_value(*cap, "DeviceFileUID")) cp.uid = *v;
        if (auto v = field_value(*cap, "DeviceFileGID")) cp.gid = *v;
        mk(fmt::format("/dev/nvidia-caps/nvidia-cap{}", e.minor), m["nvidia-caps"], e.minor, cp);
      }
    }
  }
  if (o.create_imex_channels && m.count("nvidia-caps-imex-channels")) {
    for (unsigned c : o.imex_channels)
      mk(fmt::format("/dev/nvidia-caps-imex-channels/channel{}", c), m["nvidia-caps-imex-channels"],
         c, params);
  }
  if (can_modprobe) modprobe(o.modprobe, "nvidia-uvm");
  m = majors();
  if (m.count("nvidia-uvm")) {
    mk("/dev/nvidia-uvm", m["nvidia-uvm"], 0, params);
    mk("/dev/nvidia-uvm-tools", m["nvidia-uvm"], 1, params);
  }
  if (can_modprobe) modprobe(o.modprobe, "nvidia-modeset");
  if (kernel_module_loaded(root, "nvidia-modeset")) {
    mk("/dev/nvidia-modeset", nvidia, 254, params);
  } else {
    log::info("nvidia_modeset is not loaded: /dev/nvidia-modeset not created");
  }
  return ok();
}

}  // namespace nvct::driver
