// Applying edits inside a container's mount namespace (mount.md §3 step 7, §14.2). A forked
// child joins the namespace (setns needs a single-threaded caller), opens the rootfs there, runs
// apply_edits (all or nothing) plus the special /proc and /dev/nvidia-caps mounts with the same
// journal, reports through a pipe and leaves with _exit. The caller's namespace is never changed.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/base/unique_fd.hpp"
#include "nvct/edits/edits.hpp"

namespace nvct::mount {

struct ContainerProcess {
  pid_t pid = 0;
  unique_fd proc_dir;  // /proc/<pid>
  unique_fd pidfd;     // pidfd_open, to confirm the pid was not reused
  unique_fd mnt_ns;    // /proc/<pid>/ns/mnt
  uid_t uid = 0;       // owner of /proc/<pid>: the container user
  gid_t gid = 0;
};

// Opens the process's /proc dir, a pidfd and its mount namespace, then checks the process is
// still the same one. A process in our own mount namespace is refused: its "container" mounts
// would land on the host. In standalone mode (cli.md §4: no --pid, the parent is the
// "container") sharing our namespace is the point, but it must not be the one of pid 1
// (host_mnt_ns); where that cannot be read (no ptrace access to pid 1), a warning says so.
Result<ContainerProcess> open_container_process(pid_t pid, bool standalone = false,
                                                const char* host_mnt_ns = "/proc/1/ns/mnt");

// Whether the process is still alive (pidfd_send_signal 0).
Status check_still_running(const ContainerProcess& process);

// Host sources are opened in our namespace first and their identities (dev, ino) recorded; in
// the container namespace (pre-pivot, the host tree is visible) they must be the same objects
// before anything is mounted.
// `meanwhile`, when given, runs in the calling process while the child mounts (configure writes
// the device cgroup rules there: the two are independent, and on two CPUs they overlap). It runs
// whatever the child's outcome; the child's error, if any, is the one returned.
Status apply_in_container(const ContainerProcess& process, const std::string& driver_root,
                          const std::string& rootfs, const edits::Edits& edits,
                          const std::vector<edits::FileMount>& special_mounts,
                          const std::function<void()>& meanwhile = {});

}  // namespace nvct::mount
