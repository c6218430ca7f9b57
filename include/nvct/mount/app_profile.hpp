// The EGL application profile of graphics containers (mount.md §7.2): the file
// /etc/nvidia/nvidia-application-profiles-rc.d/10-container.conf restricts
// EGLVisibleDGPUDevices to the container's GPUs, as a mask of their device minors. Legacy mode
// mounts a tmpfs on the directory (driver mount step 3, §4.1) and writes the file once the
// selected GPUs are mounted (§4.2 step 3); the CDI update-application-profile hook
// (cdi_hooks/) shares the text, the mask and the file update below.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/base/unique_fd.hpp"
#include "nvct/mount/in_root.hpp"
#include "nvct/mount/journal.hpp"
#include "nvct/mount/tmpfs.hpp"

namespace nvct::mount {

inline constexpr const char* kProfileDir = "/etc/nvidia/nvidia-application-profiles-rc.d";
inline constexpr const char* kProfileFile = "10-container.conf";
inline constexpr std::string_view kProfileSetting = "EGLVisibleDGPUDevices";

// OR of (1 << minor). A minor of 64 or above cannot be expressed and is an error (ERANGE).
Result<std::uint64_t> profile_mask(const std::vector<unsigned>& gpu_minors);

// The mask already in a profile ("0x..." after EGLVisibleDGPUDevices), or nullopt.
std::optional<std::uint64_t> parse_profile_mask(std::string_view text);

// The single-line profile of mount.md §7.2 with `mask` in lower-case hex ("0x3").
std::string render_profile(std::uint64_t mask);

// Writes kProfileFile in `dirfd` (an in-root directory already checked by the caller; `where`
// is its in-root path, for messages) with `mask` OR the mask of an existing file, replacing it
// atomically. An existing entry that is not a regular file (a symlink planted by the image) is
// refused. A new file gets `new_mode`; an existing one keeps its mode. Returns the mask written.
Result<std::uint64_t> update_profile_file(int dirfd, const std::string& where, std::uint64_t mask,
                                          mode_t new_mode);

// The tmpfs of the legacy driver mount, held by fd until the file is written.
using ProfileTmpfs = MountedTmpfs;

// Mounts a private tmpfs (mode 0555, nosuid,nodev,noexec; mount.md §5) on kProfileDir, creating
// the directory (and /etc/nvidia) in-root when missing. A symlinked /etc/nvidia is resolved
// inside the rootfs, never on the host. Mount and created directories are journaled.
Result<ProfileTmpfs> mount_profile_tmpfs(const Root& rootfs, Journal& journal);

// Writes kProfileFile (mode 0555) into the tmpfs for the selected GPUs' minors; no GPU, no file
// (the reference writes it per GPU in the device mount). Returns the mask written, if any.
Result<std::optional<std::uint64_t>> write_container_profile(const ProfileTmpfs& tmpfs,
                                                             const std::vector<unsigned>& minors);

}  // namespace nvct::mount
