// JSON text in the layout NVIDIA's tool writes daemon.json with (Go json.MarshalIndent of a map):
// 4-space indent, object keys sorted bytewise at every level, "<", ">", "&", U+2028 and U+2029
// escaped, no trailing newline (spec/ctk.md §5.1). Integers keep their exact value (the reference
// rounds them through float64; nvct does not).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct::ctk {

// Parses a JSON document strictly: no comments, no trailing commas, no byte-order mark.
Result<nlohmann::ordered_json> parse_json(std::string_view text, std::string_view origin);

std::string write_go_json(const nlohmann::ordered_json& doc);

}  // namespace nvct::ctk
