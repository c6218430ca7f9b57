#include "nvct/compat/tables.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>

#include "nvct/request/requirement_expr.hpp"

namespace nvct::compat {
namespace {

struct CudaDriver {
  MajorMinor cuda;
  std::string_view driver;
};

// §5.1, GA driver of each toolkit (Linux x86_64). Rows marked unverified in the spec are kept:
// they are the best figure known and only ever shown next to the host's own facts.
constexpr CudaDriver kMinDriver[] = {
    {{7, 0}, "346.46"},     {{7, 5}, "352.31"},     {{8, 0}, "367.48"},
    {{9, 0}, "384.81"},     {{9, 1}, "390.46"},     {{9, 2}, "396.26"},
    {{10, 0}, "410.48"},    {{10, 1}, "418.39"},    {{10, 2}, "440.33"},
    {{11, 0}, "450.36.06"}, {{11, 1}, "455.23"},    {{11, 2}, "460.27.03"},
    {{11, 3}, "465.19.01"}, {{11, 4}, "470.42.01"}, {{11, 5}, "495.29.05"},
    {{11, 6}, "510.39.01"}, {{11, 7}, "515.43.04"}, {{11, 8}, "520.61.05"},
    {{12, 0}, "525.60.13"}, {{12, 1}, "530.30.02"}, {{12, 2}, "535.54.03"},
    {{12, 3}, "545.23.06"}, {{12, 4}, "550.54.14"}, {{12, 5}, "555.42.02"},
    {{12, 6}, "560.28.03"}, {{12, 8}, "570.26"},    {{12, 9}, "575.51.03"},
    {{13, 0}, "580.65.06"},
};

struct BranchCuda {
  int branch;
  MajorMinor cuda;
};

// §5.2, highest branch first.
constexpr BranchCuda kBranchCuda[] = {
    {580, {13, 0}}, {575, {12, 9}}, {570, {12, 8}}, {560, {12, 6}}, {555, {12, 5}},
    {550, {12, 4}}, {545, {12, 3}}, {535, {12, 2}}, {530, {12, 1}}, {525, {12, 0}},
    {520, {11, 8}}, {515, {11, 7}}, {510, {11, 6}}, {495, {11, 5}}, {470, {11, 4}},
    {465, {11, 3}}, {460, {11, 2}}, {455, {11, 1}}, {450, {11, 0}},
};

struct CudaIsa {
  MajorMinor cuda;
  MajorMinor isa;
};

// The PTX ISA each toolkit emits (§5.2; unverified beyond the values cuobjdump output confirmed:
// 6.5, 7.5, 7.8, 8.7). A toolkit between rows takes the lower row: never more than it accepts.
constexpr CudaIsa kCudaIsa[] = {
    {{10, 2}, {6, 5}}, {{11, 0}, {7, 0}}, {{11, 1}, {7, 1}}, {{11, 2}, {7, 2}}, {{11, 3}, {7, 3}},
    {{11, 4}, {7, 4}}, {{11, 5}, {7, 5}}, {{11, 6}, {7, 6}}, {{11, 7}, {7, 7}}, {{11, 8}, {7, 8}},
    {{12, 0}, {8, 0}}, {{12, 1}, {8, 1}}, {{12, 2}, {8, 2}}, {{12, 3}, {8, 3}}, {{12, 4}, {8, 4}},
    {{12, 8}, {8, 7}}, {{13, 0}, {9, 0}},
};

std::optional<int> leading_number(std::string_view& s) {
  int value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return value;
}

}  // namespace

std::string MajorMinor::str() const { return fmt::format("{}.{}", major, minor); }

std::optional<MajorMinor> parse_major_minor(std::string_view text) {
  auto major = leading_number(text);
  if (!major || *major < 0) return std::nullopt;
  if (text.empty()) return MajorMinor{*major, 0};
  if (text.front() != '.') return std::nullopt;
  text.remove_prefix(1);
  auto minor = leading_number(text);
  if (!minor || *minor < 0) return std::nullopt;
  if (!text.empty() && text.front() != '.') return std::nullopt;
  return MajorMinor{*major, *minor};
}

std::optional<std::string> min_driver_for_cuda(std::string_view cuda) {
  auto v = parse_major_minor(cuda);
  if (!v) return std::nullopt;
  const CudaDriver* best = nullptr;
  for (const auto& row : kMinDriver) {
    if (row.cuda.major == v->major && row.cuda.minor <= v->minor) best = &row;
  }
  if (!best) return std::nullopt;
  return std::string(best->driver);
}

std::optional<std::string> minor_compat_floor(int cuda_major) {
  switch (cuda_major) {
    case 11:
      return "450.80.02";
    case 12:
      return "525.60.13";
    case 13:
      return "580";
    default:
      return std::nullopt;
  }
}

std::optional<std::string> cuda_for_driver(std::string_view driver_version) {
  std::string_view rest = driver_version;
  auto branch = leading_number(rest);
  if (!branch) return std::nullopt;
  for (const auto& row : kBranchCuda) {
    if (*branch >= row.branch) return row.cuda.str();
  }
  return std::nullopt;
}

std::optional<std::string> ptx_isa_for_cuda(std::string_view cuda) {
  auto v = parse_major_minor(cuda);
  if (!v) return std::nullopt;
  const CudaIsa* best = nullptr;
  for (const auto& row : kCudaIsa) {
    if (row.cuda.major == v->major && row.cuda.minor <= v->minor) best = &row;
  }
  if (!best) return std::nullopt;
  return best->isa.str();
}

std::optional<std::string> cuda_for_ptx_isa(std::string_view isa) {
  auto v = parse_major_minor(isa);
  if (!v) return std::nullopt;
  for (const auto& row : kCudaIsa) {
    if (row.isa >= *v) return row.cuda.str();
  }
  return std::nullopt;
}

std::optional<int> compare_driver_versions(std::string_view a, std::string_view b) {
  auto c = request::compare_versions(a, b);
  if (!c) return std::nullopt;
  return *c;
}

}  // namespace nvct::compat
