// Unknown config.toml keys and the valid key each one was probably meant to be.
#include "nvct/config/unknown_keys.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "nvct/base/edit_distance.hpp"
#include "nvct/base/log.hpp"
#include "nvct/config/schema.hpp"

namespace nvct::config {
namespace {

constexpr std::size_t kMaxDistance = 2;

std::string_view leaf_of(std::string_view dotted) {
  std::size_t dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

bool is_prefix_of(std::string_view table, std::string_view key) {
  return key.size() > table.size() && key.substr(0, table.size()) == table &&
         key[table.size()] == '.';
}

// True for a table the schema has keys under ("nvidia-container-runtime.modes").
bool is_known_table(std::string_view name) {
  const auto specs = key_specs();
  return std::any_of(specs.begin(), specs.end(),
                     [&](const KeySpec& spec) { return is_prefix_of(name, spec.name); });
}

// True when a component-wise prefix of `key` is a valid key: the file holds a table (or a dotted
// key) where the schema wants a value, which loading reports as a type error.
bool under_known_key(std::string_view key) {
  for (std::size_t dot = key.find('.'); dot != std::string_view::npos;
       dot = key.find('.', dot + 1)) {
    if (find_key(key.substr(0, dot)) != nullptr) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> suggest_keys(std::string_view key) {
  if (find_key(key) != nullptr) return {};
  const auto specs = key_specs();
  std::vector<std::string_view> names;
  for (const KeySpec& spec : specs) names.push_back(spec.name);

  // 1. A typo anywhere in the dotted key.
  if (auto near = nearest_words(key, names, kMaxDistance); !near.empty()) return near;

  // 2. The right name under the wrong table (or none).
  const std::string_view leaf = leaf_of(key);
  std::vector<std::string> same_leaf;
  for (std::string_view name : names) {
    if (leaf_of(name) == leaf) same_leaf.emplace_back(name);
  }
  if (!same_leaf.empty()) return same_leaf;

  // 3. A typo in the name under the wrong table. Short names get less slack: two edits turn
  //    "foo" into "root", which is no hint at all.
  const std::size_t max_distance =
      std::min(kMaxDistance, std::max<std::size_t>(1, leaf.size() / 3));
  std::size_t best = max_distance + 1;
  std::vector<std::string> out;
  for (std::string_view name : names) {
    const std::size_t d = edit_distance(leaf, leaf_of(name));
    if (d > max_distance || d > best) continue;
    if (d < best) {
      best = d;
      out.clear();
    }
    out.emplace_back(name);
  }
  return out;
}

std::vector<UnknownKey> unknown_keys(const Document& document) {
  std::vector<UnknownKey> out;
  for (const std::string& key : document.keys()) {
    if (find_key(key) != nullptr || is_known_table(key) || under_known_key(key)) continue;
    out.push_back(UnknownKey{key, suggest_keys(key)});
  }
  return out;
}

std::string describe(const UnknownKey& unknown) {
  std::string text = fmt::format("unknown key \"{}\" is ignored", unknown.key);
  if (unknown.suggestions.empty()) {
    text += " (`nvidia-ctk config default` lists the valid keys)";
  } else {
    text += fmt::format("; did you mean {}?", quoted_alternatives(unknown.suggestions));
  }
  return text;
}

void warn_unknown_keys(const Document& document, std::string_view source) {
  for (const UnknownKey& unknown : unknown_keys(document)) {
    log::warn("{}: {}", source, describe(unknown));
  }
}

}  // namespace nvct::config
