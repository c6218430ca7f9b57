#include "nvct/base/elf_note.hpp"

#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace nvct {
namespace {

constexpr std::size_t kMaxSections = 4096;
constexpr std::uint64_t kMaxNoteSection = 64u << 10;

Status pread_exact(int fd, void* buf, std::size_t size, std::uint64_t offset,
                   std::uint64_t file_size) {
  if (offset > file_size || size > file_size - offset)
    return fail(EINVAL, "ELF structure points past the end of the file");
  auto* p = static_cast<char*>(buf);
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, p + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail_errno("read ELF file", n == 0 ? EIO : errno);
    done += static_cast<std::size_t>(n);
  }
  return ok();
}

struct Section {
  std::uint32_t type;
  std::uint64_t offset;
  std::uint64_t size;
};

template <class Ehdr, class Shdr>
Result<std::vector<Section>> read_sections(int fd, std::uint64_t file_size) {
  Ehdr eh{};
  NVCT_TRY(pread_exact(fd, &eh, sizeof eh, 0, file_size));
  if (eh.e_shnum == 0) return std::vector<Section>{};
  if (eh.e_shnum > kMaxSections || eh.e_shentsize != sizeof(Shdr))
    return fail(EINVAL, "malformed ELF section header table");
  std::vector<Section> out;
  for (std::size_t i = 0; i < eh.e_shnum; ++i) {
    Shdr sh{};
    NVCT_TRY(pread_exact(fd, &sh, sizeof sh, eh.e_shoff + i * sizeof(Shdr), file_size));
    out.push_back({sh.sh_type, sh.sh_offset, sh.sh_size});
  }
  return out;
}

std::uint32_t le32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

std::size_t align4(std::size_t n) { return (n + 3) & ~static_cast<std::size_t>(3); }

// Walks the notes of one section; each note is bounds-checked before its fields are used. The
// owner is matched with its terminating NUL, as the ELF note format stores it.
std::optional<std::string> find_note(const std::vector<unsigned char>& data,
                                     std::string_view owner, std::uint32_t wanted,
                                     std::size_t max_text) {
  std::size_t pos = 0;
  while (data.size() - pos >= 12) {
    std::size_t namesz = le32(&data[pos]), descsz = le32(&data[pos + 4]);
    std::uint32_t type = le32(&data[pos + 8]);
    pos += 12;
    if (namesz > data.size() - pos) return std::nullopt;
    std::size_t name_at = pos;
    pos += align4(namesz);
    if (pos > data.size() || descsz > data.size() - pos) return std::nullopt;
    std::size_t desc_at = pos;
    pos += align4(descsz);
    if (type == wanted && namesz == owner.size() + 1 &&
        std::memcmp(&data[name_at], owner.data(), owner.size()) == 0 &&
        data[name_at + owner.size()] == '\0') {
      std::string v(reinterpret_cast<const char*>(&data[desc_at]), descsz);
      v = v.substr(0, v.find('\0'));
      if (!v.empty() && v.size() <= max_text) return v;
    }
    if (pos > data.size()) return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

Result<std::optional<std::string>> read_elf_note(int fd, std::string_view owner,
                                                 std::uint32_t type, std::size_t max_text) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail_errno("stat ELF file");
  if (!S_ISREG(st.st_mode)) return fail(EINVAL, "not a regular file");
  auto size = static_cast<std::uint64_t>(st.st_size);
  unsigned char ident[EI_NIDENT]{};
  NVCT_TRY(pread_exact(fd, ident, sizeof ident, 0, size));
  if (std::memcmp(ident, ELFMAG, SELFMAG) != 0) return fail(EINVAL, "not an ELF file");
  if (ident[EI_DATA] != ELFDATA2LSB) return std::optional<std::string>();
  Result<std::vector<Section>> sections =
      ident[EI_CLASS] == ELFCLASS64 ? read_sections<Elf64_Ehdr, Elf64_Shdr>(fd, size)
      : ident[EI_CLASS] == ELFCLASS32
          ? read_sections<Elf32_Ehdr, Elf32_Shdr>(fd, size)
          : Result<std::vector<Section>>(fail(EINVAL, "unknown ELF class"));
  if (!sections) return tl::unexpected(std::move(sections).error());
  for (const auto& s : *sections) {
    if (s.type != SHT_NOTE || s.size == 0 || s.size > kMaxNoteSection) continue;
    std::vector<unsigned char> data(static_cast<std::size_t>(s.size));
    NVCT_TRY(pread_exact(fd, data.data(), data.size(), s.offset, size));
    if (auto v = find_note(data, owner, type, max_text)) return v;
  }
  return std::optional<std::string>();
}

}  // namespace nvct
