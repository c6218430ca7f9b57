// `--set KEY[=VALUE]` parsing and application (spec/config.md §6).
#include "nvct/config/set_option.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "nvct/base/edit_distance.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/config/schema.hpp"
#include "nvct/config/unknown_keys.hpp"

namespace nvct::config {
namespace {

// The spellings Go's strconv.ParseBool accepts, which the reference uses for --set.
bool parse_go_bool(std::string_view text, bool& out) {
  static constexpr std::string_view kTrue[] = {"1", "t", "T", "TRUE", "true", "True"};
  static constexpr std::string_view kFalse[] = {"0", "f", "F", "FALSE", "false", "False"};
  if (std::find(std::begin(kTrue), std::end(kTrue), text) != std::end(kTrue)) {
    out = true;
    return true;
  }
  if (std::find(std::begin(kFalse), std::end(kFalse), text) != std::end(kFalse)) {
    out = false;
    return true;
  }
  return false;
}

std::vector<std::string> split_list(std::string_view value, std::string_view list_separator) {
  for (std::string_view sep : {list_separator, std::string_view(",")}) {
    if (sep.empty() || value.find(sep) == std::string_view::npos) continue;
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t pos; (pos = value.find(sep, start)) != std::string_view::npos;
         start = pos + sep.size()) {
      parts.emplace_back(value.substr(start, pos - start));
    }
    parts.emplace_back(value.substr(start));
    return parts;
  }
  return {std::string(value)};
}

}  // namespace

Result<SetOption> parse_set_option(std::string_view text, std::string_view list_separator) {
  std::size_t eq = text.find('=');
  std::string key(text.substr(0, eq));
  const KeySpec* spec = find_key(key);
  if (spec == nullptr) {
    std::string message = fmt::format("unknown config key \"{}\"", key);
    if (auto near = suggest_keys(key); !near.empty()) {
      message += fmt::format("; did you mean {}?", quoted_alternatives(near));
    } else {
      message += " (`nvidia-ctk config default` lists the valid keys)";
    }
    return fail(EINVAL, std::move(message));
  }

  if (eq == std::string_view::npos) {
    if (spec->kind == ValueKind::kBool) return SetOption{key, true};
    return fail(EINVAL, fmt::format("{}: expected {}=<value>", key, key));
  }
  std::string_view value = text.substr(eq + 1);
  if (spec->nullable && value == "nil") return SetOption{key, std::monostate{}};

  switch (spec->kind) {
    case ValueKind::kBool: {
      bool b = false;
      if (!parse_go_bool(value, b)) {
        return fail(EINVAL, fmt::format("{}: invalid value \"{}\": expected a boolean (valid "
                                        "values: true, false, 1, 0, t, f)",
                                        key, value));
      }
      return SetOption{key, b};
    }
    case ValueKind::kString:
      // An enum key gets a value the runtime and the hook accept, or nothing is written.
      NVCT_TRY(check_value(*spec, value));
      return SetOption{key, std::string(value)};
    case ValueKind::kStringList:
      return SetOption{key, split_list(value, list_separator)};
  }
  return fail(EINVAL, fmt::format("{}: unsupported value kind", key));
}

Status apply(Document& document, const SetOption& option) {
  return std::visit(
      [&](const auto& v) -> Status {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::monostate>) {
          document.erase(option.key);
          return ok();
        } else if constexpr (std::is_same_v<V, bool>) {
          return document.set_bool(option.key, v);
        } else if constexpr (std::is_same_v<V, std::string>) {
          return document.set_string(option.key, v);
        } else {
          return document.set_string_list(option.key, v);
        }
      },
      option.value);
}

}  // namespace nvct::config
