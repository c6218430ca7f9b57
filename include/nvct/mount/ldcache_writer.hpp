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

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/mount/in_root.hpp"
#include "nvct/mount/ldconfig.hpp"

namespace nvct::mount {

// The generator string of the cache's extension section (ld.so ignores it). Debian 12's own
// ldconfig writes "ldconfig (Debian GLIBC 2.36-9+deb12uN) stable release version 2.36".
inline constexpr std::string_view kLdcacheGenerator = "ldconfig (nvct) release version 2.36";

// ld.so.cache flag values (glibc's FLAG_*), as stored in each entry.
inline constexpr std::int32_t kLdcacheFlagElf = 0x0001;
inline constexpr std::int32_t kLdcacheFlagLibc6 = 0x0003;
inline constexpr std::int32_t kLdcacheFlagX8664Lib64 = 0x0300;
inline constexpr std::int32_t kLdcacheFlagX8664Libx32 = 0x0800;

// One cache entry before layout: `key` is the soname, `path` the directory as configured + "/" +
// the soname (the real file name in a glibc-hwcaps subdirectory).
struct LdcacheEntry {
  std::string key;
  std::string path;
  std::int32_t flags = 0;
  std::string hwcaps;  // glibc-hwcaps subdirectory name ("x86-64-v3"); "" = none
};

// glibc's _dl_cache_libcmp: digit runs compare numerically.
int ldcache_libcmp(std::string_view a, std::string_view b);

// The cache file's bytes for entries given in ldconfig's insertion order (they are sorted
// here as ldconfig sorts them). `hwcaps_names`: every glibc-hwcaps subdirectory name met
// during the scan (ldconfig interns them even when they hold no library).
std::string ldcache_bytes(const std::vector<LdcacheEntry>& entries,
                          const std::vector<std::string>& hwcaps_names,
                          std::string_view generator = kLdcacheGenerator);

// The parsed header + entries of a cache file (tests, diagnostics): key, path, flags, hwcap.
struct LdcacheRecord {
  std::string key, path;
  std::int32_t flags = 0;
  std::uint64_t hwcap = 0;
};
Result<std::vector<LdcacheRecord>> parse_ldcache(std::string_view bytes);

struct LdcacheScanOptions {
  std::vector<std::string> folders;                 // scanned first, in order
  std::string config = "/etc/ld.so.conf";           // "" = none
  std::vector<std::string> system_dirs = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"};
  bool create_links = true;                         // ldconfig without -N/-X
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
