// CDI qualified device names and kinds (spec/cdi.md §2), used by the request (request.md §3, §4)
// and re-exported by the cdi module. Rules: "vendor/class=name", vendor and class checks, device names.
#pragma once

#include <string>
#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct::request {

struct QualifiedName {
  std::string vendor;
  std::string klass;
  std::string name;

  std::string kind() const { return vendor + "/" + klass; }
  std::string str() const { return kind() + "=" + name; }
  friend bool operator==(const QualifiedName&, const QualifiedName&) = default;
};

// Splits at the first '=' and then at the first '/' without checking the parts. A name starting
// with '/' is a path: everything goes to `name`, vendor and class stay empty.
QualifiedName split_qualified_name(std::string_view text);

// Splits and checks every part; the error names the part that is wrong.
Result<QualifiedName> parse_qualified_name(std::string_view text);
bool is_qualified_name(std::string_view text);

// vendor: a letter, then [A-Za-z0-9_.-], ending alphanumeric (one char is fine).
Status validate_vendor(std::string_view vendor);
// class: the same rule as vendor.
Status validate_class(std::string_view klass);
// device name: alphanumeric first, then [A-Za-z0-9_.:-], ending alphanumeric.
Status validate_device_name(std::string_view name);
// "vendor/class": split at the first '/'.
Status validate_kind(std::string_view kind);

// "vendor-class": the conventional spec file name stem (nvidia.com/gpu -> nvidia.com-gpu).
std::string spec_file_stem(std::string_view vendor, std::string_view klass);

}  // namespace nvct::request
