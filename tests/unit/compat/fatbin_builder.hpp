// Builders of synthetic fatbins, cubins, host ELF files and `ar` archives for the reader's unit
// tests: small, exact byte layouts, so each malformed case changes one field.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "nvct/compat/fatbin.hpp"

namespace nvct::compat::fbt {

inline void put16(std::string& s, std::size_t off, std::uint16_t v) {
  for (int i = 0; i < 2; ++i) s[off + i] = static_cast<char>(v >> (8 * i));
}
inline void put32(std::string& s, std::size_t off, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s[off + i] = static_cast<char>(v >> (8 * i));
}
inline void put64(std::string& s, std::size_t off, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) s[off + i] = static_cast<char>(v >> (8 * i));
}

// A minimal cubin: an ELF64 header with EI_OSABI 0x33, e_machine 190 and these flags.
inline std::string cubin(std::uint8_t abi, std::uint32_t flags) {
  std::string e(64, '\0');
  std::memcpy(e.data(),
              "\x7f"
              "ELF",
              4);
  e[4] = 2;
  e[5] = 1;
  e[6] = 1;
  e[7] = 0x33;
  e[8] = static_cast<char>(abi);
  put16(e, 16, 2);
  put16(e, 18, 190);
  put32(e, 20, 1);
  put32(e, 48, flags);
  put16(e, 52, 64);
  return e;
}

struct EntrySpec {
  EntrySpec(std::uint16_t k = 2, std::uint32_t a = 80, std::uint16_t ma = 1, std::uint16_t mi = 7)
      : kind(k), arch(a), major(ma), minor(mi) {}
  std::uint16_t kind = 2;  // 1 PTX, 2 ELF
  std::uint32_t arch = 80;
  std::uint16_t major = 1, minor = 7;
  std::uint64_t flags = 0x11;
  std::uint32_t header_size = 64;
  std::uint32_t compressed_size = 0;
  std::string name;
  std::string payload;                        // default: a cubin for `arch` (ELF) or PTX text (PTX)
  std::optional<std::uint64_t> payload_size;  // override of the declared size
};

inline std::string entry(EntrySpec s) {
  if (s.payload.empty()) {
    s.payload = s.kind == 2 ? cubin(7, 0x00000500 | s.arch | (s.arch << 16))
                            : ".version 7.8\n.target sm_" + std::to_string(s.arch) + "\n";
  }
  while (s.payload.size() % 8) s.payload.push_back('\0');
  std::uint32_t hsize = s.header_size;
  std::string name_bytes = s.name;
  if (!name_bytes.empty() && hsize == 64) hsize = 64 + ((name_bytes.size() + 1 + 7) & ~7u);
  std::string h(std::max<std::uint32_t>(hsize, 64), '\0');
  put16(h, 0, s.kind);
  put16(h, 2, 0x0101);
  put32(h, 4, hsize);
  put64(h, 8, s.payload_size.value_or(s.payload.size()));
  put32(h, 16, s.compressed_size);
  put16(h, 24, s.minor);
  put16(h, 26, s.major);
  put32(h, 28, s.arch);
  if (!name_bytes.empty()) {
    put32(h, 32, 64);
    put32(h, 36, static_cast<std::uint32_t>(name_bytes.size()));
    std::memcpy(h.data() + 64, name_bytes.data(), name_bytes.size());
  }
  put64(h, 40, s.flags);
  put64(h, 56, s.payload.size());
  h.resize(hsize < 64 ? hsize : h.size());
  return h + s.payload;
}

// A container of these entries; `size` overrides the declared entries size.
inline std::string container(const std::vector<EntrySpec>& entries,
                             std::optional<std::uint64_t> size = std::nullopt,
                             std::uint16_t header_size = 16) {
  std::string body;
  for (const auto& e : entries) body += entry(e);
  std::string h(16, '\0');
  put32(h, 0, 0xBA55ED50);
  put16(h, 4, 1);
  put16(h, 6, header_size);
  put64(h, 8, size.value_or(body.size()));
  return h + body;
}

// An ELF64 (or ELF32) little-endian host file with these sections (name, contents), a section
// name table last, and the section headers at the end. `type`: 1 ET_REL, 2 ET_EXEC, 3 ET_DYN.
struct Section {
  Section(std::string n, std::string d, std::uint32_t t = 1, std::uint64_t a = 0)
      : name(std::move(n)), data(std::move(d)), type(t), addr(a) {}
  std::string name;
  std::string data;
  std::uint32_t type = 1;  // SHT_PROGBITS
  std::uint64_t addr = 0;
};
inline std::string host_elf(std::vector<Section> sections, std::uint16_t type = 3,
                            bool is64 = true) {
  const std::size_t ehsize = is64 ? 64 : 52, shentsize = is64 ? 64 : 40;
  std::string strtab(1, '\0');
  std::vector<std::uint32_t> names;
  sections.push_back({".shstrtab", "", 3});
  for (auto& s : sections) {
    names.push_back(static_cast<std::uint32_t>(strtab.size()));
    strtab += s.name + '\0';
  }
  sections.back().data = strtab;
  std::string f(ehsize, '\0');
  std::vector<std::uint64_t> offs;
  for (auto& s : sections) {
    while (f.size() % 8) f.push_back('\0');
    offs.push_back(f.size());
    f += s.data;
  }
  while (f.size() % 8) f.push_back('\0');
  const std::uint64_t shoff = f.size();
  f.resize(f.size() + shentsize * (sections.size() + 1), '\0');
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const std::size_t h = shoff + shentsize * (i + 1);
    put32(f, h, names[i]);
    put32(f, h + 4, sections[i].type);
    if (is64) {
      put64(f, h + 16, sections[i].addr);
      put64(f, h + 24, offs[i]);
      put64(f, h + 32, sections[i].data.size());
    } else {
      put32(f, h + 12, static_cast<std::uint32_t>(sections[i].addr));
      put32(f, h + 16, static_cast<std::uint32_t>(offs[i]));
      put32(f, h + 20, static_cast<std::uint32_t>(sections[i].data.size()));
    }
  }
  std::memcpy(f.data(),
              "\x7f"
              "ELF",
              4);
  f[4] = is64 ? 2 : 1;
  f[5] = 1;
  f[6] = 1;
  put16(f, 16, type);
  put16(f, 18, 62);
  put32(f, 20, 1);
  const auto shnum = static_cast<std::uint16_t>(sections.size() + 1);
  if (is64) {
    put64(f, 40, shoff);
    put16(f, 52, 64);
    put16(f, 58, 64);
    put16(f, 60, shnum);
    put16(f, 62, shnum - 1);
  } else {
    put32(f, 32, static_cast<std::uint32_t>(shoff));
    put16(f, 40, 52);
    put16(f, 46, 40);
    put16(f, 48, shnum);
    put16(f, 50, shnum - 1);
  }
  return f;
}

// An `ar` archive of (name, contents) members with GNU short names.
inline std::string archive(const std::vector<std::pair<std::string, std::string>>& members) {
  std::string a = "!<arch>\n";
  for (const auto& [name, data] : members) {
    char h[61];
    std::snprintf(h, sizeof h, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", (name + "/").c_str(), "0", "0",
                  "0", "644", data.size());
    a.append(h, 60);
    a += data;
    if (a.size() % 2) a.push_back('\n');
  }
  return a;
}

inline FileCode scan(const std::string& bytes, const std::string& name = "test.bin",
                     const ScanLimits& limits = {}) {
  return scan_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), name, limits);
}

}  // namespace nvct::compat::fbt
