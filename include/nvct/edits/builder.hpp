// The edits builder of legacy mode: from the host's driver facts and the selected devices to
// the edits a container gets, in the object order of mount.md §4 (driver mount, then the
// selected GPUs, MIG capabilities, IMEX channels) with the flags of mount.md §5. No I/O: the
// caller reads whatever the builder needs (container layout, mig-minors, cap minors).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nvct/driver/device_selection.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/driver/procfs.hpp"
#include "nvct/edits/edits.hpp"

namespace nvct::edits {

// The capability flags of `configure` (driver.md §2.1).
struct Capabilities {
  bool compute = false, utility = false, video = false, graphics = false, display = false,
       ngx = false, compat32 = false;

  // The option bits these flags set: video implies compute libs (not bins), display implies
  // graphics libs.
  bool compute_libs() const { return compute || video; }
  bool compute_bins() const { return compute; }
  bool utility_libs() const { return utility; }
  bool utility_bins() const { return utility; }
  bool video_libs() const { return video; }
  bool graphics_libs() const { return graphics || display; }
  bool ngx_libs() const { return ngx; }
};

// Where driver files go in this container (driver.md §8), chosen per rootfs by the caller.
struct ContainerLayout {
  std::string bins_dir = "/usr/bin";
  std::string libs_dir = "/usr/lib64";
  std::string libs32_dir = "/usr/lib32";
};

struct BuildOptions {
  Capabilities capabilities;
  bool no_devbind = false;
  bool no_persistenced = false;
  bool no_fabricmanager = false;
  bool no_gsp_firmware = false;
  // --mig-config=all / --mig-monitor=all (validated by the caller; only "all" exists).
  bool mig_config = false;
  bool mig_monitor = false;
  // DeviceFileMinor of capabilities/mig/config and mig/monitor, read by the caller.
  std::optional<unsigned> mig_config_minor, mig_monitor_minor;
  // /proc/driver/nvidia-caps/mig-minors, read by the caller (mig-config/monitor only).
  std::vector<driver::MigMinor> mig_minors;
  // IMEX channel numbers (already checked < 2^20).
  std::vector<unsigned> imex_channels;
  ContainerLayout layout;
};

// Everything of mount.md §4 the edits model can carry: procfs rewrite with the selected GPUs'
// bus ids, binaries, libraries (+ compat32), the §6 symlinks, firmware, capability-gated IPC,
// capability-gated control nodes, /dev/nvidiaN of the selected GPUs, MIG cap nodes, IMEX
// channel nodes, a cgroup rule per device node (also with no_devbind) and the ldcache folders.
Edits build_edits(const driver::DriverInfo& info, const driver::DeviceSelection& selection,
                  const BuildOptions& options);

// Mounts the edits model has no slot for yet: the MIG capability files and directories under
// /proc/driver/nvidia/capabilities (ro,nosuid,nodev,noexec) and, for mig-config/monitor, the
// /dev/nvidia-caps directory (rw,nosuid,noexec). Their targets lie under /proc/driver/nvidia or
// /dev/nvidia*, so the applier mounts them with the procfs or device path policy.
std::vector<FileMount> build_special_mounts(const driver::DriverInfo& info,
                                            const driver::DeviceSelection& selection,
                                            const BuildOptions& options);

// The §6 links for one mounted library (container path), if its name asks for one.
std::optional<Symlink> library_symlink(const std::string& container_path);

}  // namespace nvct::edits
