// The ld.so.cache format (ldcache_format.hpp): glibc 2.36's elf/cache.c save_cache for the new
// format (header, entries sorted as ldconfig sorts them, string table with tail merging,
// extension directory with the generator and glibc-hwcaps sections), and its reader.
#include "nvct/mount/ldcache_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>

// The helpers live in this file's own namespace: src/mount is a unity build, and names in an
// anonymous namespace of another file of the module would share one scope with these.
namespace nvct::mount::ldcache_format_detail {
namespace {

constexpr char kMagicNew[] = "glibc-ld.so.cache";  // 17 bytes without the NUL
constexpr char kVersionNew[] = "1.1";
constexpr std::uint32_t kExtensionMagic = 0xeaa42174u;
constexpr std::uint64_t kHwcapExtension = 1ULL << 62;
constexpr std::size_t kHeaderSize = 48;
constexpr std::size_t kEntrySize = 24;

void put32(std::string& out, std::size_t at, std::uint32_t v) { std::memcpy(&out[at], &v, 4); }
void put64(std::string& out, std::size_t at, std::uint64_t v) { std::memcpy(&out[at], &v, 8); }
std::uint32_t get32(std::string_view in, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, in.data() + at, 4);
  return v;
}

// ldconfig's order (elf/cache.c compare): a negative answer puts `a` first.
int entry_compare(const LdcacheEntry& a, const LdcacheEntry& b) {
  int res = ldcache_libcmp(b.key, a.key);
  if (res != 0) return res;
  if (a.flags < b.flags) return 1;
  if (a.flags > b.flags) return -1;
  if (!a.hwcaps.empty() && b.hwcaps.empty()) return -1;
  if (a.hwcaps.empty() && !b.hwcaps.empty()) return 1;
  if (!a.hwcaps.empty()) return a.hwcaps.compare(b.hwcaps);
  return 0;
}

// glibc's stringtable_finalize: strings in descending order of their reversed bytes, longer first
// on a common suffix, each one either a tail of the previous one or appended after it.
struct StringTable {
  std::map<std::string, std::uint32_t> offsets;
  std::string bytes;

  explicit StringTable(const std::vector<std::string>& strings) {
    std::vector<const std::string*> order;
    for (const auto& s : strings) offsets.emplace(s, 0);
    for (const auto& [s, _] : offsets) order.push_back(&s);
    std::sort(order.begin(), order.end(), [](const std::string* l, const std::string* r) {
      std::size_t n = std::min(l->size(), r->size());
      for (std::size_t i = 1; i <= n; ++i) {
        auto lc = static_cast<unsigned char>((*l)[l->size() - i]);
        auto rc = static_cast<unsigned char>((*r)[r->size() - i]);
        if (lc != rc) return lc > rc;
      }
      return l->size() > r->size();
    });
    if (order.empty()) return;
    std::uint32_t offset = 0;
    offsets[*order[0]] = 0;
    for (std::size_t j = 1; j < order.size(); ++j) {
      const std::string& prev = *order[j - 1];
      const std::string& cur = *order[j];
      std::uint32_t prev_off = offsets[prev];
      if (prev.size() >= cur.size() && prev.compare(prev.size() - cur.size(), cur.size(), cur) == 0)
        offset = static_cast<std::uint32_t>(prev_off + prev.size() - cur.size());
      else
        offset = static_cast<std::uint32_t>(prev_off + prev.size() + 1);
      offsets[cur] = offset;
    }
    const std::string& last = *order.back();
    bytes.assign(offsets[last] + last.size() + 1, '\0');
    for (const auto& [s, off] : offsets)
      if (bytes[off] == '\0') std::memcpy(&bytes[off], s.data(), s.size());
  }
};

}  // namespace
}  // namespace nvct::mount::ldcache_format_detail

namespace nvct::mount {

int ldcache_libcmp(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size()) {
    if (digit(a[i])) {
      if (j >= b.size() || !digit(b[j])) return 1;
      long long va = 0, vb = 0;
      while (i < a.size() && digit(a[i])) va = va * 10 + (a[i++] - '0');
      while (j < b.size() && digit(b[j])) vb = vb * 10 + (b[j++] - '0');
      if (va != vb) return va < vb ? -1 : 1;
    } else if (j < b.size() && digit(b[j])) {
      return -1;
    } else if (j >= b.size()) {
      return static_cast<signed char>(a[i]);
    } else if (a[i] != b[j]) {
      return static_cast<int>(static_cast<signed char>(a[i])) -
             static_cast<int>(static_cast<signed char>(b[j]));
    } else {
      ++i;
      ++j;
    }
  }
  return j < b.size() ? -static_cast<int>(static_cast<signed char>(b[j])) : 0;
}

