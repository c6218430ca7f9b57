// cdiVersion handling (spec/cdi.md §1): the known versions, and the minimum version a spec's
// content needs, so that generated specs stay readable by older consumers (Podman 4.3 on
// Debian 12 reads <= 0.5.0).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/cdi/spec.hpp"

namespace nvct::cdi {

inline constexpr const char* kCurrentVersion = "1.1.0";

struct Version {
  int major = 0;
  int minor = 0;
  int patch = 0;
  std::string str() const;
  friend auto operator<=>(const Version&, const Version&) = default;
};

// "1.2.3" or "v1.2.3".
Result<Version> parse_version(std::string_view text);
// 0.1.0 ... 1.1.0.
const std::vector<Version>& known_versions();
bool is_known_version(std::string_view text);

// The highest version whose features the spec uses; 0.3.0 when it uses none.
Version minimum_required_version(const Spec& spec);

// The cdiVersion must be known and at least the minimum the content needs.
Status validate_version(const Spec& spec);

}  // namespace nvct::cdi
