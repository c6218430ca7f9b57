#include "nvct/ctk/toml_text.hpp"

#include "nvct/base/input_checks.hpp"
#include "nvct/base/toml_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace nvct::ctk {

Result<toml::table> parse_toml(std::string_view text, std::string_view origin) {
  NVCT_TRY(check_untrusted_text(text, TextSyntax::kToml, origin));
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return fail(EINVAL, fmt::format("{}: line {}, column {}: {}", origin, where.line, where.column,
                                    e.description()));
  } catch (const std::exception& e) {
    return fail(EINVAL, fmt::format("{}: {}", origin, e.what()));
  }
}

namespace {

std::string key_text(std::string_view key) { return toml_text::key(key); }

std::string float_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::trunc(v) == v && std::fabs(v) < 1e16) return fmt::format("{:.1f}", v);
  return fmt::format("{}", v);
}

template <class T>
std::string streamed(const T& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

std::string value_text(const toml::node& node);

std::string array_text(const toml::array& arr) {
  std::vector<std::string> items;
  for (const auto& el : arr) items.push_back(value_text(el));
  return "[" + fmt::format("{}", fmt::join(items, ", ")) + "]";
}

// Inline form of a table inside a mixed array (go-toml never produces these itself).
std::string inline_table_text(const toml::table& tbl) {
  std::vector<std::string> items;
  for (const auto& [k, v] : tbl) items.push_back(key_text(k.str()) + " = " + value_text(v));
  return "{" + fmt::format("{}", fmt::join(items, ", ")) + "}";
}

std::string value_text(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return toml_text::quote(node.as_string()->get());
    case toml::node_type::integer:
      return std::to_string(node.as_integer()->get());
    case toml::node_type::floating_point:
      return float_text(node.as_floating_point()->get());
    case toml::node_type::boolean:
      return node.as_boolean()->get() ? "true" : "false";
    case toml::node_type::date:
      return streamed(node.as_date()->get());
    case toml::node_type::time:
      return streamed(node.as_time()->get());
    case toml::node_type::date_time:
      return streamed(node.as_date_time()->get());
    case toml::node_type::array:
      return array_text(*node.as_array());
    case toml::node_type::table:
      return inline_table_text(*node.as_table());
    case toml::node_type::none:
      break;
  }
  return "\"\"";
}

bool is_table_array(const toml::node& node) {
  const auto* arr = node.as_array();
  return arr != nullptr && !arr->empty() && arr->is_array_of_tables();
}

std::vector<std::string> sorted_keys(const toml::table& tbl) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : tbl) keys.emplace_back(k.str());
  std::sort(keys.begin(), keys.end());
  return keys;
}

void write_table(const toml::table& tbl, const std::string& header, const std::string& indent,
                 std::string& out) {
  const auto keys = sorted_keys(tbl);
  for (const auto& k : keys) {
    const toml::node& v = *tbl.get(k);
    if (v.is_table() || is_table_array(v)) continue;
    out += indent + key_text(k) + " = " + value_text(v) + "\n";
  }
  for (const auto& k : keys) {
    const toml::node& v = *tbl.get(k);
    std::string name = header.empty() ? key_text(k) : header + "." + key_text(k);
    if (const auto* sub = v.as_table()) {
      out += "\n" + indent + "[" + name + "]\n";
      write_table(*sub, name, indent + "  ", out);
    } else if (is_table_array(v)) {
      for (const auto& el : *v.as_array()) {
        out += "\n" + indent + "[[" + name + "]]\n";
        write_table(*el.as_table(), name, indent + "  ", out);
      }
    }
  }
}

}  // namespace

std::string write_toml(const toml::table& tree) {
  std::string out;
  write_table(tree, "", "", out);
  return out;
}

std::string write_toml_value(const toml::node& value) { return value_text(value); }

std::string write_toml_table_at(const toml::table& table, const std::vector<std::string>& path) {
  std::string name;
  std::string indent;
  for (std::size_t i = 0; i < path.size(); ++i) {
    name += (i == 0 ? "" : ".") + key_text(path[i]);
    if (i > 0) indent += "  ";
  }
  std::string out = "\n" + indent + "[" + name + "]\n";
  write_table(table, name, indent + "  ", out);
  return out;
}

}  // namespace nvct::ctk
