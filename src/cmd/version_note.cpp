// The version note every nvct program carries (section .note.nvct.version: owner "nvct", type
// kVersionNoteType, the version as a NUL-padded string), so that `nvidia-ctk doctor` can tell
// nvct's binaries and their versions apart from NVIDIA's without running them (spec/doctor.md
// §3.5). Linked into each program as an object (src/cmd/CMakeLists.txt); `used` and `retain`
// keep it through --gc-sections.
#include <cstddef>
#include <cstdint>

#include "nvct/base/elf_note.hpp"
#include "nvct/base/version_info.hpp"

namespace {

constexpr std::size_t kDescSize = 64;

struct VersionNote {
  std::uint32_t namesz;
  std::uint32_t descsz;
  std::uint32_t type;
  char name[8];  // "nvct\0", padded to 4 bytes
  char desc[kDescSize];
};

constexpr std::size_t length(const char* s) {
  std::size_t n = 0;
  while (s[n] != '\0') ++n;
  return n;
}
static_assert(length(nvct::kVersion) < kDescSize, "the version does not fit the version note");
static_assert(nvct::kVersionNoteOwner.size() + 1 <= 8);

constexpr VersionNote make_note() {
  VersionNote note{static_cast<std::uint32_t>(nvct::kVersionNoteOwner.size() + 1),
                   kDescSize, nvct::kVersionNoteType, {}, {}};
  for (std::size_t i = 0; i < nvct::kVersionNoteOwner.size(); ++i)
    note.name[i] = nvct::kVersionNoteOwner[i];
  for (std::size_t i = 0; nvct::kVersion[i] != '\0'; ++i) note.desc[i] = nvct::kVersion[i];
  return note;
}

[[gnu::section(".note.nvct.version"), gnu::used, gnu::retain, gnu::aligned(4)]]
const VersionNote kNote = make_note();

}  // namespace
