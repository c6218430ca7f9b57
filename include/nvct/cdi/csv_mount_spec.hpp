// The Tegra CSV mount specs of `cdi generate --mode csv` (spec/runtime.md §7.6, cdi.md §6.1).
// One entry a line: `<type>, <path>` with type dev, lib, sym or dir. nvct's reading of the format:
//   - whitespace around the type and the path is trimmed; the type is case-insensitive;
//   - blank lines and lines whose first non-blank character is '#' are skipped (the reference
//     files carry no comments, and no absolute path starts with '#', so this is safe);
//   - the path must be absolute and may hold glob characters (* ? [...]), expanded later;
//   - an unknown type, a line without a comma or a relative path is an error naming the file and
//     the line number.
// A missing file is skipped by read_csv_mount_spec_files (the default list names three files and
// hosts commonly have only some of them, which the reference also tolerates with a warning); any
// other read error fails.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"

namespace nvct::cdi {

enum class CsvMountType { kDev, kLib, kSym, kDir };

struct CsvMountSpec {
  CsvMountType type = CsvMountType::kLib;
  std::string path;
  friend bool operator==(const CsvMountSpec&, const CsvMountSpec&) = default;
};

inline const std::vector<std::string> kDefaultCsvFiles = {
    "/etc/nvidia-container-runtime/host-files-for-container.d/devices.csv",
    "/etc/nvidia-container-runtime/host-files-for-container.d/drivers.csv",
    "/etc/nvidia-container-runtime/host-files-for-container.d/l4t.csv",
};

std::string_view csv_mount_type_name(CsvMountType type);

// Parses the text of one file; `source` names it in errors.
Result<std::vector<CsvMountSpec>> parse_csv_mount_specs(std::string_view text,
                                                        std::string_view source);

// One file; a missing file is an ENOENT error naming it.
Result<std::vector<CsvMountSpec>> read_csv_mount_spec_file(const std::string& path);

// The entries of every file in order; missing files are skipped with a warning.
Result<std::vector<CsvMountSpec>> read_csv_mount_spec_files(const std::vector<std::string>& paths);

}  // namespace nvct::cdi
