// Strict JSON parsing for documents that another parser (runc, the hook's caller) also reads:
// anything two parsers could read differently is rejected instead of guessed (spec/runtime.md
// §5.2, security.md #32).
#pragma once

#include <cstddef>
#include <string_view>

#include <nlohmann/json.hpp>

#include "nvct/base/error.hpp"

namespace nvct::oci {

struct StrictJsonLimits {
  // Deepest allowed nesting of objects and arrays (the top-level value is depth 1).
  std::size_t max_depth = 64;
};

// Parses one JSON value and rejects, each with a message naming what is wrong:
// - syntax errors, trailing garbage, comments, and invalid UTF-8 (also lone \u surrogates);
// - a leading byte-order mark (Go's encoding/json rejects it; nlohmann would skip it);
// - nesting deeper than limits.max_depth (checked while parsing, before the tree is built);
// - duplicate keys in one object (Go keeps the last, nlohmann the first: a parser differential);
// - floating-point numbers and integers outside int64/uint64. The OCI runtime spec has no
//   float fields, and a float could not be written back with its exact text, so the policy is
//   to reject rather than silently change a value. The message names the JSON pointer.
// Integers keep their exact int64/uint64 value (18446744073709551615, -9223372036854775808).
Result<nlohmann::ordered_json> parse_strict_json(std::string_view text,
                                                 StrictJsonLimits limits = {});

}  // namespace nvct::oci
