#include "nvct/mount/apply.hpp"

#include "nvct/base/log.hpp"
#include "nvct/mount/bind.hpp"
#include "nvct/mount/procfs.hpp"
#include "nvct/mount/symlink.hpp"

namespace nvct::mount {

Status apply_edits(const Root& host_root, const Root& rootfs, const edits::Edits& edits,
                   Journal& journal) {
  auto run = [&]() -> Status {
    if (edits.procfs) NVCT_TRY(mount_procfs(host_root, rootfs, *edits.procfs, journal));
    for (const auto& m : edits.mounts) NVCT_TRY(mount_file(host_root, rootfs, m, journal));
    for (const auto& l : edits.symlinks) NVCT_TRY(create_symlink(rootfs, l, journal));
    for (const auto& d : edits.device_nodes) NVCT_TRY(mount_device(host_root, rootfs, d, journal));
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
