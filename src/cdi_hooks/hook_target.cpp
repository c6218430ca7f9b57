#include "nvct/cdi_hooks/hook_target.hpp"

#include <fcntl.h>
#include <fmt/format.h>

#include "nvct/base/file.hpp"
#include "nvct/base/unique_fd.hpp"
#include "nvct/oci/spec_document.hpp"

namespace nvct::cdi_hooks {

Result<std::string> container_root_of(const oci::State& state) {
  if (state.root && !state.root->empty()) {
    if ((*state.root)[0] == '/') return *state.root;
    return state.bundle + "/" + *state.root;
  }
  NVCT_ASSIGN_OR_RETURN(oci::SpecDocument spec, oci::SpecDocument::load(state.bundle));
  return spec.rootfs_path();
}

Result<HookTarget> load_hook_target(const std::string& container_spec, int stdin_fd) {
  auto run = [&]() -> Result<HookTarget> {
    std::string text;
    if (container_spec.empty() || container_spec == "-") {
      NVCT_ASSIGN_OR_RETURN(text, read_fd(stdin_fd, oci::kMaxStateSize));
    } else {
      NVCT_ASSIGN_OR_RETURN(text, read_file(container_spec, oci::kMaxStateSize));
    }
    HookTarget target;
    NVCT_ASSIGN_OR_RETURN(target.state, oci::parse_state(text));
    NVCT_ASSIGN_OR_RETURN(target.container_root, container_root_of(target.state));
    return target;
  };
  return with_context(run(), "load container state");
}

Result<mount::Root> open_container_root(const std::string& path) {
  // The hook runs as root with the host root as "/": a missing or "/" root must never make it
  // edit the host.
  if (path.empty() || path == "/")
    return fail(EINVAL, fmt::format("invalid container root '{}'", path));
  return with_context(mount::Root::open(path), fmt::format("open container root {}", path));
}

}  // namespace nvct::cdi_hooks
