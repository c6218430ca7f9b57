// Symlinks in the rootfs (mount.md §6): created with symlinkat on a parent fd obtained by
// in-root resolution; the link text is stored verbatim and never followed here.
#pragma once

#include "nvct/base/error.hpp"
#include "nvct/edits/edits.hpp"
#include "nvct/mount/in_root.hpp"
#include "nvct/mount/journal.hpp"

namespace nvct::mount {

enum class ExistingLink {
  kKeep,     // EEXIST is ignored, as the reference does
  kReplace,  // symlinkat(temp) + renameat over the old entry (toolkit >= 1.19.1 pattern)
};

Status create_symlink(const Root& rootfs, const edits::Symlink& link, Journal& journal,
                      ExistingLink existing = ExistingLink::kKeep);

}  // namespace nvct::mount
