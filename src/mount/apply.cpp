#include "nvct/mount/apply.hpp"

#include <optional>

#include "nvct/base/log.hpp"
#include "nvct/mount/app_profile.hpp"
#include "nvct/mount/bind.hpp"
#include "nvct/mount/procfs.hpp"
#include "nvct/mount/symlink.hpp"

namespace nvct::mount {

Status apply_edits(const Root& host_root, const Root& rootfs, const edits::Edits& edits,
                   Journal& journal, OpenedSources* opened) {
  auto run = [&]() -> Status {
    if (edits.procfs) NVCT_TRY(mount_procfs(host_root, rootfs, *edits.procfs, journal));
    std::optional<ProfileTmpfs> profile;
    if (edits.application_profile) {
      NVCT_ASSIGN_OR_RETURN(profile, mount_profile_tmpfs(rootfs, journal));
    }
    for (const auto& m : edits.mounts)
      NVCT_TRY(mount_file(host_root, rootfs, m, journal, opened));
    for (const auto& l : edits.symlinks) NVCT_TRY(create_symlink(rootfs, l, journal));
    for (const auto& d : edits.device_nodes)
      NVCT_TRY(mount_device(host_root, rootfs, d, journal, opened));
    // The reference rewrites the profile in each GPU's device mount, after its node (§4.2).
    if (profile) NVCT_TRY(write_container_profile(*profile, edits.application_profile->gpu_minors));
    return ok();
  };
  Status s = run();
  if (!s) {
    Status undone = journal.rollback();
    if (!undone) log::error("rollback after failure: {}", undone.error().message());
  }
  return s;
}

}  // namespace nvct::mount
