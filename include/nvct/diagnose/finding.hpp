// The findings model of `nvidia-ctk doctor` (spec/doctor.md §1): one finding per check outcome,
// with a stable id, a severity, a one-line title, the evidence it rests on and the fix to copy.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nvct::diagnose {

// Ordered from the most to the least severe.
enum class Severity { kError, kWarn, kInfo, kOk };

// "error", "warn", "info", "ok".
std::string_view severity_name(Severity severity);
// The inverse of severity_name; nullopt for another word.
std::optional<Severity> parse_severity(std::string_view name);

struct Finding {
  std::string id;  // "family.name", never reused for another meaning
  Severity severity = Severity::kOk;
  std::string title;
  std::vector<std::string> evidence;  // "path: observed fact"
  std::string fix;                    // a command or edit to copy, or ""

  // The family: the id up to its first dot.
  std::string_view family() const;
};

// The families of spec/doctor.md §3 that doctor runs, in output order.
std::span<const std::string_view> family_names();
bool is_family(std::string_view name);

// Appends `<family>.ok` with `title` unless `findings` holds an error or a warning: every family
// shows what was checked (§1).
// Appends lines to a finding's evidence, at most kMaxEvidence of them and then "… and N more".
inline constexpr std::size_t kMaxEvidence = 8;
void add_capped_evidence(std::vector<std::string>& evidence, const std::vector<std::string>& lines);

void add_ok_unless_worse(std::vector<Finding>& findings, std::string_view family, std::string title,
                         std::vector<std::string> evidence = {});

}  // namespace nvct::diagnose
