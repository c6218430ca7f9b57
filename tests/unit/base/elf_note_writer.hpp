// A minimal 64-bit little-endian ELF image with one note section, for the tests of
// base/elf_note and of the doctor's binaries family (whose mock programs carry nvct's version
// note the way src/cmd/version_note.cpp puts it into the real ones).
#pragma once

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "nvct/base/elf_note.hpp"

namespace nvct::testing {

// A note with this owner, type and text (NUL-padded to desc_size); no note section when owner
// is empty.
inline std::string elf_with_note(std::string_view owner, std::uint32_t type,
                                 std::string_view text, std::uint32_t desc_size = 64) {
  auto pad4 = [](std::string& s) { s.resize((s.size() + 3) & ~std::size_t{3}, '\0'); };
  std::string note;
  if (!owner.empty()) {
    std::uint32_t hdr[3] = {static_cast<std::uint32_t>(owner.size() + 1), desc_size, type};
    note.append(reinterpret_cast<const char*>(hdr), sizeof hdr);
    note.append(owner);
    note.push_back('\0');
    pad4(note);
    std::string desc(text);
    desc.resize(desc_size, '\0');
    note += desc;
    pad4(note);
  }
  const std::string shstrtab("\0.shstrtab\0.note.nvct.version\0", 31);
  Elf64_Ehdr e{};
  std::memcpy(e.e_ident, ELFMAG, SELFMAG);
  e.e_ident[EI_CLASS] = ELFCLASS64;
  e.e_ident[EI_DATA] = ELFDATA2LSB;
  e.e_ident[EI_VERSION] = EV_CURRENT;
  e.e_type = ET_EXEC;
  e.e_machine = EM_X86_64;
  e.e_version = EV_CURRENT;
  e.e_ehsize = sizeof(Elf64_Ehdr);
  e.e_shentsize = sizeof(Elf64_Shdr);
  std::size_t strtab_off = sizeof(Elf64_Ehdr);
  std::size_t note_off = (strtab_off + shstrtab.size() + 7) & ~std::size_t{7};
  std::size_t sh_off = (note_off + note.size() + 7) & ~std::size_t{7};
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
  e.e_shnum = owner.empty() ? 2 : 3;
  e.e_shstrndx = 1;
  std::string out(reinterpret_cast<const char*>(&e), sizeof e);
  out += shstrtab;
  out.resize(note_off, '\0');
  out += note;
  out.resize(sh_off, '\0');
  out.append(reinterpret_cast<const char*>(sh), sizeof(Elf64_Shdr) * e.e_shnum);
  return out;
}

// An nvct program of this version, as far as its version note goes.
inline std::string nvct_program(std::string_view version) {
  return elf_with_note(kVersionNoteOwner, kVersionNoteType, version);
}

}  // namespace nvct::testing
