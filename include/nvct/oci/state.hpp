// The OCI state that a runtime writes to a hook's stdin (spec/hook.md §3, §7):
// {"ociVersion","id","status","pid","bundle","annotations"}.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "nvct/base/error.hpp"

namespace nvct::oci {

// Cap for the caller's read of stdin: a state is a few hundred bytes plus annotations.
inline constexpr std::size_t kMaxStateSize = 1u << 20;

struct State {
  std::string oci_version;
  std::string id;
  std::string status;
  std::string bundle;
  // 0 when absent: runtimes omit it once the container has stopped (poststop). The hook
  // itself requires pid > 0 for prestart.
  int pid = 0;
  // Always an object (empty when absent or null); values are strings.
  nlohmann::ordered_json annotations = nlohmann::ordered_json::object();
  // The reference's "root" extension: the container root path when the caller provides it,
  // as a string or as {"path": "..."} like the spec's root.
  std::optional<std::string> root;
};

// Parses a state document (size-capped by the caller). Required: ociVersion, id, status (strings),
// bundle (absolute path; the legacy key "bundlePath" is accepted when "bundle" is absent).
// Optional: pid (integer 0..INT_MAX), annotations (object of strings or null), root. Unknown
// fields are ignored. Errors name the field. Uses parse_strict_json() (duplicate keys, depth and
// floats are rejected).
Result<State> parse_state(std::string_view json);

}  // namespace nvct::oci