std::string ldcache_bytes(const std::vector<LdcacheEntry>& input,
                          const std::vector<std::string>& hwcaps_names,
                          std::string_view generator) {
  using namespace ldcache_format_detail;
  std::vector<LdcacheEntry> entries = input;
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const LdcacheEntry& a, const LdcacheEntry& b) { return entry_compare(a, b) < 0; });
  std::vector<std::string> strings;
  for (const auto& e : entries) {
    strings.push_back(e.key);
    strings.push_back(e.path);
  }
  for (const auto& h : hwcaps_names) strings.push_back(h);
  StringTable table(strings);

  // Section indices of the glibc-hwcaps names that hold a library, in name order.
  std::vector<std::string> used;
  for (const auto& e : entries)
    if (!e.hwcaps.empty() && std::find(used.begin(), used.end(), e.hwcaps) == used.end())
      used.push_back(e.hwcaps);
  std::sort(used.begin(), used.end());

  std::size_t n = entries.size();
  auto str_offset = static_cast<std::uint32_t>(kHeaderSize + n * kEntrySize);
  std::size_t ext_offset = (str_offset + table.bytes.size() + 3) & ~std::size_t{3};
  std::uint32_t sections = used.empty() ? 1 : 2;
  // Extension directory, then the glibc-hwcaps name array (if any), then the generator string.
  std::size_t hw_offset = ext_offset + 8 + 16 * sections;
  std::size_t gen_offset = hw_offset + 4 * used.size();
  std::size_t total = gen_offset + generator.size();

  std::string out(total, '\0');
  std::memcpy(&out[0], kMagicNew, 17);
  std::memcpy(&out[17], kVersionNew, 3);
  put32(out, 20, static_cast<std::uint32_t>(n));
  put32(out, 24, static_cast<std::uint32_t>(table.bytes.size()));
  out[28] = 2;  // cache_file_new_flags_endian_little
  put32(out, 32, static_cast<std::uint32_t>(ext_offset));
  for (std::size_t i = 0; i < n; ++i) {
    const auto& e = entries[i];
    std::size_t at = kHeaderSize + i * kEntrySize;
    put32(out, at, static_cast<std::uint32_t>(e.flags));
    put32(out, at + 4, str_offset + table.offsets[e.key]);
    put32(out, at + 8, str_offset + table.offsets[e.path]);
    std::uint64_t hwcap = 0;
    if (!e.hwcaps.empty())
      hwcap = kHwcapExtension | static_cast<std::uint64_t>(
                                    std::find(used.begin(), used.end(), e.hwcaps) - used.begin());
    put64(out, at + 16, hwcap);
  }
  std::memcpy(&out[str_offset], table.bytes.data(), table.bytes.size());
  put32(out, ext_offset, kExtensionMagic);
  put32(out, ext_offset + 4, sections);
  put32(out, ext_offset + 8, 0);  // cache_extension_tag_generator
  put32(out, ext_offset + 12, 0);
  put32(out, ext_offset + 16, static_cast<std::uint32_t>(gen_offset));
  put32(out, ext_offset + 20, static_cast<std::uint32_t>(generator.size()));
  std::memcpy(&out[gen_offset], generator.data(), generator.size());
  if (!used.empty()) {
    put32(out, ext_offset + 24, 1);  // cache_extension_tag_glibc_hwcaps
    put32(out, ext_offset + 28, 0);
    put32(out, ext_offset + 32, static_cast<std::uint32_t>(hw_offset));
    put32(out, ext_offset + 36, static_cast<std::uint32_t>(4 * used.size()));
    for (std::size_t i = 0; i < used.size(); ++i)
      put32(out, hw_offset + 4 * i, str_offset + table.offsets[used[i]]);
  }
  return out;
}

Result<std::vector<LdcacheRecord>> parse_ldcache(std::string_view bytes) {
  using namespace ldcache_format_detail;
  if (bytes.size() < kHeaderSize || bytes.compare(0, 17, kMagicNew) != 0 ||
      bytes.compare(17, 3, kVersionNew) != 0)
    return fail(EINVAL, "not a glibc-ld.so.cache1.1 file");
  std::uint32_t n = get32(bytes, 20);
  if (n > (bytes.size() - kHeaderSize) / kEntrySize)
    return fail(EINVAL, fmt::format("ld.so.cache claims {} entries in {} bytes", n, bytes.size()));
  auto str = [&](std::uint32_t off) -> Result<std::string> {
    if (off >= bytes.size()) return fail(EINVAL, fmt::format("string offset {} past the end", off));
    std::size_t end = bytes.find('\0', off);
    if (end == std::string_view::npos) return fail(EINVAL, "unterminated string");
    return std::string(bytes.substr(off, end - off));
  };
  std::vector<LdcacheRecord> out;
  for (std::uint32_t i = 0; i < n; ++i) {
    std::size_t at = kHeaderSize + i * kEntrySize;
    LdcacheRecord r;
    r.flags = static_cast<std::int32_t>(get32(bytes, at));
    NVCT_ASSIGN_OR_RETURN(r.key, str(get32(bytes, at + 4)));
    NVCT_ASSIGN_OR_RETURN(r.path, str(get32(bytes, at + 8)));
    std::memcpy(&r.hwcap, bytes.data() + at + 16, 8);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace nvct::mount
