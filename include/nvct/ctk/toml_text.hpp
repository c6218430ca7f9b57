// TOML text <-> tree for the containerd and CRI-O engines (spec/ctk.md §6.1 "TOML serialisation").
// The writer reproduces go-toml v1's Marshal layout, which is what NVIDIA's tool writes, so a file
// edited by nvct diffs cleanly against one edited by the reference.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"

namespace nvct::ctk {

// Parses TOML text. `origin` names the source in error messages ("<file>: line 2, column 3: ...").
Result<toml::table> parse_toml(std::string_view text, std::string_view origin);

// Serialises a tree: keys sorted bytewise; scalars and inline arrays before sub-tables; every table
// header preceded by an empty line and indented two spaces per nesting level; keys that are not
// bare (A-Za-z0-9_-) quoted; empty tables still emitted. An empty tree gives "".
std::string write_toml(const toml::table& tree);

// One value as write_toml writes it after "key = ".
std::string write_toml_value(const toml::node& value);

// The table at `path` as a block of write_toml's layout: an empty line, its header indented two
// spaces per level above the first, its keys and its sub-tables.
std::string write_toml_table_at(const toml::table& table, const std::vector<std::string>& path);

}  // namespace nvct::ctk
