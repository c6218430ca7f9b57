// The GNU ABI tag of an ELF file (`.note.ABI-tag`), which the library selector requires of
// libnvidia-tls (driver.md §10). Files come from the driver root: every header, offset and size
// is bounds-checked against the file.
#pragma once

#include <array>
#include <optional>

#include "nvct/base/error.hpp"

namespace nvct::driver {

struct AbiTag {
  unsigned os = 0;  // 0 = Linux
  std::array<unsigned, 3> version{};
};

// The tag of the ELF file open on fd (32- or 64-bit, little-endian); nullopt when the file has
// no `.note.ABI-tag` section with a GNU note of type 1. Malformed files are errors.
Result<std::optional<AbiTag>> read_abi_tag(int fd);

}  // namespace nvct::driver
