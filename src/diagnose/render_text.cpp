// Text output (spec/doctor.md §5): a header, the findings grouped by family (severity padded to 7,
// id to 29 columns, evidence and fix indented 9), and a summary line.
#include <fmt/format.h>

#include "nvct/diagnose/render.hpp"

namespace nvct::diagnose {
namespace {

constexpr std::string_view kIndent = "         ";

std::string_view color_of(Severity s) {
  switch (s) {
    case Severity::kError:
      return "\033[31m";
    case Severity::kWarn:
      return "\033[33m";
    case Severity::kOk:
      return "\033[32m";
    case Severity::kInfo:
      return "";
  }
  return "";
}

std::string plural(int n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

std::string render_text(const Report& report, const TextStyle& style) {
  std::string out = fmt::format("nvidia-ctk doctor — host {}, driver root {}, config {}\n",
                                report.root, report.driver_root, report.config);
  std::string_view family;
  for (const auto& f : report.findings) {
    if (f.family() != family) {
      family = f.family();
      out += fmt::format("\n{}\n", family);
    }
    std::string sev = fmt::format("{:<7}", severity_name(f.severity));
    std::string_view color = style.color ? color_of(f.severity) : "";
    if (!color.empty())
      sev = fmt::format("{}{}\033[0m{}", color, severity_name(f.severity),
                        sev.substr(severity_name(f.severity).size()));
    std::string id = fmt::format("{:<29}", f.id);
    if (id.size() == f.id.size()) id += ' ';
    out += fmt::format("  {}{}{}\n", sev, id, f.title);
    bool details = style.verbose || f.severity == Severity::kError || f.severity == Severity::kWarn;
    if (!details) continue;
    for (const auto& e : f.evidence) out += fmt::format("{}evidence: {}\n", kIndent, e);
    if (!f.fix.empty()) out += fmt::format("{}fix:      {}\n", kIndent, f.fix);
  }
  Summary s = summarize(report.findings);
  out += fmt::format("\n{}, {}, {} info, {} ok", plural(s.error, "error", "errors"),
                     plural(s.warn, "warning", "warnings"), s.info, s.ok);
  if (style.timing) out += fmt::format(" ({} ms)", report.duration_ms);
  out += '\n';
  return out;
}

}  // namespace nvct::diagnose
