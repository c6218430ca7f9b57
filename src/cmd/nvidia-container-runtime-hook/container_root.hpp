// Is root.path really the root of the container that runc (or crun) is creating? The hook
// re-reads config.json, which a hostile bundle writer can swap after runc read it (security.md
// #32), and the hook can be run by hand with any state: both ways root.path can name a plain
// host directory, and the mount library would create device nodes and bind mounts in it
// (issue 18).
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct::hook {

// A container root, at prestart, is:
// - in a mount namespace other than the hook's own (runc and crun always give the container
//   one; configuring in the hook's namespace would write straight into the host's tree), and
// - a mount point in that namespace: before it signals the prestart hooks, runc's
//   prepareRootfs (and crun) bind-mounts root.path onto itself, so /proc/<pid>/mountinfo lists
//   it. A plain directory never is.
// `proc` is the procfs to read (tests point it elsewhere).
Status check_container_root(pid_t pid, const std::string& rootfs,
                            const std::string& proc = "/proc");

// Whether `mountinfo` (the text of /proc/<pid>/mountinfo) has a mount whose mount point is
// `path` (mountinfo's \040-style octal escapes decoded).
bool mountinfo_has_mount_point(std::string_view mountinfo, std::string_view path);

}  // namespace nvct::hook
