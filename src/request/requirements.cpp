#include "nvct/request/requirements.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>

#include "nvct/base/strings.hpp"

namespace nvct::request {
namespace {

bool is_ident_char(char c) {
  return strings::is_ascii_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

// A semver numeric component at the front of s: digits, no leading zero unless it is "0".
bool take_number(std::string_view& s, std::string_view& number) {
  std::size_t n = 0;
  while (n < s.size() && strings::is_ascii_digit(s[n])) ++n;
  if (n == 0 || (n > 1 && s[0] == '0')) return false;
  number = s.substr(0, n);
  s.remove_prefix(n);
  return true;
}

// Dot-separated non-empty identifiers of [0-9A-Za-z-]; numeric ones without leading zeros when
// `numeric_rule` (prerelease) is set.
bool valid_identifiers(std::string_view s, bool numeric_rule) {
  for (const auto& id : strings::split(s, '.')) {
    if (id.empty()) return false;
    bool all_digits = true;
    for (char c : id) {
      if (!is_ident_char(c)) return false;
      all_digits = all_digits && strings::is_ascii_digit(c);
    }
    if (numeric_rule && all_digits && id.size() > 1 && id[0] == '0') return false;
  }
  return true;
}

bool fits_uint32(std::string_view digits) {
  if (digits.size() > 10) return false;
  std::uint64_t v = 0;
  for (char c : digits) v = v * 10 + static_cast<std::uint64_t>(c - '0');
  return v <= UINT32_MAX;
}

}  // namespace

std::optional<bool> parse_go_bool(std::string_view text) {
  static constexpr std::array<std::string_view, 6> kTrue = {"1", "t", "T", "TRUE", "true", "True"};
  static constexpr std::array<std::string_view, 6> kFalse = {"0",     "f",     "F",
                                                             "FALSE", "false", "False"};
  for (auto t : kTrue) {
    if (text == t) return true;
  }
  for (auto f : kFalse) {
    if (text == f) return false;
  }
  return std::nullopt;
}

Result<std::string> cuda_major_minor(std::string_view cuda_version) {
  auto invalid = [&](std::string_view why) {
    // A legacy image (CUDA_VERSION without NVIDIA_REQUIRE_CUDA) requires cuda>=<major.minor>.
    return fail(
        fmt::format("invalid CUDA_VERSION '{}': {}; an image that sets CUDA_VERSION "
                    "without NVIDIA_REQUIRE_CUDA needs it as MAJOR[.MINOR[.PATCH]], e.g. "
                    "12.4.1",
                    cuda_version, why));
  };
  std::string_view s = cuda_version;
  if (!s.empty() && s.front() == 'v') s.remove_prefix(1);
  std::string_view major, minor = "0", patch;
  if (!take_number(s, major)) return invalid("not a version");
  int components = 1;
  while (components < 3 && !s.empty() && s.front() == '.') {
    s.remove_prefix(1);
    std::string_view& part = components == 1 ? minor : patch;
    if (!take_number(s, part)) return invalid("not a version");
    ++components;
  }
  if (!s.empty()) {
    // A prerelease or build suffix is only valid after a full major.minor.patch.
    if (components < 3) return invalid("not a version");
    std::string_view build;
    if (auto plus = s.find('+'); plus != std::string_view::npos) {
      build = s.substr(plus + 1);
      if (!valid_identifiers(build, false)) return invalid("bad build metadata");
      s = s.substr(0, plus);
    }
    if (!s.empty()) {
      if (s.front() != '-' || !valid_identifiers(s.substr(1), true))
        return invalid("not a version");
    }
  }
  if (!fits_uint32(major) || !fits_uint32(minor)) return invalid("component out of range");
  return fmt::format("{}.{}", major, minor);
}

bool requirements_disabled(const Request& req, const config::Config& cfg) {
  if (cfg.disable_require) return true;
  auto value = req.getenv("NVIDIA_DISABLE_REQUIRE");
  return value && parse_go_bool(*value).value_or(false);
}

Result<std::vector<std::string>> requirements(const Request& req, const config::Config& cfg) {
  std::vector<std::string> out;
  if (requirements_disabled(req, cfg)) return out;
  if (req.is_legacy_image()) {
    NVCT_ASSIGN_OR_RETURN(std::string version, cuda_major_minor(*req.getenv("CUDA_VERSION")));
    out.push_back("cuda>=" + version);
  }
  for (const auto& [name, value] : req.env) {
    if (!strings::starts_with(name, "NVIDIA_REQUIRE_")) continue;
    // Jetson variables select CSV mounts; they are not requirements.
    if (strings::starts_with(name, "NVIDIA_REQUIRE_JETPACK")) continue;
    if (strings::trim(value).empty()) continue;
    out.push_back(value);
  }
  return out;
}

}  // namespace nvct::request
