// Minimal 64-bit ELF images for tests: a header, a section name table and optionally a
// `.note.ABI-tag` section with a GNU ABI note.
#pragma once

#include <elf.h>

#include <cstring>
#include <optional>
#include <string>

namespace nvct::driver::testing {

struct AbiNoteSpec {
  unsigned os, major, minor, patch;
};

inline std::string build_elf(std::optional<AbiNoteSpec> tag) {
  std::string shstrtab = std::string("\0.shstrtab\0.note.ABI-tag\0", 25);
  std::string note;
  if (tag) {
    std::uint32_t hdr[3] = {4, 16, NT_GNU_ABI_TAG};
    std::uint32_t desc[4] = {tag->os, tag->major, tag->minor, tag->patch};
    note.append(reinterpret_cast<const char*>(hdr), 12);
    note.append("GNU\0", 4);
    note.append(reinterpret_cast<const char*>(desc), 16);
  }
  Elf64_Ehdr e{};
  std::memcpy(e.e_ident, ELFMAG, SELFMAG);
  e.e_ident[EI_CLASS] = ELFCLASS64;
  e.e_ident[EI_DATA] = ELFDATA2LSB;
  e.e_ident[EI_VERSION] = EV_CURRENT;
  e.e_type = ET_DYN;
  e.e_machine = EM_X86_64;
  e.e_version = EV_CURRENT;
  e.e_ehsize = sizeof(Elf64_Ehdr);
  e.e_shentsize = sizeof(Elf64_Shdr);
  std::size_t strtab_off = sizeof(Elf64_Ehdr);
  std::size_t note_off = strtab_off + shstrtab.size();
  while (note_off % 8) ++note_off;
  std::size_t sh_off = note_off + note.size();
  while (sh_off % 8) ++sh_off;
  Elf64_Shdr sh[3]{};
  sh[1].sh_name = 1;
  sh[1].sh_type = SHT_STRTAB;
  sh[1].sh_offset = strtab_off;
  sh[1].sh_size = shstrtab.size();
  sh[2].sh_name = 11;
  sh[2].sh_type = SHT_NOTE;
  sh[2].sh_offset = note_off;
  sh[2].sh_size = note.size();
  e.e_shoff = sh_off;
  e.e_shnum = tag ? 3 : 2;
  e.e_shstrndx = 1;
  std::string out(reinterpret_cast<const char*>(&e), sizeof e);
  out += shstrtab;
  out.resize(note_off, '\0');
  out += note;
  out.resize(sh_off, '\0');
  out.append(reinterpret_cast<const char*>(sh), sizeof(Elf64_Shdr) * e.e_shnum);
  return out;
}

}  // namespace nvct::driver::testing
