// Running the host's ldconfig for a container (mount.md §11.4): the binary is copied into a
// sealed memfd in the host namespace, then run in a child with new pid/ipc/uts/net namespaces,
// inside the container's mount namespace (or a fresh one), pivoted into the rootfs with /proc,
// /sys and /dev hidden, all fds closed, rlimits, every capability dropped, no_new_privs and a
// seccomp allow-list (default ENOSYS), exec'd from the memfd with an empty environment.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/base/unique_fd.hpp"
#include "nvct/mount/in_root.hpp"

namespace nvct::mount {

struct LdconfigOptions {
  // Host path of ldconfig (the config's "@/sbin/ldconfig" with the '@' removed).
  std::string host_ldconfig = "/sbin/ldconfig";
  // Container directories to scan, in order.
  std::vector<std::string> folders;
  // Container init pid: its mount namespace is joined. nullopt: a fresh mount namespace (tests,
  // or a rootfs not yet in a container).
  std::optional<pid_t> container_pid;
  // Cgroup directories the helper joins before it starts (the container's cgroups, so its device
  // rules and limits apply to the helper too; the CVE-2024-0136 class).
  std::vector<std::string> cgroup_dirs;
  uid_t uid = 0;
  gid_t gid = 0;
  std::chrono::milliseconds timeout{30000};
};

// The fixed argv: ldconfig -f /etc/ld.so.conf -C /etc/ld.so.cache <folders...>.
std::vector<std::string> ldconfig_argv(const std::vector<std::string>& folders);

// A sealed (SEAL|SHRINK|GROW|WRITE, + EXEC where supported) memfd copy of a host file.
Result<unique_fd> sealed_copy(const std::string& host_path);

// fcntl(F_ADD_SEALS) that rides out EBUSY. F_SEAL_WRITE fails with EBUSY while a page of the
// file holds a reference besides the page cache's, and the kernel waits only about 150 ms for
// such references to go: a freshly written memfd's pages can still be held that long on a
// loaded node (LRU batches, compaction or reclaim isolating them), and a CDI hook failed with
// "seal memfd: Device or resource busy" in a CI run under load. Tries again with a growing
// sleep for up to about `patience`, then returns the EBUSY. Other errors return at once.
Status add_seals(int fd, int seals,
                 std::chrono::milliseconds patience = std::chrono::milliseconds(2000));

// Whether the rootfs has a glibc loader ldconfig can serve; musl or empty images are skipped.
Result<bool> has_glibc_layout(const Root& rootfs);

// Creates /etc/ld.so.conf ("include /etc/ld.so.conf.d/*.conf") through in-root fds when the
// image has none. Returns true when it was created.
Result<bool> ensure_ld_so_conf(const Root& rootfs);

// Runs the sandbox and checks afterwards that /etc/ld.so.cache is a regular file inside R.
Status run_ldconfig(const Root& rootfs, const LdconfigOptions& options);

}  // namespace nvct::mount
