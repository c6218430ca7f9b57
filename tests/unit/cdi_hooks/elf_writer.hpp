// Builds small ELF64 files for the compat tests: a header, optional note sections and the
// section header table, with knobs to break them.
#pragma once

#include <elf.h>

#include <cstring>
#include <string>
#include <vector>

namespace nvct::cdi_hooks::testing {

struct Note {
  std::string owner;  // without the NUL
  std::uint32_t type;
  std::string desc;  // written with a trailing NUL
};

inline void put32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline void pad4(std::string& out) {
  while (out.size() % 4) out.push_back('\0');
}

inline std::string note_bytes(const std::vector<Note>& notes) {
  std::string out;
  for (const auto& n : notes) {
    put32(out, static_cast<std::uint32_t>(n.owner.size() + 1));
    put32(out, static_cast<std::uint32_t>(n.desc.size() + 1));
    put32(out, n.type);
    out += n.owner;
    out.push_back('\0');
    pad4(out);
    out += n.desc;
    out.push_back('\0');
    pad4(out);
  }
  return out;
}

// An ELF64 LE file whose only section (besides the null one) is a SHT_NOTE with `notes`.
// `shnum_override` > 0 lies about the section count.
inline std::string make_elf(const std::vector<Note>& notes, unsigned shnum_override = 0) {
  std::string data = note_bytes(notes);
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_DYN;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = static_cast<Elf64_Half>(shnum_override ? shnum_override : 2);
  std::size_t note_off = sizeof(Elf64_Ehdr);
  std::size_t sh_off = (note_off + data.size() + 7) & ~std::size_t{7};
  eh.e_shoff = sh_off;
  std::string out(reinterpret_cast<const char*>(&eh), sizeof eh);
  out += data;
  out.resize(sh_off, '\0');
  Elf64_Shdr null_sh{};
  Elf64_Shdr note_sh{};
  note_sh.sh_type = SHT_NOTE;
  note_sh.sh_offset = note_off;
  note_sh.sh_size = data.size();
  note_sh.sh_addralign = 4;
  out.append(reinterpret_cast<const char*>(&null_sh), sizeof null_sh);
  out.append(reinterpret_cast<const char*>(&note_sh), sizeof note_sh);
  return out;
}

}  // namespace nvct::cdi_hooks::testing
