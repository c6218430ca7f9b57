// Reading and writing CDI spec files (spec/cdi.md §1). Files are YAML or JSON; both are read with
// the YAML parser (JSON is YAML), with unknown and duplicate keys rejected as the reference's
// strict decoding does. Output keeps the format's field order and omits empty fields.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "nvct/base/error.hpp"
#include "nvct/cdi/spec.hpp"

namespace nvct::cdi {

inline constexpr std::size_t kMaxSpecFileSize = 4u << 20;

enum class Format { kYaml, kJson };

// Parses without validating; `name` (a path, "<stdin>") is used in messages.
Result<Spec> parse_spec(std::string_view text, std::string_view name);
// Reads (at most kMaxSpecFileSize bytes), parses and validates a spec file.
Result<Spec> load_spec_file(const std::string& path);

nlohmann::ordered_json to_json(const Spec& spec);
// Compact JSON and a trailing newline.
std::string to_json_text(const Spec& spec);
// "---" header, block lists, 4-space indentation (the reference generator's layout).
std::string to_yaml(const Spec& spec);
std::string render(const Spec& spec, Format format);

// The YAML emitter used by to_yaml(), for any JSON value (objects keep their key order).
std::string json_to_yaml(const nlohmann::ordered_json& value);

}  // namespace nvct::cdi
