// The create-symlinks hook (spec/cdi.md §8): `--link target::link`, ln -sf semantics. Parents
// are created and resolved in-root by the kernel (an absolute-symlink parent stays inside the
// rootfs: CVE-2024-0134), the link is made with symlinkat on the verified parent fd and an
// existing entry is replaced with symlinkat(temp) + renameat (CVE-2026-24260).
#pragma once

#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/edits/edits.hpp"
#include "nvct/mount/in_root.hpp"

namespace nvct::cdi_hooks {

// "target::link" -> {container_path = link, target}. Anything but exactly one "::" with both
// sides non-empty is an error naming the spec.
Result<edits::Symlink> parse_link_spec(const std::string& spec);

// Creates every unique link. An existing link with the same target is left alone; any other
// non-directory entry is replaced. On failure the links this run created are removed.
Status create_symlinks(const mount::Root& rootfs, const std::vector<std::string>& link_specs);

}  // namespace nvct::cdi_hooks
