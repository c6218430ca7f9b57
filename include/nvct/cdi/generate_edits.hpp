// Edits (the shared model the legacy mode applies) written as CDI containerEdits (spec/cdi.md
// §6.3), so that a library, binary or device list is decided once by the edits builder and every
// mode gets it. Host paths are prefixed with the driver root (files) or the dev root (nodes);
// container paths are the paths inside those roots.
#pragma once

#include <string>
#include <vector>

#include "nvct/cdi/generate_hooks.hpp"
#include "nvct/cdi/inject.hpp"
#include "nvct/cdi/spec.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/edits/edits.hpp"

namespace nvct::cdi {

// Mount options of driver files, and of IPC sockets/directories.
inline const std::vector<std::string> kDriverFileMountOptions = {"ro", "nosuid", "nodev", "rbind",
                                                                 "rprivate"};
inline const std::vector<std::string> kIpcMountOptions = {"nosuid", "nodev", "rbind", "rprivate",
                                                          "noexec"};

struct ConvertOptions {
  std::string driver_root = "/";  // host prefix of file mounts
  std::string dev_root = "/";     // host prefix of device nodes
  std::string driver_version;     // for enable-cuda-compat
  HookOptions hooks;
};

// "/" + "/dev/x" -> "/dev/x"; "/r" + "/dev/x" -> "/r/dev/x".
std::string join_root(const std::string& root, const std::string& path);

// The edits builder places libraries and binaries in a container layout; a CDI spec mounts them
// where they are on the host (inside the driver root). Rewrites those targets and recomputes the
// library symlinks (libcuda.so -> libcuda.so.1, ...) for the new places. A binary goes where
// PATH found it on the host (bins[i].found_at), not to its resolved file: on Debian,
// /usr/bin/nvidia-smi is an alternatives link to /usr/lib/nvidia/current/nvidia-smi, which is on
// no container's PATH.
edits::Edits with_host_layout(edits::Edits e, const std::vector<driver::DriverBinary>& bins = {});

// Device nodes: path = container path; hostPath only when it differs; type, major, minor and
// fileMode from the host node when lookup can read it (left for the consumer to fill otherwise).
std::vector<DeviceNode> to_cdi_device_nodes(const std::vector<edits::DeviceNode>& nodes,
                                            const std::string& dev_root, DeviceLookup& lookup);

// The spec-level edits: env NVIDIA_CTK_LIBCUDA_DIR and NVIDIA_VISIBLE_DEVICES=void, the control
// nodes, the hooks in the reference's order (create-symlinks, enable-cuda-compat,
// update-ldcache, disable-device-node-modification, update-application-profile, chmod), and the
// mounts (libraries first). `e` must already be in the host layout.
ContainerEdits to_cdi_common_edits(const edits::Edits& e, const ConvertOptions& options,
                                   DeviceLookup& lookup);

}  // namespace nvct::cdi
