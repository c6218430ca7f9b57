#include "nvct/driver/elf_note.hpp"

#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <string_view>

namespace nvct::driver {
namespace {

constexpr std::uint64_t kMaxSectionRead = 1u << 20;

Result<std::string> read_at(int fd, std::uint64_t off, std::uint64_t len, std::uint64_t size) {
  if (off > size || len > size - off) return fail(EINVAL, "ELF offset out of range");
  if (len > kMaxSectionRead) return fail(EFBIG, "ELF section too large");
  std::string buf(static_cast<std::size_t>(len), '\0');
  std::size_t done = 0;
  while (done < buf.size()) {
    ssize_t n = ::pread(fd, buf.data() + done, buf.size() - done, static_cast<off_t>(off + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail_errno("read ELF file");
    if (n == 0) return fail(EINVAL, "ELF file truncated");
    done += static_cast<std::size_t>(n);
  }
  return buf;
}

// Section header fields common to both classes.
struct Section {
  std::uint32_t name = 0, type = 0;
  std::uint64_t offset = 0, size = 0;
};

template <class Ehdr, class Shdr>
Result<std::optional<AbiTag>> scan(int fd, std::uint64_t size) {
  NVCT_ASSIGN_OR_RETURN(std::string eh, read_at(fd, 0, sizeof(Ehdr), size));
  Ehdr e;
  std::memcpy(&e, eh.data(), sizeof e);
  if (e.e_shentsize != sizeof(Shdr) || e.e_shnum == 0) return std::optional<AbiTag>{};
  NVCT_ASSIGN_OR_RETURN(std::string sh,
                        read_at(fd, e.e_shoff, std::uint64_t{e.e_shnum} * sizeof(Shdr), size));
  auto section = [&](std::size_t i) {
    Shdr s;
    std::memcpy(&s, sh.data() + i * sizeof(Shdr), sizeof s);
    return Section{s.sh_name, s.sh_type, s.sh_offset, s.sh_size};
  };
  if (e.e_shstrndx >= e.e_shnum) return fail(EINVAL, "ELF section name table index out of range");
  Section names = section(e.e_shstrndx);
  NVCT_ASSIGN_OR_RETURN(std::string strtab, read_at(fd, names.offset, names.size, size));
  constexpr std::string_view kName = ".note.ABI-tag";
  for (std::size_t i = 0; i < e.e_shnum; ++i) {
    Section s = section(i);
    if (s.type != SHT_NOTE || s.name >= strtab.size()) continue;
    std::string_view n(strtab.c_str() + s.name);  // strtab ends with NUL (std::string)
    if (n != kName) continue;
    NVCT_ASSIGN_OR_RETURN(std::string note, read_at(fd, s.offset, s.size, size));
    // Notes: namesz, descsz, type, name (padded to 4), desc (padded to 4).
    std::size_t p = 0;
    while (note.size() - p >= 12) {
      std::uint32_t hdr[3];
      std::memcpy(hdr, note.data() + p, 12);
      std::uint64_t name_len = (std::uint64_t{hdr[0]} + 3) & ~std::uint64_t{3};
      std::uint64_t desc_len = (std::uint64_t{hdr[1]} + 3) & ~std::uint64_t{3};
      if (name_len + desc_len > note.size() - p - 12) return fail(EINVAL, "ELF note truncated");
      std::string_view name(note.data() + p + 12, hdr[0]);
      if (hdr[2] == NT_GNU_ABI_TAG && name == std::string_view("GNU\0", 4) && hdr[1] >= 16) {
        std::uint32_t d[4];
        std::memcpy(d, note.data() + p + 12 + name_len, 16);
        return std::optional<AbiTag>(AbiTag{d[0], {d[1], d[2], d[3]}});
      }
      p += 12 + static_cast<std::size_t>(name_len + desc_len);
    }
  }
  return std::optional<AbiTag>{};
}

}  // namespace

Result<std::optional<AbiTag>> read_abi_tag(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail_errno("stat ELF file");
  auto size = static_cast<std::uint64_t>(st.st_size);
  NVCT_ASSIGN_OR_RETURN(std::string ident, read_at(fd, 0, EI_NIDENT, size));
  if (std::memcmp(ident.data(), ELFMAG, SELFMAG) != 0) return fail(EINVAL, "not an ELF file");
  if (ident[EI_DATA] != ELFDATA2LSB) return fail(EINVAL, "unsupported ELF byte order");
  if (ident[EI_CLASS] == ELFCLASS64) return scan<Elf64_Ehdr, Elf64_Shdr>(fd, size);
  if (ident[EI_CLASS] == ELFCLASS32) return scan<Elf32_Ehdr, Elf32_Shdr>(fd, size);
  return fail(EINVAL, "unsupported ELF class");
}

}  // namespace nvct::driver
