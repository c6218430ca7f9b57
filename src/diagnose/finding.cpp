// Severity names, the family list and the `<family>.ok` rule (spec/doctor.md §1, §3).
#include "nvct/diagnose/finding.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <array>

namespace nvct::diagnose {
namespace {

// §3 order; each family's checks are in src/diagnose/<family>.cpp.
constexpr std::array<std::string_view, 10> kFamilies = {
    "driver", "devices", "config", "engines", "binaries", "cdi", "cgroups", "ipc", "mig", "imex"};

}  // namespace

std::string_view severity_name(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarn:
      return "warn";
    case Severity::kInfo:
      return "info";
    case Severity::kOk:
      return "ok";
  }
  return "ok";
}

std::optional<Severity> parse_severity(std::string_view name) {
  for (Severity s : {Severity::kError, Severity::kWarn, Severity::kInfo, Severity::kOk}) {
    if (severity_name(s) == name) return s;
  }
  return std::nullopt;
}

std::string_view Finding::family() const {
  std::string_view view(id);
  return view.substr(0, view.find('.'));
}

std::span<const std::string_view> family_names() { return kFamilies; }

bool is_family(std::string_view name) {
  return std::find(kFamilies.begin(), kFamilies.end(), name) != kFamilies.end();
}

void add_capped_evidence(std::vector<std::string>& evidence, const std::vector<std::string>& lines) {
  for (std::size_t i = 0; i < lines.size() && i < kMaxEvidence; ++i) evidence.push_back(lines[i]);
  if (lines.size() > kMaxEvidence) {
    evidence.push_back(fmt::format("… and {} more", lines.size() - kMaxEvidence));
  }
}

void add_ok_unless_worse(std::vector<Finding>& findings, std::string_view family, std::string title,
                         std::vector<std::string> evidence) {
  bool worse = std::any_of(findings.begin(), findings.end(), [](const Finding& f) {
    return f.severity == Severity::kError || f.severity == Severity::kWarn;
  });
  if (worse) return;
  findings.push_back(
      {fmt::format("{}.ok", family), Severity::kOk, std::move(title), std::move(evidence), ""});
}

}  // namespace nvct::diagnose
