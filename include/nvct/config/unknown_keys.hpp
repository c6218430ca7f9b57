// Keys of a config file that the schema does not know, each with the key the user probably meant
// (spec/doctor.md §3.3 `config.unknown-key`). The reference ignores such keys silently; nvct still
// ignores them but says so, because a typo otherwise leaves a setting at its default unnoticed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nvct/config/document.hpp"

namespace nvct::config {

struct UnknownKey {
  std::string key;                       // dotted, as in the file: "nvidia-container-runtime.mdoe"
  std::vector<std::string> suggestions;  // the nearest valid keys; empty when none is close
};

// The valid keys the user probably meant by `key`, in schema order:
//   1. the keys at the smallest edit distance from the whole dotted key, when it is <= 2
//      ("nvidia-container-runtime.mdoe" -> "nvidia-container-runtime.mode");
//   2. else the keys with the same last component under another table
//      ("root" -> "nvidia-container-cli.root"; "debug" -> both debug keys);
//   3. else the keys whose last component is within distance 2 of it
//      ("[nvidia-container-cli] ldconfg" -> "nvidia-container-cli.ldconfig" is case 1;
//      "log_level" at the top -> "nvidia-container-runtime.log-level").
// Empty when `key` is a valid key or nothing is close.
std::vector<std::string> suggest_keys(std::string_view key);

// Every key of the document that is not in the schema, sorted by key (Document::keys()).
// A table the schema does not know is reported through its keys, or as itself when empty. A known
// key holding a table is not reported here: loading it fails with a type error.
std::vector<UnknownKey> unknown_keys(const Document& document);

// `unknown key "x" is ignored; did you mean "y"?` (without the file: callers prefix it).
std::string describe(const UnknownKey& unknown);

// Logs describe() for each unknown key of the document as a warning prefixed by `source` (the
// file), as every binary that reads config.toml does.
void warn_unknown_keys(const Document& document, std::string_view source);

}  // namespace nvct::config
