// Internal to the config module: the toml++ tree behind Document, and the conversions between a
// tree and Config. Kept out of include/ so that users of the module do not compile toml++.
#pragma once

#include <toml++/toml.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"
#include "nvct/config/document.hpp"

namespace nvct::config {

struct Document::Impl {
  toml::table table;
  // Dotted keys set by the file or by --set (as opposed to filled in from the defaults).
  std::set<std::string, std::less<>> explicit_keys;
};

std::vector<std::string> split_key(std::string_view dotted);

// The node at a dotted key; nullptr when a component is missing or not a table.
const toml::node* find_node(const toml::table& table, std::string_view dotted);

// Copies every known key of the tree into config. Unknown keys are ignored; a known key or table
// of the wrong type is an error naming it.
Status decode(const toml::table& table, Config& config);

// The keys of a Config as a tree (omit_empty keys left out when empty or unset).
toml::table encode(const Config& config);

}  // namespace nvct::config
