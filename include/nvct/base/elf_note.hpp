// Reading one note of an ELF file (32- or 64-bit, little-endian) without loading or running it:
// the CUDA version note of a compat libcuda (owner "NVIDIA"), the version note every nvct binary
// carries (owner "nvct", kVersionNoteType) for `nvidia-ctk doctor`. Files may come from an image
// or a foreign tree: every header field is checked against the file size before it is used, and
// only note sections of bounded size are read (no whole-file read, no mmap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct {

// The note nvct's programs carry in their `.note.nvct.version` section: owner "nvct", this type,
// the version (kVersion) as a NUL-padded string.
inline constexpr std::string_view kVersionNoteOwner = "nvct";
inline constexpr std::uint32_t kVersionNoteType = 1;

// The description of the first note with this owner and type, up to its first NUL; nullopt when
// the file has no such note or the text is longer than max_text. Errors: not a regular file, not
// ELF, structures pointing past the end of the file.
Result<std::optional<std::string>> read_elf_note(int fd, std::string_view owner,
                                                 std::uint32_t type, std::size_t max_text);

}  // namespace nvct
