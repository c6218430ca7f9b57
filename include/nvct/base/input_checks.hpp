// Cheap checks run on untrusted text before a parser sees it (security.md §8 "JSON fidelity",
// issue 18): nesting depth (nlohmann, toml++ and yaml-cpp all recurse somewhere, and 100 000
// nested arrays overflow the stack), NUL bytes (a C-string consumer would silently truncate the
// document and the rewrite would lose the rest) and invalid UTF-8.
#pragma once

#include <cstddef>
#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct {

inline constexpr std::size_t kMaxNestingDepth = 128;

enum class TextSyntax { kJson, kToml, kYaml };

// The deepest nesting of arrays/objects (JSON), arrays/inline tables (TOML) or flow collections
// plus indentation levels (YAML), ignoring brackets inside strings and comments. The scan stops
// early once it passes `stop_after`.
std::size_t nesting_depth(std::string_view text, TextSyntax syntax,
                          std::size_t stop_after = static_cast<std::size_t>(-1));

// Fails with EINVAL when the text nests deeper than max_depth; `origin` names the file.
Status check_nesting_depth(std::string_view text, TextSyntax syntax, std::string_view origin,
                           std::size_t max_depth = kMaxNestingDepth);

// Fails with EINVAL on a NUL byte or invalid UTF-8 (overlong forms, surrogates, code points
// past U+10FFFF, truncated sequences), naming the line and byte offset.
Status check_text_encoding(std::string_view text, std::string_view origin);

// Both checks: what every config/spec reader calls before parsing.
Status check_untrusted_text(std::string_view text, TextSyntax syntax, std::string_view origin,
                            std::size_t max_depth = kMaxNestingDepth);

}  // namespace nvct
