// JSON output (spec/doctor.md §5): one object, camelCase keys, findings in text order; ok/info
// findings carry their evidence regardless of --verbose.
#include <nlohmann/json.hpp>

#include "nvct/base/version_info.hpp"
#include "nvct/diagnose/render.hpp"

namespace nvct::diagnose {

std::string render_json(const Report& report, int exit_code) {
  nlohmann::ordered_json doc;
  doc["schemaVersion"] = 1;
  doc["version"] = kVersion;
  doc["host"] = {{"root", report.root},
                 {"driverRoot", report.driver_root},
                 {"config", report.config},
                 {"dockerConfig", report.docker_config},
                 {"containerdConfig", report.containerd_config},
                 {"crioConfig", report.crio_config},
                 {"cdiSpecDirs", report.cdi_spec_dirs}};
  auto findings = nlohmann::ordered_json::array();
  for (const auto& f : report.findings) {
    findings.push_back({{"id", f.id},
                        {"family", std::string(f.family())},
                        {"severity", std::string(severity_name(f.severity))},
                        {"title", f.title},
                        {"evidence", f.evidence},
                        {"fix", f.fix}});
  }
  doc["findings"] = std::move(findings);
  Summary s = summarize(report.findings);
  doc["summary"] = {{"error", s.error}, {"warn", s.warn}, {"info", s.info}, {"ok", s.ok}};
  doc["durationMs"] = report.duration_ms;
  doc["exitCode"] = exit_code;
  // Evidence may hold non-UTF-8 bytes from a hostile file: replaced, never thrown.
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace nvct::diagnose
