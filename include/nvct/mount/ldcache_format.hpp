// The ld.so.cache file format the native writer (ldcache_writer.hpp) produces: glibc's new format
// ("glibc-ld.so.cache1.1", the only one Debian 12's ldconfig writes), laid out byte for byte as
// ldconfig lays it out (entry order, string table with tail merging, extension directory), so
// the container's cache is the same file whichever of the two wrote it; and a parser of that
// format for the tests and diagnostics.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"

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

}  // namespace nvct::mount
