// ELF files (32/64-bit, little-endian): the fatbin sections of a host ELF (§3.1), the PT_LOAD
// segments of one without section headers, and standalone cubins. Only headers, the section-name
// table entries we compare and the fatbin sections themselves are read.
#include <cstring>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "fatbin_scan.hpp"

namespace nvct::compat::detail {

namespace {

constexpr std::uint32_t kElfMaxSections = 1u << 20;
constexpr std::uint32_t kFatbinWrapperMagic = 0x466243B1;
constexpr std::uint32_t kShtNobits = 8;
constexpr std::uint32_t kPtLoad = 1;
constexpr std::uint64_t kMaxWrappers = 1024;
constexpr std::uint64_t kMaxWrapperSections = 65536;

struct ElfSection {
  std::uint32_t name = 0;
  std::uint32_t type = 0;
  std::uint64_t addr = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint32_t link = 0;
};

struct ElfLayout {
  bool is64 = false;
  std::uint64_t shoff = 0, phoff = 0;
  std::uint64_t shentsize = 0, phentsize = 0;
  std::uint64_t shnum = 0, phnum = 0, shstrndx = 0;
};

bool read_elf_section(const Window& w, const ElfLayout& l, std::uint64_t i, ElfSection* s) {
  unsigned char b[64];
  const std::uint64_t off = l.shoff + i * l.shentsize;  // bounds checked by the caller
  if (l.is64) {
    if (!w.read(off, b, 64)) return false;
    *s = {le32(b), le32(b + 4), le64(b + 16), le64(b + 24), le64(b + 32), le32(b + 40)};
  } else {
    if (!w.read(off, b, 40)) return false;
    *s = {le32(b), le32(b + 4), le32(b + 12), le32(b + 16), le32(b + 20), le32(b + 24)};
  }
  return true;
}

// The section name, if it is one of those the reader looks for (compared up to 32 bytes).
std::string elf_section_name(const Window& strtab, std::uint32_t off) {
  std::string s = strtab.read_some(off, 32);
  s.resize(std::strlen(s.c_str()));
  return s;
}

bool scan_pt_load(ScanState& st, const Window& w, const ElfLayout& l) {
  if (l.phnum == 0) return true;
  const std::uint64_t min_ent = l.is64 ? 56 : 32;
  if (l.phentsize < min_ent || l.phoff > w.size || l.phnum > (w.size - l.phoff) / l.phentsize) {
    return st.malformed(
        w.base + l.phoff,
        fmt::format("ELF program header table at file offset {} ({} entries of {} "
                    "bytes) runs past the end of the file ({})",
                    hex(w.base + l.phoff), l.phnum, l.phentsize, hex(w.base + w.size)));
  }
  for (std::uint64_t i = 0; i < l.phnum; ++i) {
    unsigned char b[56];
    const std::uint64_t off = l.phoff + i * l.phentsize;
    if (!w.read(off, b, min_ent))
      return st.malformed(w.base + off, "ELF program header cannot be read");
    std::uint32_t type = le32(b);
    std::uint64_t p_off = l.is64 ? le64(b + 8) : le32(b + 4);
    std::uint64_t p_filesz = l.is64 ? le64(b + 32) : le32(b + 16);
    if (type != kPtLoad || p_filesz == 0) continue;
    if (!in_range(p_off, p_filesz, w.size)) {
      return st.malformed(w.base + off,
                          fmt::format("ELF PT_LOAD segment {} at file offset {} ({} bytes) runs "
                                      "past the end of the file ({})",
                                      i, hex(w.base + p_off), hex(p_filesz), hex(w.base + w.size)));
    }
    if (!scan_fatbin_region(st, w.sub(p_off, p_filesz), "PT_LOAD", RegionMode::lenient))
      return false;
  }
  return true;
}

// .nvFatBinSegment wrappers point (by virtual address) at fatbins; used only when the file has
// no .nv_fatbin / __nv_relfatbin section, so nothing is counted twice.
bool scan_wrappers(ScanState& st, const Window& w, const ElfLayout& l, const ElfSection& seg) {
  if (!l.is64 || seg.type == kShtNobits) return true;
  if (!in_range(seg.offset, seg.size, w.size)) {
    return st.malformed(w.base + seg.offset,
                        fmt::format("ELF section .nvFatBinSegment at file offset {} ({} bytes) "
                                    "runs past the end of the file ({})",
                                    hex(w.base + seg.offset), hex(seg.size), hex(w.base + w.size)));
  }
  // The candidate targets, read once (bounded: wrappers x sections stays small).
  std::vector<ElfSection> targets;
  for (std::uint64_t k = 1; k < l.shnum && k < kMaxWrapperSections; ++k) {
    ElfSection s;
    if (read_elf_section(w, l, k, &s) && s.type != kShtNobits && s.addr != 0 &&
        in_range(s.offset, s.size, w.size)) {
      targets.push_back(s);
    }
  }
  std::set<std::uint64_t> seen;
  for (std::uint64_t i = 0; i < seg.size / 24 && i < kMaxWrappers; ++i) {
    unsigned char b[24];
    if (!w.read(seg.offset + i * 24, b, 24) || le32(b) != kFatbinWrapperMagic) continue;
    const std::uint64_t ptr = le64(b + 8);
    if (ptr == 0 || !seen.insert(ptr).second) continue;  // relocated at link time (.o)
    for (const ElfSection& s : targets) {
      if (ptr < s.addr || ptr - s.addr >= s.size) continue;
      const std::uint64_t at = s.offset + (ptr - s.addr);
      if (!scan_fatbin_region(st, w.sub(at, s.offset + s.size - at), ".nvFatBinSegment target",
                              RegionMode::single)) {
        return false;
      }
      break;
    }
  }
  return true;
}

}  // namespace

bool scan_elf(ScanState& st, const Window& w) {
  unsigned char e[64];
  if (!w.read(0, e, 16)) {
    if (st.depth == 0) st.out->kind = FileKind::host_elf;
    return st.malformed(w.base, "ELF identification is truncated");
  }
  const bool is64 = e[4] == 2;
  if ((e[4] != 1 && e[4] != 2) || e[5] != 1) {
    if (st.depth == 0) st.out->kind = FileKind::host_elf;
    st.warn(
        fmt::format("ELF file of class {} / data encoding {} is not read (little-endian ELF32 "
                    "and ELF64 only)",
                    e[4], e[5]));
    return true;
  }
  const std::size_t ehsize = is64 ? 64 : 52;
  if (!w.read(0, e, ehsize)) {
    if (st.depth == 0) st.out->kind = FileKind::host_elf;
    return st.malformed(
        w.base, fmt::format("ELF header is truncated ({} bytes, needs {})", w.size, ehsize));
  }
  if (auto cubin = read_cubin_header(w); cubin && cubin->is_cuda) {
    if (st.depth == 0) st.out->kind = FileKind::cubin;
    // Only the header is used, but a cubin whose section table lies outside it is broken.
    const std::uint64_t shoff = is64 ? le64(e + 40) : le32(e + 32);
    const std::uint64_t shentsize = le16(e + (is64 ? 58 : 46));
    const std::uint64_t shnum = le16(e + (is64 ? 60 : 48));
    if (shoff != 0 && (shoff > w.size || shnum * shentsize > w.size - shoff)) {
      return st.malformed(w.base + shoff,
                          fmt::format("cubin section header table at file offset {} ({} entries "
                                      "of {} bytes) runs past the end of the cubin ({})",
                                      hex(w.base + shoff), shnum, shentsize, hex(w.base + w.size)));
    }
    CodeEntry ce;
    ce.kind = EntryKind::sass;
    ce.arch = cubin->sm.value_or(0);
    if (cubin->sm) ce.arch_specific = cubin->arch_specific;
    ce.elf_flags = cubin->e_flags;
    ce.elf_sm = cubin->sm;
    ce.elf_abi_version = cubin->abi_version;
    ce.container = static_cast<std::uint32_t>(st.out->containers.size());
    ce.index = 0;
    ce.file_offset = w.base;
    ce.payload_offset = w.base;
    ce.payload_size = w.size;
    ce.member = st.member;
    if (!cubin->sm) {
      st.warn(
          fmt::format("cubin at file offset {} has ELF ABI version {}: its SM cannot be decoded "
                      "from e_flags {}",
                      hex(w.base), cubin->abi_version, hex(cubin->e_flags)));
    }
    st.out->entries.push_back(std::move(ce));
    return true;
  }
  if (st.depth == 0) st.out->kind = FileKind::host_elf;

  ElfLayout l;
  l.is64 = is64;
  if (is64) {
    l.phoff = le64(e + 32);
    l.shoff = le64(e + 40);
    l.phentsize = le16(e + 54);
    l.phnum = le16(e + 56);
    l.shentsize = le16(e + 58);
    l.shnum = le16(e + 60);
    l.shstrndx = le16(e + 62);
  } else {
    l.phoff = le32(e + 28);
    l.shoff = le32(e + 32);
    l.phentsize = le16(e + 42);
    l.phnum = le16(e + 44);
    l.shentsize = le16(e + 46);
    l.shnum = le16(e + 48);
    l.shstrndx = le16(e + 50);
  }
  if (l.shoff == 0) return scan_pt_load(st, w, l);

  const std::uint64_t min_ent = is64 ? 64 : 40;
  if (l.shentsize < min_ent) {
    return st.malformed(
        w.base, fmt::format("ELF section header size {} is smaller than {}", l.shentsize, min_ent));
  }
  if (!in_range(l.shoff, l.shentsize, w.size)) {
    return st.malformed(w.base + l.shoff,
                        fmt::format("ELF section header table at file offset {} lies past the end "
                                    "of the file ({})",
                                    hex(w.base + l.shoff), hex(w.base + w.size)));
  }
  ElfSection s0;
  if (!read_elf_section(w, l, 0, &s0))
    return st.malformed(w.base + l.shoff, "ELF section header 0 cannot be read");
  if (l.shnum == 0) l.shnum = s0.size;             // extended numbering
  if (l.shstrndx == 0xffff) l.shstrndx = s0.link;  // SHN_XINDEX
  if (l.shnum == 0) return scan_pt_load(st, w, l);
  if (l.shnum > kElfMaxSections || l.shnum > (w.size - l.shoff) / l.shentsize) {
    return st.malformed(
        w.base + l.shoff,
        fmt::format("ELF section header table at file offset {} ({} entries of {} "
                    "bytes) runs past the end of the file ({})",
                    hex(w.base + l.shoff), l.shnum, l.shentsize, hex(w.base + w.size)));
  }
  if (l.shstrndx >= l.shnum) {
    return st.malformed(
        w.base + l.shoff,
        fmt::format("ELF section-name table index {} is not below the section count {}", l.shstrndx,
                    l.shnum));
  }
  ElfSection strsec;
  if (!read_elf_section(w, l, l.shstrndx, &strsec))
    return st.malformed(w.base + l.shoff, "ELF section headers cannot be read");
  if (!in_range(strsec.offset, strsec.size, w.size)) {
    return st.malformed(
        w.base + l.shoff + l.shstrndx * l.shentsize,
        fmt::format("ELF section-name table at file offset {} ({} bytes) runs past "
                    "the end of the file ({})",
                    hex(w.base + strsec.offset), hex(strsec.size), hex(w.base + w.size)));
  }
  const Window strtab = w.sub(strsec.offset, strsec.size);

  const bool relocatable = le16(e + 16) == 1;  // ET_REL
  bool have_fatbin_section = false;
  std::optional<ElfSection> segment;
  for (std::uint64_t i = 1; i < l.shnum; ++i) {
    ElfSection s;
    const std::uint64_t hoff = l.shoff + i * l.shentsize;
    if (!read_elf_section(w, l, i, &s))
      return st.malformed(w.base + hoff, "ELF section header cannot be read");
    if (s.name >= strsec.size) continue;
    const std::string name = elf_section_name(strtab, s.name);
    if (name == ".nvFatBinSegment") {
      segment = s;
      continue;
    }
    if (name != ".nv_fatbin" && name != "__nv_relfatbin") continue;
    have_fatbin_section = true;
    // __nv_relfatbin is input to device linking: the code of a relocatable object (-rdc), but in
    // a linked file (libcudadevrt pulled in by nvcc's link) it is never registered or loaded,
    // and cuobjdump does not list it.
    if (name == "__nv_relfatbin" && !relocatable) continue;
    if (s.type == kShtNobits || s.size == 0) continue;
    if (!in_range(s.offset, s.size, w.size)) {
      return st.malformed(
          w.base + hoff,
          fmt::format("ELF section {} at file offset {} ({} bytes) runs past the "
                      "end of the file ({})",
                      name, hex(w.base + s.offset), hex(s.size), hex(w.base + w.size)));
    }
    if (!scan_fatbin_region(st, w.sub(s.offset, s.size), name, RegionMode::strict)) return false;
  }
  if (!have_fatbin_section && segment) return scan_wrappers(st, w, l, *segment);
  return true;
}

}  // namespace nvct::compat::detail
