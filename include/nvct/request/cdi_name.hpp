// CDI qualified device names "vendor/class=name" (the CDI parser's rules), used to recognise CDI
// requests in volume mounts and to qualify bare ids with a default kind (spec/request.md §3, §4).
#pragma once

#include <string>
#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct::request {

struct QualifiedName {
  std::string vendor;  // "nvidia.com"
  std::string klass;   // "gpu"
  std::string name;    // "0", "all", "GPU-..."

  std::string kind() const { return vendor + "/" + klass; }
  std::string str() const { return kind() + "=" + name; }
};

// vendor: a letter, then letters, digits, '_', '-', '.', ending in a letter or digit;
// class: the same without '.'; name: a letter or digit, then letters, digits, '_', '-', '.',
// ':', ending in a letter or digit.
Result<QualifiedName> parse_qualified_name(std::string_view text);
bool is_qualified_name(std::string_view text);

// "vendor/class" with the vendor and class rules above.
Status validate_kind(std::string_view kind);

}  // namespace nvct::request
