// The fatbin container (§3.2): a 16-byte header and entries, many containers back to back in a
// section. Every size is checked against the container and the region with overflow checks, and
// the walk always moves forward, so a hostile size cannot loop or read outside the region.
#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "fatbin_scan.hpp"

namespace nvct::compat::detail {

namespace {

constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;
constexpr std::uint64_t kContainerHeader = 16;
constexpr std::uint64_t kEntryHeaderMin = 64;
constexpr std::uint64_t kMaxContainerHeader = 4096;
constexpr std::uint64_t kPtxPeek = 4096;

constexpr std::uint64_t kFlagCompressedLz = 0x2000;
constexpr std::uint64_t kFlagCompressedZstd = 0x8000;
constexpr std::uint64_t kFlagCompressedOther = 0x1000;

std::uint64_t fatbin_align8(std::uint64_t v) {
  return v > UINT64_MAX - 7 ? UINT64_MAX : (v + 7) & ~std::uint64_t{7};
}

std::string fatbin_region_name(std::string_view section) {
  return section.empty() ? std::string("the fatbin file") : fmt::format("section {}", section);
}

// The next offset >= from (8-byte aligned, relative to the region) holding the magic, or
// region.size when there is none. Reads 64 KiB at a time.
std::uint64_t find_fatbin_magic(const Window& region, std::uint64_t from) {
  constexpr std::size_t kChunk = 64 * 1024;
  unsigned char m[4];
  const std::uint64_t start = fatbin_align8(from);
  if (region.read(start, m, 4) && le32(m) == kFatbinMagic) return start;  // the common case
  for (std::uint64_t pos = start; pos + 4 <= region.size;) {
    std::string chunk = region.read_some(pos, kChunk);
    if (chunk.size() < 4) break;
    for (std::size_t i = 0; i + 4 <= chunk.size(); i += 8) {
      if (le32(reinterpret_cast<const unsigned char*>(chunk.data() + i)) == kFatbinMagic)
        return pos + i;
    }
    pos += chunk.size();  // kChunk is a multiple of 8: alignment is kept
  }
  return region.size;
}

struct ParsedContainer {
  Container container;
  std::vector<CodeEntry> entries;
  std::vector<std::string> warnings;
};

// Fills the payload-derived fields of an uncompressed entry: cubin e_flags, PTX `.target`.
void inspect_payload(const Window& payload, CodeEntry& e, std::vector<std::string>& warnings) {
  if (e.compressed) return;
  if (e.kind == EntryKind::sass) {
    auto h = read_cubin_header(payload);
    if (!h) {
      warnings.push_back(
          fmt::format("fatbin entry at file offset {} (container {}, entry {}): "
                      "ELF entry whose payload is not an ELF file",
                      hex(e.file_offset), e.container, e.index));
      return;
    }
    e.elf_flags = h->e_flags;
    e.elf_abi_version = h->abi_version;
    e.elf_sm = h->sm;
    if (h->sm) {
      e.arch_specific = h->arch_specific;
      if (*h->sm != e.arch) {
        warnings.push_back(fmt::format(
            "fatbin entry at file offset {} (container {}, entry {}): header says sm_{} but the "
            "cubin's e_flags say sm_{}",
            hex(e.file_offset), e.container, e.index, e.arch, *h->sm));
      }
    }
  } else if (e.kind == EntryKind::ptx) {
    auto head = parse_ptx_head(payload.read_some(0, kPtxPeek));
    if (head) e.arch_specific = head->arch_specific;
  }
}

// Parses the container at `off` of the region. On a malformed structure returns false with
// *err_off / *err set (file offset, message).
bool parse_container(ScanState& st, const Window& region, std::string_view section,
                     std::uint64_t off, std::uint32_t index, ParsedContainer* pc,
                     std::uint64_t* err_off, std::string* err,
                     std::optional<std::uint32_t>* err_entry) {
  const std::uint64_t region_end = region.base + region.size;
  const std::string where = fmt::format("(container {})", index);
  unsigned char h[kContainerHeader];
  if (!region.read(off, h, sizeof h)) {
    *err_off = region.base + off;
    *err = fmt::format("fatbin container header at file offset {} {} runs past the end of {} ({})",
                       hex(region.base + off), where, fatbin_region_name(section), hex(region_end));
    return false;
  }
  const std::uint16_t version = le16(h + 4);
  const std::uint64_t header_size = le16(h + 6);
  const std::uint64_t entries_size = le64(h + 8);
  *err_off = region.base + off;
  if (header_size < kContainerHeader || header_size > kMaxContainerHeader) {
    *err = fmt::format("fatbin container at file offset {} {} has header size {} (expected 16)",
                       hex(region.base + off), where, header_size);
    return false;
  }
  std::uint64_t end = 0;
  const std::string past_region = fmt::format(
      "fatbin container at file offset {} {} declares {} bytes of entries, past the end of {} ({})",
      hex(region.base + off), where, hex(entries_size), fatbin_region_name(section),
      hex(region_end));
  if (add_overflows(off, header_size, &end) || add_overflows(end, entries_size, &end)) {
    *err = past_region;
    return false;
  }
  // A container cut short (a truncated section): the entries are walked up to the end of the
  // region, so the error names the first entry that crosses it.
  const bool truncated = end > region.size;
  if (truncated) end = region.size;
  pc->container =
      Container{index, region.base + off, end - off, version, std::string(section), st.member, 0};

  std::uint64_t e = off + header_size;
  std::uint32_t n = 0;
  while (e < end) {
    const std::uint64_t left = end - e;
    *err_off = region.base + e;
    *err_entry = n;
    const std::string ewhere = fmt::format("(container {}, entry {})", index, n);
    if (truncated && left < kEntryHeaderMin) {
      *err =
          fmt::format("fatbin entry at file offset {} {} runs past the end of {} ({})",
                      hex(region.base + e), ewhere, fatbin_region_name(section), hex(region_end));
      return false;
    }
    if (left < kEntryHeaderMin) {
      std::string rest = region.read_some(e, left);
      if (std::all_of(rest.begin(), rest.end(), [](char c) { return c == 0; })) break;  // padding
      *err = fmt::format(
          "fatbin entry at file offset {} {} needs a 64-byte header but only {} "
          "bytes are left in its container (ends at {})",
          hex(region.base + e), ewhere, left, hex(region.base + end));
      return false;
    }
    if (++st.entry_work > kMaxEntryWork) {
      *err = fmt::format("more than {} fatbin entry headers in the file (limit)", kMaxEntryWork);
      return false;
    }
    if (n >= st.limits->max_entries) {
      *err = fmt::format("fatbin container at file offset {} has more than {} entries (limit)",
                         hex(region.base + off), st.limits->max_entries);
      return false;
    }
    unsigned char eh[kEntryHeaderMin];
    if (!region.read(e, eh, sizeof eh)) {
      *err = fmt::format("fatbin entry at file offset {} {} cannot be read", hex(region.base + e),
                         ewhere);
      return false;
    }
    const std::uint16_t kind = le16(eh + 0);
    const std::uint64_t ehsize = le32(eh + 4);
    const std::uint64_t payload = le64(eh + 8);
    if (ehsize < kEntryHeaderMin || ehsize > st.limits->max_entry_header) {
      *err = fmt::format("fatbin entry at file offset {} {} has header size {} (expected 64 to {})",
                         hex(region.base + e), ewhere, ehsize, st.limits->max_entry_header);
      return false;
    }
    std::uint64_t next = 0;
    if (add_overflows(e, ehsize, &next) || add_overflows(next, payload, &next) || next > end) {
      if (truncated) {
        *err =
            fmt::format("fatbin entry at file offset {} {} runs past the end of {} ({})",
                        hex(region.base + e), ewhere, fatbin_region_name(section), hex(region_end));
        return false;
      }
      *err = fmt::format(
          "fatbin entry at file offset {} {} with a {}-byte header and {} bytes of payload runs "
          "past the end of its container ({}) in {}",
          hex(region.base + e), ewhere, ehsize, hex(payload), hex(region.base + end),
          fatbin_region_name(section));
      return false;
    }
    CodeEntry ce;
    ce.raw_kind = kind;
    ce.kind = kind == 1 ? EntryKind::ptx : kind == 2 ? EntryKind::sass : EntryKind::unknown;
    ce.header_size = ehsize;
    ce.payload_size = payload;
    ce.payload_offset = region.base + e + ehsize;
    ce.file_offset = region.base + e;
    const std::uint32_t compressed_size = le32(eh + 16);
    ce.version_minor = le16(eh + 24);
    ce.version_major = le16(eh + 26);
    ce.arch = le32(eh + 28);
    const std::uint32_t name_off = le32(eh + 32);
    const std::uint32_t name_len = le32(eh + 36);
    ce.flags = le64(eh + 40);
    ce.uncompressed_size = le64(eh + 56);
    if (ce.flags & kFlagCompressedZstd)
      ce.compression = Compression::zstd;
    else if (ce.flags & kFlagCompressedLz)
      ce.compression = Compression::lz;
    else if ((ce.flags & kFlagCompressedOther) || compressed_size != 0)
      ce.compression = Compression::other;
    ce.compressed = ce.compression != Compression::none;
    ce.container = index;
    ce.index = n;
    ce.member = st.member;
    if (name_off != 0 && name_len != 0) {
      if (name_off < kEntryHeaderMin || !in_range(name_off, name_len, ehsize)) {
        pc->warnings.push_back(
            fmt::format("fatbin entry at file offset {} {}: object name at "
                        "offset {} ({} bytes) lies outside its header",
                        hex(region.base + e), ewhere, name_off, name_len));
      } else {
        ce.name = region.read_some(e + name_off, std::min<std::uint32_t>(name_len, 1024));
        ce.name.resize(std::strlen(ce.name.c_str()));
      }
    }
    inspect_payload(region.sub(e + ehsize, payload), ce, pc->warnings);
    pc->entries.push_back(std::move(ce));
    ++n;
    e = next;
  }
  pc->container.entries = n;
  *err_entry = std::nullopt;
  if (truncated) {
    *err_off = region.base + off;
    *err = past_region;
    return false;
  }
  return true;
}

}  // namespace

bool scan_fatbin_region(ScanState& st, const Window& region, std::string_view section,
                        RegionMode mode) {
  std::uint64_t pos = 0;
  bool found = false;
  std::uint32_t in_region = 0;
  while (pos < region.size) {
    if (mode != RegionMode::single) {
      pos = find_fatbin_magic(region, pos);
      if (pos >= region.size) break;
    }
    const auto index = static_cast<std::uint32_t>(st.out->containers.size());
    if (in_region >= st.limits->max_containers) {
      return st.malformed(region.base + pos,
                          fmt::format("{} holds more than {} fatbin containers (limit)",
                                      fatbin_region_name(section), st.limits->max_containers),
                          index);
    }
    ParsedContainer pc;
    std::uint64_t err_off = 0;
    std::string err;
    std::optional<std::uint32_t> err_entry;
    if (!parse_container(st, region, section, pos, index, &pc, &err_off, &err, &err_entry)) {
      if (mode == RegionMode::lenient && st.entry_work <= kMaxEntryWork) {
        // The magic occurred by chance: keep looking.
        pos += 8;
        continue;
      }
      // Entries before the broken one are kept (the container is incomplete).
      for (auto& e : pc.entries) st.out->entries.push_back(std::move(e));
      return st.malformed(err_off, std::move(err), index, err_entry);
    }
    found = true;
    ++in_region;
    pos += pc.container.size;
    st.out->containers.push_back(std::move(pc.container));
    for (auto& e : pc.entries) st.out->entries.push_back(std::move(e));
    for (auto& w : pc.warnings) st.warn(std::move(w));
    if (mode == RegionMode::single) break;
  }
  if (!found && mode == RegionMode::strict) {
    return st.malformed(region.base,
                        fmt::format("{} at file offset {} ({} bytes) holds no fatbin container",
                                    fatbin_region_name(section), hex(region.base), region.size));
  }
  return true;
}

}  // namespace nvct::compat::detail
