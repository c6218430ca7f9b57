// The ELF reader (ldcache_elf.hpp): glibc 2.36's elf/readelflib.c for x86, with every offset of
// the untrusted file bounds-checked against the mapping.
#include "nvct/mount/ldcache_elf.hpp"

#include <elf.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>

// The helpers live in this file's own namespace: src/mount is a unity build, and names in an
// anonymous namespace of another file of the module would share one scope with these.
namespace nvct::mount::ldcache_elf_detail {
namespace {

bool in_file(std::size_t size, std::uint64_t off, std::uint64_t len) {
  return off <= size && len <= size - off;
}

// A NUL-terminated string at `off`, or false when it runs past the end of the file.
bool string_at(const unsigned char* base, std::size_t size, std::uint64_t off, std::string* out) {
  if (off >= size) return false;
  const void* end = std::memchr(base + off, '\0', size - off);
  if (!end) return false;
  out->assign(reinterpret_cast<const char*>(base + off),
              static_cast<const unsigned char*>(end) - (base + off));
  return true;
}

template <class Ehdr, class Phdr, class Dyn>
int parse_elf_class(const unsigned char* base, std::size_t size, ElfFacts* facts) {
  Ehdr eh;
  std::memcpy(&eh, base, sizeof eh);
  if (eh.e_type != ET_DYN) return 1;
  if (!in_file(size, eh.e_phoff, std::uint64_t{eh.e_phnum} * sizeof(Phdr))) return 1;
  facts->flags = kLdcacheFlagElf;
  std::uint64_t loadaddr = ~std::uint64_t{0}, dyn_off = 0, dyn_size = 0;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Phdr ph;
    std::memcpy(&ph, base + eh.e_phoff + i * sizeof(Phdr), sizeof ph);
    switch (ph.p_type) {
      case PT_LOAD:
        if (loadaddr == ~std::uint64_t{0}) loadaddr = ph.p_vaddr - ph.p_offset;
        break;
      case PT_DYNAMIC:
        dyn_off = ph.p_offset;
        dyn_size = ph.p_filesz;
        break;
      case PT_INTERP: {
        std::string interp;
        if (!string_at(base, size, ph.p_offset, &interp)) return 1;
        static constexpr const char* kLibc6Interpreters[] = {
            "/lib/ld-linux.so.2", "/libx32/ld-linux-x32.so.2", "/lib64/ld-linux-x86-64.so.2"};
        for (const char* known : kLibc6Interpreters)
          if (interp == known) facts->flags = kLdcacheFlagLibc6;
        if (interp == "/lib/ld-linux.so.1") facts->flags = 0x0002;  // FLAG_ELF_LIBC5
        break;
      }
      case PT_GNU_PROPERTY: {
        // x86 ISA-level markers above the baseline may change the cache's hwcap field; not
        // modelled here (the baseline, which Debian's own libc carries, does not).
        if (!in_file(size, ph.p_offset, ph.p_filesz)) return 1;
        const unsigned char* p = base + ph.p_offset;
        std::uint64_t end = ph.p_filesz, align = sizeof(Phdr) == sizeof(Elf64_Phdr) ? 8 : 4;
        // One note: namesz, descsz, type (NT_GNU_PROPERTY_TYPE_0), "GNU\0", properties.
        if (end < 16) break;
        std::uint32_t namesz, descsz, ntype;
        std::memcpy(&namesz, p, 4);
        std::memcpy(&descsz, p + 4, 4);
        std::memcpy(&ntype, p + 8, 4);
        if (ntype != 5 || namesz != 4 || std::memcmp(p + 12, "GNU", 4) != 0) break;
        std::uint64_t at = 16, stop = std::min<std::uint64_t>(end, 16 + std::uint64_t{descsz});
        while (at + 8 <= stop) {
          std::uint32_t pr_type, pr_size;
          std::memcpy(&pr_type, p + at, 4);
          std::memcpy(&pr_size, p + at + 4, 4);
          if (pr_type == 0xc0008002u && pr_size >= 4 && at + 12 <= stop) {  // X86_ISA_1_NEEDED
            std::uint32_t needed;
            std::memcpy(&needed, p + at + 8, 4);
            if (needed & ~1u) return 2;
          }
          at += 8 + ((std::uint64_t{pr_size} + align - 1) & ~(align - 1));
        }
        break;
      }
      default:
        break;
    }
  }
  if (loadaddr == ~std::uint64_t{0}) loadaddr = 0;
  if (dyn_size == 0) return 1;
  if (!in_file(size, dyn_off, sizeof(Dyn))) return 1;
  auto dyn_at = [&](std::uint64_t i, Dyn* d) {
    std::uint64_t off = dyn_off + i * sizeof(Dyn);
    if (!in_file(size, off, sizeof(Dyn))) return false;
    std::memcpy(d, base + off, sizeof *d);
    return true;
  };
  std::uint64_t strtab = 0;
  bool have_strtab = false;
  Dyn d;
  for (std::uint64_t i = 0;; ++i) {
    if (!dyn_at(i, &d)) return 1;
    if (d.d_tag == DT_NULL) break;
    if (d.d_tag == DT_STRTAB) {
      strtab = d.d_un.d_val - loadaddr;
      have_strtab = true;
      break;
    }
  }
  if (!have_strtab || strtab >= size) return 1;
  bool have_soname = false;
  for (std::uint64_t i = 0;; ++i) {
    if (!dyn_at(i, &d)) return 1;
    if (d.d_tag == DT_NULL) break;
    if (d.d_tag != DT_NEEDED && d.d_tag != DT_SONAME) continue;
    std::string name;
    if (!string_at(base, size, strtab + d.d_un.d_val, &name)) return 1;
    if (d.d_tag == DT_NEEDED) {
      if (facts->flags == kLdcacheFlagElf) {
        if (name == "libc.so.6" || name == "libm.so.6") facts->flags = kLdcacheFlagLibc6;
        if (name == "libc.so.5" || name == "libm.so.5") facts->flags = 0x0002;
      }
    } else {
      facts->soname = std::move(name);
      have_soname = true;
    }
    if (have_soname && facts->flags != kLdcacheFlagElf) return 0;
  }
  return 0;
}

// 0: a library (facts filled), 1: not one ldconfig caches, 2: not modelled (ENOTSUP).
int parse_elf(const unsigned char* base, std::size_t size, ElfFacts* facts) {
  if (size < sizeof(Elf64_Ehdr) || std::memcmp(base, ELFMAG, SELFMAG) != 0) return 1;
  int cls = base[EI_CLASS];
  if (cls != ELFCLASS32 && cls != ELFCLASS64) return 1;
  std::uint16_t machine;
  std::memcpy(&machine, base + 18, 2);
  std::int32_t file_flag = 0;
  if (machine == EM_X86_64)
    file_flag = cls == ELFCLASS64 ? (kLdcacheFlagX8664Lib64 | kLdcacheFlagLibc6)
                                  : (kLdcacheFlagX8664Libx32 | kLdcacheFlagLibc6);
  else if (!(machine == EM_386 && cls == ELFCLASS32))
    return 1;  // "is for unknown machine"
  int r = cls == ELFCLASS32 ? parse_elf_class<Elf32_Ehdr, Elf32_Phdr, Elf32_Dyn>(base, size, facts)
                            : parse_elf_class<Elf64_Ehdr, Elf64_Phdr, Elf64_Dyn>(base, size, facts);
  if (r == 0 && file_flag) facts->flags = file_flag;
  return r;
}

}  // namespace
}  // namespace nvct::mount::ldcache_elf_detail

namespace nvct::mount {

// 0, 1 or 2 as parse_elf; the fd is a regular file's.
int read_elf_fd(int fd, ElfFacts* facts) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return 1;
  auto size = static_cast<std::size_t>(st.st_size);
  if (size < sizeof(Elf64_Ehdr)) return 1;
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) return 1;
  int r = ldcache_elf_detail::parse_elf(static_cast<const unsigned char*>(map), size, facts);
  ::munmap(map, size);
  return r;
}

}  // namespace nvct::mount
