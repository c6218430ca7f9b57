// `cdi transform root` (spec/cdi.md §7): rewrites a path prefix in every edit of a spec, either on
// the host side (hostPath, hook paths) or the container side (path, containerPath).
#pragma once

#include <string>
#include <string_view>

#include "nvct/base/error.hpp"
#include "nvct/cdi/spec.hpp"

namespace nvct::cdi {

enum class RelativeTo { kHost, kContainer };

Result<RelativeTo> parse_relative_to(std::string_view text);

struct RootTransform {
  std::string from;
  std::string to;
  RelativeTo relative_to = RelativeTo::kHost;

  // `path` with `from` replaced by `to` when `from` is a whole-component prefix of it
  // (from=/driver does not touch /driver-backup/x); other paths are returned unchanged.
  std::string transform_path(std::string_view path) const;
  // Host side: deviceNode hostPath (path when unset), mount hostPath, hook path (not for
  // startContainer) and, for hooks run in the runtime namespace, each argument (both halves of
  // "target::link"). Container side: deviceNode path, mount containerPath, startContainer hook
  // path, and the arguments of createContainer/startContainer hooks.
  void apply(Spec& spec) const;
  void apply(ContainerEdits& edits) const;
};

}  // namespace nvct::cdi
