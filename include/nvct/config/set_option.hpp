// `nvidia-ctk config --set KEY[=VALUE]` (spec/config.md §6).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/config/document.hpp"

namespace nvct::config {

inline constexpr std::string_view kDefaultListSeparator = ":";

struct SetOption {
  std::string key;
  // monostate: delete the key (`=nil` on a nullable key).
  std::variant<std::monostate, bool, std::string, std::vector<std::string>> value;
};

// Splits on the first '='. A bool key alone means true; a list is split on list_separator if the
// value contains it, else on ',' if it contains that.
Result<SetOption> parse_set_option(std::string_view text,
                                   std::string_view list_separator = kDefaultListSeparator);

Status apply(Document& document, const SetOption& option);

}  // namespace nvct::config
