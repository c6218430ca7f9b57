// CDI spec files (YAML or JSON, strict decoding), validation, and both writers; a valid spec
// written by nvct reads back.
#include "fuzz_common.hpp"
#include "nvct/cdi/spec_io.hpp"
#include "nvct/cdi/validate.hpp"

using namespace nvct;

NVCT_FUZZ_TARGET {
  if (size > cdi::kMaxSpecFileSize) return 0;
  auto spec = cdi::parse_spec(fuzz::as_text(data, size), "<fuzz>");
  if (!spec) return 0;
  bool valid = cdi::validate_spec(*spec).has_value();
  std::string yaml = cdi::to_yaml(*spec);
  std::string json = cdi::to_json_text(*spec);
  if (valid) {
    auto from_yaml = cdi::parse_spec(yaml, "<fuzz yaml>");
    auto from_json = cdi::parse_spec(json, "<fuzz json>");
    if (!from_yaml || !from_json) __builtin_trap();
  }
  return 0;
}
