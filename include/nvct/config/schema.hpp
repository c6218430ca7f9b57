// The table of config.toml keys (spec/config.md §3-§4): dotted name, value kind, and where the
// value lives in Config. Decoding, encoding the defaults and `--set` all walk this one table.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"

namespace nvct::config {

enum class ValueKind { kBool, kString, kStringList };

using FieldRef =
    std::variant<bool*, std::string*, std::vector<std::string>*, std::optional<std::string>*,
                 std::optional<std::vector<std::string>>*>;

// The values a string key accepts; no values means any string.
struct AllowedValues {
  std::span<const std::string_view> values;
  bool ignore_case = false;  // log-level: the reference parses it case-insensitively
  bool comma_list = false;   // a comma-separated subset of `values` ("" is the empty subset)
};

struct KeySpec {
  std::string_view name;  // dotted: "nvidia-container-runtime.modes.cdi.spec-dirs"
  ValueKind kind;
  // A pointer in the reference's struct: `--set <key>=nil` deletes the key from the file.
  bool nullable;
  // Not written when it holds its zero value (false, "", []) or is unset.
  bool omit_empty;
  FieldRef (*field)(Config&);
  AllowedValues allowed = {};
};

std::span<const KeySpec> key_specs();
const KeySpec* find_key(std::string_view name);
std::string_view kind_name(ValueKind kind);

// Checks a string value against spec.allowed. The error names the key, the value, the valid
// values and, for a near miss, the nearest one:
//   nvidia-container-runtime.mode: invalid value "legcy" (valid values: auto, legacy, cdi,
//   jit-cdi, csv); did you mean "legacy"?
Status check_value(const KeySpec& spec, std::string_view value);

// The valid values of a key as "a, b, c" ("" when any string is valid).
std::string allowed_values_text(const KeySpec& spec);

}  // namespace nvct::config
