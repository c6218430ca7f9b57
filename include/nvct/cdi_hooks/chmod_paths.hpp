// The chmod hook (spec/cdi.md §8; disabled by default in generated specs): `--mode <octal>`
// (required) and `--path <p>` (repeatable). Each path is resolved in-root by the kernel and
// changed through its fd; EPERM (e.g. a read-only bind) is ignored as the reference does.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/mount/in_root.hpp"

namespace nvct::cdi_hooks {

// "755", "0755" -> 0755. Empty, non-octal or above 07777 is an error.
Result<mode_t> parse_octal_mode(const std::string& text);

// Returns how many paths were changed.
Result<int> chmod_paths(const mount::Root& rootfs, mode_t mode,
                        const std::vector<std::string>& paths);

}  // namespace nvct::cdi_hooks
