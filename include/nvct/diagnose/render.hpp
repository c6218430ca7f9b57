// Doctor's output (spec/doctor.md §5): text grouped by family, or one JSON object.
#pragma once

#include <string>

#include "nvct/diagnose/doctor.hpp"

namespace nvct::diagnose {

struct TextStyle {
  bool color = false;    // ANSI colours on the severity words
  bool verbose = false;  // evidence and fix of ok/info findings too
  bool timing = true;    // "(N ms)" on the summary line
};

std::string render_text(const Report& report, const TextStyle& style);
// camelCase, schemaVersion 1; `exit_code` is the code the command exits with.
std::string render_json(const Report& report, int exit_code);

}  // namespace nvct::diagnose
