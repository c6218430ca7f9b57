// What every CDI hook starts from (spec/cdi.md §8): the OCI state on stdin (or the hidden
// --container-spec file) and the container root it names. The root is the state's "root"
// extension when the runtime gives one (crun), else root.path of <bundle>/config.json. The
// container's process.env is never read: a privileged hook takes nothing from the image's
// environment (CVE-2025-23266).
#pragma once

#include <string>

#include "nvct/base/error.hpp"
#include "nvct/mount/in_root.hpp"
#include "nvct/oci/state.hpp"

namespace nvct::cdi_hooks {

struct HookTarget {
  oci::State state;
  std::string container_root;  // host path, absolute
};

// Reads the state from `container_spec` ("" or "-" = the fd `stdin_fd`), capped at
// oci::kMaxStateSize, and works out the container root.
Result<HookTarget> load_hook_target(const std::string& container_spec, int stdin_fd = 0);

// The container root of a parsed state: the "root" extension (relative to the bundle when not
// absolute), else the bundle's config.json root.path.
Result<std::string> container_root_of(const oci::State& state);

// Opens the container root; "" and "/" are refused (a hook must never treat the host root as a
// container's).
Result<mount::Root> open_container_root(const std::string& path);

}  // namespace nvct::cdi_hooks
