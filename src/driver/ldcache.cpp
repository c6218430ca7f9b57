#include "nvct/driver/ldcache.hpp"

#include <fmt/format.h>

#include <cstring>

namespace nvct::driver {
namespace {

constexpr std::size_t kOldHeaderSize = 16;  // magic(11) + pad(1) + nlibs(4)
constexpr std::size_t kOldEntrySize = 12;
constexpr std::size_t kNewHeaderSize = 48;
constexpr std::size_t kNewEntrySize = 24;
constexpr std::size_t kNewHeaderAlign = 8;

// Little-endian loads; callers have checked the bounds.
std::uint32_t load_u32(std::string_view d, std::size_t off) {
  std::uint32_t v;
  std::memcpy(&v, d.data() + off, sizeof v);
  return v;
}
std::uint64_t load_u64(std::string_view d, std::size_t off) {
  std::uint64_t v;
  std::memcpy(&v, d.data() + off, sizeof v);
  return v;
}

// A NUL-terminated string at base+rel; the terminator must lie inside the buffer.
Result<std::string> string_at(std::string_view d, std::size_t base, std::uint32_t rel,
                              std::string_view what, std::size_t index) {
  std::uint64_t off = std::uint64_t{base} + rel;
  if (off >= d.size())
    return fail(fmt::format("entry {}: {} offset {:#x} is outside the file", index, what, rel));
  const char* start = d.data() + off;
  const void* nul = std::memchr(start, '\0', d.size() - off);
  if (!nul) return fail(fmt::format("entry {}: {} string is not terminated", index, what));
  return std::string(start, static_cast<const char*>(nul));
}

// The extension block is informational (the reference ignores it): a malformed one leaves the
// generator empty instead of rejecting a cache glibc itself would use.
std::string parse_generator(std::string_view d, std::uint32_t ext_off) {
  if (ext_off == 0 || std::uint64_t{ext_off} + 8 > d.size()) return {};
  if (load_u32(d, ext_off) != kLdCacheExtensionMagic) return {};
  std::uint32_t count = load_u32(d, ext_off + 4);
  std::uint64_t sections = std::uint64_t{ext_off} + 8;
  if (sections + std::uint64_t{count} * 16 > d.size()) return {};
  for (std::uint32_t i = 0; i < count; ++i) {
    std::size_t s = static_cast<std::size_t>(sections + std::uint64_t{i} * 16);
    if (load_u32(d, s) != 0) continue;  // tag 0: generator
    std::uint64_t off = load_u32(d, s + 8), size = load_u32(d, s + 12);
    if (off + size > d.size()) return {};
    std::string_view text = d.substr(static_cast<std::size_t>(off), static_cast<std::size_t>(size));
    return std::string(text.substr(0, text.find('\0')));
  }
  return {};
}

}  // namespace

Result<LdCache> parse_ldcache(std::string_view d) {
  LdCache cache;
  std::size_t header = 0;
  if (d.substr(0, kLdCacheOldMagic.size()) == kLdCacheOldMagic) {
    if (d.size() < kOldHeaderSize) return fail("unsupported file format: truncated old header");
    std::uint64_t nold = load_u32(d, 12);
    std::uint64_t end = kOldHeaderSize + nold * kOldEntrySize;
    end = (end + kNewHeaderAlign - 1) / kNewHeaderAlign * kNewHeaderAlign;
    if (end >= d.size()) return fail("unsupported file format: no new-format header");
    header = static_cast<std::size_t>(end);
    cache.has_old_format = true;
  }
  // The reference also rejects a file no larger than the header (size <= header size).
  if (d.size() - header <= kNewHeaderSize ||
      d.substr(header, kLdCacheNewMagic.size()) != kLdCacheNewMagic)
    return fail("unsupported file format");
  std::uint64_t nlibs = load_u32(d, header + 20);
  std::uint32_t ext_off = load_u32(d, header + 32);
  std::uint64_t entries_end = header + kNewHeaderSize + nlibs * kNewEntrySize;
  if (entries_end > d.size())
    return fail(
        fmt::format("unsupported file format: {} entries do not fit in {} bytes", nlibs, d.size()));
  cache.entries.reserve(static_cast<std::size_t>(nlibs));
  for (std::size_t i = 0; i < nlibs; ++i) {
    std::size_t e = header + kNewHeaderSize + i * kNewEntrySize;
    LdCacheEntry entry;
    entry.flags = static_cast<std::int32_t>(load_u32(d, e));
    NVCT_ASSIGN_OR_RETURN(entry.key, string_at(d, header, load_u32(d, e + 4), "key", i));
    NVCT_ASSIGN_OR_RETURN(entry.value, string_at(d, header, load_u32(d, e + 8), "value", i));
    entry.osversion = load_u32(d, e + 12);
    entry.hwcap = load_u64(d, e + 16);
    cache.entries.push_back(std::move(entry));
  }
  cache.generator = parse_generator(d, ext_off);
  return cache;
}

std::uint32_t native_ldcache_arch() {
#if defined(__x86_64__)
  return kLdArchX8664;
#elif defined(__aarch64__)
  return kLdArchAArch64;
#elif defined(__powerpc64__)
  return kLdArchPpc64;
#else
#error "unsupported architecture"
#endif
}

std::optional<std::uint32_t> compat32_ldcache_arch() {
#if defined(__x86_64__)
  return kLdArchI386;
#elif defined(__aarch64__)
  return kLdArchArmHardFloat;
#else
  return std::nullopt;
#endif
}

std::string describe_ldcache_flags(std::int32_t flags) {
  auto f = static_cast<std::uint32_t>(flags);
  std::string type;
  switch (f & kLdTypeMask) {
    case 0x01:
      type = "ELF";
      break;
    case 0x02:
      type = "libc5";
      break;
    case 0x03:
      type = "libc6";
      break;
    default:
      type = "unknown";
      break;
  }
  switch (f & kLdArchMask) {
    case kLdArchI386:
      return type;
    case kLdArchX8664:
      return type + ",x86-64";
    case kLdArchAArch64:
      return type + ",AArch64";
    case kLdArchArmHardFloat:
      return type + ",hard-float";
    case kLdArchPpc64:
      return type + ",64bit";
    case 0x0800:
      return type + ",x32";
    default:
      return fmt::format("{},arch {:#06x}", type, f & kLdArchMask);
  }
}

}  // namespace nvct::driver
