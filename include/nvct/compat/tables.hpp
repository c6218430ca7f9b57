// The version tables of spec/compat.md §5: the minimum Linux x86_64 driver per CUDA toolkit
// (§5.1), the minor-version-compatibility floors of each CUDA family, the highest CUDA of each
// driver branch when only the RM version is known (§5.2) and the PTX ISA each toolkit emits.
// Versions are "major.minor" strings for CUDA and PTX ISA, dotted RM versions for drivers.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace nvct::compat {

// A parsed "major.minor[.anything]" version; nullopt for text that does not start that way.
struct MajorMinor {
  int major = 0;
  int minor = 0;
  friend auto operator<=>(const MajorMinor&, const MajorMinor&) = default;
  std::string str() const;  // "12.4"
};
std::optional<MajorMinor> parse_major_minor(std::string_view text);

// §5.1: the driver of the GA release of that CUDA major.minor ("12.4" -> "550.54.14"); a
// major.minor between table rows takes the next lower row of the same major (12.7 -> 12.6's).
// nullopt below 7.0 or for an unknown major.
std::optional<std::string> min_driver_for_cuda(std::string_view cuda);

// Minor version compatibility floor of a CUDA family: 11 -> "450.80.02", 12 -> "525.60.13",
// 13 -> "580"; nullopt for families without it (<= 10).
std::optional<std::string> minor_compat_floor(int cuda_major);

// §5.2: the highest CUDA a driver branch supports ("535.104.05" -> "12.2"); nullopt below 450.
std::optional<std::string> cuda_for_driver(std::string_view driver_version);

// The PTX ISA a toolkit emits (10.2 -> 6.5, 11.N -> 7.N, 12.0-12.4 -> 8.0-8.4, 12.8 -> 8.7,
// 13.0 -> 9.0; between rows the lower row of the same major); nullopt when unknown.
std::optional<std::string> ptx_isa_for_cuda(std::string_view cuda);

// The lowest CUDA whose driver JIT-compiles that PTX ISA (the inverse of ptx_isa_for_cuda:
// "8.4" -> "12.4"); nullopt when unknown.
std::optional<std::string> cuda_for_ptx_isa(std::string_view isa);

// Driver versions compared numerically component by component (request::compare_versions);
// text that is not a dotted number compares as unknown (nullopt).
std::optional<int> compare_driver_versions(std::string_view a, std::string_view b);

}  // namespace nvct::compat
