// ld.so.cache parsing (spec/driver.md §9). The cache of a driver root is untrusted input: every
// offset and string is bounds-checked against the buffer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"

namespace nvct::driver {

// Entry flag bits (driver.md §9.3).
inline constexpr std::uint32_t kLdTypeMask = 0x00ff;
inline constexpr std::uint32_t kLdTypeElf = 0x0001;
inline constexpr std::uint32_t kLdArchMask = 0xff00;
inline constexpr std::uint32_t kLdArchI386 = 0x0000;
inline constexpr std::uint32_t kLdArchPpc64 = 0x0500;
inline constexpr std::uint32_t kLdArchX8664 = 0x0300;
inline constexpr std::uint32_t kLdArchArmHardFloat = 0x0900;
inline constexpr std::uint32_t kLdArchAArch64 = 0x0a00;

inline constexpr std::string_view kLdCacheOldMagic = "ld.so-1.7.0";
inline constexpr std::string_view kLdCacheNewMagic = "glibc-ld.so.cache1.1";
inline constexpr std::uint32_t kLdCacheExtensionMagic = 0xEAA42174u;

struct LdCacheEntry {
  std::int32_t flags = 0;
  std::string key;    // soname
  std::string value;  // full path
  std::uint32_t osversion = 0;
  std::uint64_t hwcap = 0;
};

struct LdCache {
  bool has_old_format = false;        // compat file: old entries precede the new header
  std::vector<LdCacheEntry> entries;  // new-format entries, in file order
  std::string generator;              // extension tag 0, when present and well-formed
};

// Parses a cache image. Old-only, truncated or malformed caches fail with a message that says
// which field is wrong; "unsupported file format" for a missing or unknown new header.
Result<LdCache> parse_ldcache(std::string_view data);

// The accept rule of the reference: an ELF entry of exactly the wanted architecture.
inline bool ldcache_entry_matches(std::int32_t flags, std::uint32_t arch) {
  auto f = static_cast<std::uint32_t>(flags);
  return (f & kLdTypeElf) != 0 && (f & kLdArchMask) == arch;
}

// Architecture flags of this build's native libraries and of its 32-bit compat libraries
// (nullopt where there is none, e.g. ppc64le).
std::uint32_t native_ldcache_arch();
std::optional<std::uint32_t> compat32_ldcache_arch();

// "libc6,x86-64"-style description as printed by `ldconfig -p` (type and arch only).
std::string describe_ldcache_flags(std::int32_t flags);

}  // namespace nvct::driver
