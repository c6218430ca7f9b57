// The table of config.toml keys (spec/config.md §3-§4): dotted name, value kind, and where the
// value lives in Config. Decoding, encoding the defaults and `--set` all walk this one table.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "nvct/config/config.hpp"

namespace nvct::config {

enum class ValueKind { kBool, kString, kStringList };

using FieldRef =
    std::variant<bool*, std::string*, std::vector<std::string>*, std::optional<std::string>*,
                 std::optional<std::vector<std::string>>*>;

struct KeySpec {
  std::string_view name;  // dotted: "nvidia-container-runtime.modes.cdi.spec-dirs"
  ValueKind kind;
  // A pointer in the reference's struct: `--set <key>=nil` deletes the key from the file.
  bool nullable;
  // Not written when it holds its zero value (false, "", []) or is unset.
  bool omit_empty;
  FieldRef (*field)(Config&);
};

std::span<const KeySpec> key_specs();
const KeySpec* find_key(std::string_view name);
std::string_view kind_name(ValueKind kind);

}  // namespace nvct::config
