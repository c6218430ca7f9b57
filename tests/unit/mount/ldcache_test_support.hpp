// ELF test files for the ld.so.cache writer's tests (ldcache_writer_test.cpp,
// ldcache_elf_test.cpp): minimal shared objects with the dynamic entries ldconfig reads.
#pragma once

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace nvct::mount::ldcache_test {

struct ElfSpec {
  bool is64 = true;
  std::string soname;               // "" = no DT_SONAME
  std::vector<std::string> needed;  // DT_NEEDED
  std::uint16_t type = ET_DYN;
};

inline ElfSpec spec(std::string soname, std::vector<std::string> needed = {}, bool is64 = true,
                    std::uint16_t type = ET_DYN) {
  ElfSpec s;
  s.soname = std::move(soname);
  s.needed = std::move(needed);
  s.is64 = is64;
  s.type = type;
  return s;
}

// A minimal ELF shared object: PT_LOAD + PT_DYNAMIC, DT_NEEDED/DT_SONAME/DT_STRTAB/DT_NULL.
template <class Ehdr, class Phdr, class Dyn>
inline std::string make_elf_t(const ElfSpec& s, unsigned char cls, std::uint16_t machine) {
  const std::uint64_t base = 0x400000;
  std::string strtab(1, '\0');
  auto add = [&](const std::string& str) {
    auto off = strtab.size();
    strtab += str;
    strtab += '\0';
    return off;
  };
  std::vector<Dyn> dyn;
  for (const auto& n : s.needed) {
    Dyn d{};
    d.d_tag = DT_NEEDED;
    d.d_un.d_val = add(n);
    dyn.push_back(d);
  }
  if (!s.soname.empty()) {
    Dyn d{};
    d.d_tag = DT_SONAME;
    d.d_un.d_val = add(s.soname);
    dyn.push_back(d);
  }
  std::size_t dyn_off = sizeof(Ehdr) + 2 * sizeof(Phdr);
  std::size_t str_off = dyn_off + (dyn.size() + 2) * sizeof(Dyn);
  Dyn st{};
  st.d_tag = DT_STRTAB;
  st.d_un.d_val = base + str_off;
  dyn.push_back(st);
  dyn.push_back(Dyn{});
  Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = cls;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = s.type;
  eh.e_machine = machine;
  eh.e_version = EV_CURRENT;
  eh.e_phoff = sizeof(Ehdr);
  eh.e_ehsize = sizeof(Ehdr);
  eh.e_phentsize = sizeof(Phdr);
  eh.e_phnum = 2;
  std::size_t total = str_off + strtab.size();
  Phdr load{}, dynamic{};
  load.p_type = PT_LOAD;
  load.p_vaddr = base;
  load.p_filesz = load.p_memsz = total;
  dynamic.p_type = PT_DYNAMIC;
  dynamic.p_offset = dyn_off;
  dynamic.p_vaddr = base + dyn_off;
  dynamic.p_filesz = dynamic.p_memsz = dyn.size() * sizeof(Dyn);
  std::string out(total, '\0');
  std::memcpy(&out[0], &eh, sizeof eh);
  std::memcpy(&out[sizeof eh], &load, sizeof load);
  std::memcpy(&out[sizeof eh + sizeof(Phdr)], &dynamic, sizeof dynamic);
  std::memcpy(&out[dyn_off], dyn.data(), dyn.size() * sizeof(Dyn));
  std::memcpy(&out[str_off], strtab.data(), strtab.size());
  return out;
}

inline std::string make_elf(const ElfSpec& s) {
  return s.is64 ? make_elf_t<Elf64_Ehdr, Elf64_Phdr, Elf64_Dyn>(s, ELFCLASS64, EM_X86_64)
                : make_elf_t<Elf32_Ehdr, Elf32_Phdr, Elf32_Dyn>(s, ELFCLASS32, EM_386);
}

}  // namespace nvct::mount::ldcache_test
