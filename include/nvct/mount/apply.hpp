// Applies the file-system part of an edits value to a rootfs in the driver-mount order of
// mount.md §4.1 (procfs, the graphics profile tmpfs, files, symlinks, device nodes, then the
// profile file of the selected GPUs), all or nothing: on the first failure
// everything done so far is rolled back and the error returned. Cgroup rules and ldconfig are
// separate steps (no-cgroups is the caller's decision).
#pragma once

#include "nvct/base/error.hpp"
#include "nvct/edits/edits.hpp"
#include "nvct/mount/bind.hpp"
#include "nvct/mount/in_root.hpp"
#include "nvct/mount/journal.hpp"

namespace nvct::mount {

// On success the journal holds everything done (the caller may roll back a later failure).
// `opened`: sources already opened in this namespace (bind.hpp open_source), or none.
Status apply_edits(const Root& host_root, const Root& rootfs, const edits::Edits& edits,
                   Journal& journal, OpenedSources* opened = nullptr);

}  // namespace nvct::mount
