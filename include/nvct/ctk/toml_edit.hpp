// Edits of TOML text that keep what they do not touch byte for byte: the comments, blank lines,
// indentation and key order of an admin's containerd config.toml (issue 14). The caller computes
// the tree it wants (with ContainerdConfig) and names the tables and keys that may differ.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nvct/base/error.hpp"

namespace nvct::ctk {

using TomlPath = std::vector<std::string>;

struct TomlEdits {
  // Tables replaced whole, sub-tables included, by the target's (removed when it has none).
  std::vector<TomlPath> tables;
  // {table, key}: set to the target's value (removed when it has none). An array the target
  // extends is appended to in place, keeping its layout and comments.
  std::vector<std::pair<TomlPath, std::string>> keys;
};

// Rewrites `text` so that it parses to `target`, changing only `edits`: replaced tables go where
// they were, new ones after the last table that shares the longest prefix of their path (at the
// end when none does), new keys after the last key of their table. Text that already parses to
// `target` comes back unchanged. Error (nothing to salvage: the caller rewrites the file) when the
// text defines an edited table in a form this does not edit (inline tables, dotted keys) or the
// result does not parse to `target`.
Result<std::string> edit_toml_text(std::string_view text, const toml::table& target,
                                   const TomlEdits& edits);

}  // namespace nvct::ctk
