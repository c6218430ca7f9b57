// The container's ld.so.cache written natively (no exec of ldconfig): the directories ldconfig
// would scan (command-line folders, /etc/ld.so.conf with its includes, the system dirs, their
// glibc-hwcaps subdirectories) are read through the rootfs fd, the ELF sonames taken from the
// libraries, the soname links ldconfig would create made, and the cache written in glibc's new
// format ("glibc-ld.so.cache1.1", the only one Debian 12's ldconfig writes) with the same entry
// order, string table and extensions, then renamed into place. The scan runs in a forked child
// with dropped credentials, no capabilities, no_new_privs and a seccomp allow-list: the image's
// files are never parsed in the caller's process. Trees this writer does not model (legacy
// hwcap subdirectories, x86 ISA-level markers) answer ENOTSUP and write_ldcache() then runs
// the host's ldconfig in its sandbox (ldconfig.hpp) instead.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/mount/in_root.hpp"
#include "nvct/mount/ldcache_format.hpp"  // LdcacheEntry, kLdcacheGenerator; and for includers
#include "nvct/mount/ldconfig.hpp"

namespace nvct::mount {

struct LdcacheScanOptions {
  std::vector<std::string> folders;        // scanned first, in order
  std::string config = "/etc/ld.so.conf";  // "" = none
  std::vector<std::string> system_dirs = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"};
  bool create_links = true;  // ldconfig without -N/-X
};

struct LdcacheScan {
  std::vector<LdcacheEntry> entries;
  std::vector<std::string> hwcaps_names;
};

// Scans in-root (every path resolved by the kernel relative to the rootfs fd) and, as
// ldconfig does, creates the missing soname links and removes dangling "*.so.*" links in the
// scanned directories. ENOTSUP: a tree this writer does not model.
Result<LdcacheScan> scan_ldcache(const Root& rootfs, const LdcacheScanOptions& options);

// Writes `bytes` to `cache_path` in-root: a temp file of this writer's own (".<name>.<pid>-XXXXXX",
// O_EXCL|O_NOFOLLOW, mode 0644) renamed over the cache, so hooks sharing a rootfs never touch each
// other's temp file; stale ones of killed writers are removed. No fsync: the hook rewrites the
// file at every container start.
Status write_ldcache_file(const Root& rootfs, const std::string& cache_path,
                          std::string_view bytes);

// scan + bytes + write, in the caller's process (tests; the sandboxed path below is the one
// configure uses).
Status update_ldcache_in_process(const Root& rootfs, const LdcacheScanOptions& options,
                                 std::string_view generator = kLdcacheGenerator);

// The sandboxed native writer: a forked child joins the container's mount namespace (when
// options.container_pid is set), reopens the rootfs and checks it is the same inode, drops to
// options.uid/gid with no capabilities, no_new_privs, rlimits and a seccomp allow-list, then
// runs update_ldcache_in_process. options.host_ldconfig is not used.
Status write_ldcache_native(const Root& rootfs, const LdconfigOptions& options);

// What configure calls: the native writer, or run_ldconfig when `exec_ldconfig` is set (the
// config switch) or the native writer answers ENOTSUP.
Status write_ldcache(const Root& rootfs, const LdconfigOptions& options, bool exec_ldconfig);

}  // namespace nvct::mount
