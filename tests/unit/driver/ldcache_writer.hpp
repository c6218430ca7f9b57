// Builds ld.so.cache images for tests: new format (glibc >= 2.32 default), old+new ("compat"),
// with an optional glibc 2.33 extension block carrying a generator string.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace nvct::driver::testing {

struct CacheEntrySpec {
  std::int32_t flags;
  std::string key;
  std::string value;
};

inline void put_u32(std::string& s, std::size_t off, std::uint32_t v) {
  std::memcpy(s.data() + off, &v, 4);
}
inline void append_u32(std::string& s, std::uint32_t v) {
  s.append(4, '\0');
  put_u32(s, s.size() - 4, v);
}

inline std::string build_ldcache(const std::vector<CacheEntrySpec>& entries,
                                 bool old_prefix = false, const std::string& generator = "") {
  std::string old;
  if (old_prefix) {
    old = std::string("ld.so-1.7.0") + '\0';
    append_u32(old, static_cast<std::uint32_t>(entries.size()));
    old.append(12 * entries.size(), '\0');
    while (old.size() % 8) old.push_back('\0');
  }
  std::string h = "glibc-ld.so.cache1.1";
  h.append(28, '\0');
  put_u32(h, 20, static_cast<std::uint32_t>(entries.size()));
  h[28] = 2;  // little endian
  std::size_t strings_at = 48 + 24 * entries.size();
  std::string strings;
  std::string table(24 * entries.size(), '\0');
  for (std::size_t i = 0; i < entries.size(); ++i) {
    auto key_off = static_cast<std::uint32_t>(strings_at + strings.size());
    strings += entries[i].key + '\0';
    auto value_off = static_cast<std::uint32_t>(strings_at + strings.size());
    strings += entries[i].value + '\0';
    put_u32(table, 24 * i, static_cast<std::uint32_t>(entries[i].flags));
    put_u32(table, 24 * i + 4, key_off);
    put_u32(table, 24 * i + 8, value_off);
    if (old_prefix) {
      put_u32(old, 16 + 12 * i, static_cast<std::uint32_t>(entries[i].flags));
      put_u32(old, 16 + 12 * i + 4, key_off);
      put_u32(old, 16 + 12 * i + 8, value_off);
    }
  }
  put_u32(h, 24, static_cast<std::uint32_t>(strings.size()));
  std::string out = old + h + table + strings;
  if (!generator.empty()) {
    while (out.size() % 4) out.push_back('\0');
    auto ext = static_cast<std::uint32_t>(out.size());
    put_u32(out, old.size() + 32, ext);
    append_u32(out, 0xEAA42174u);
    append_u32(out, 1);
    append_u32(out, 0);  // tag: generator
    append_u32(out, 0);
    append_u32(out, ext + 24);
    append_u32(out, static_cast<std::uint32_t>(generator.size()));
    out += generator;
  }
  return out;
}

}  // namespace nvct::driver::testing
