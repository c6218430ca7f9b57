#include "hook_failure.hpp"

#include <fmt/format.h>

#include "nvct/base/log.hpp"

namespace nvct::hook {

std::string single_line(std::string_view message) {
  std::string out(message);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return out;
}

std::string failure_log_text(std::string_view id, std::string_view bundle, std::string_view line) {
  if (id.empty() && bundle.empty()) return fmt::format("prestart failed: {}", line);
  return fmt::format("prestart of container {} (bundle {}) failed: {}", id.empty() ? "?" : id,
                     bundle.empty() ? "?" : bundle, line);
}

int FailureReporter::fail(std::string_view message) const {
  std::string line = single_line(message);
  print_(line);
  log::error("{}", failure_log_text(id_, bundle_, line));
  return 1;
}

}  // namespace nvct::hook
