// A small YAML emitter with the layout of the reference generator (Go yaml.v3, indent 4): block
// lists, a "---" header, list items indented under their key, and a mapping inside a list item
// whose first key follows "- ". yaml-cpp's emitter lays lists out differently and does not quote
// strings that YAML 1.1 readers take as numbers (name "0"), hence this one.
#include <regex>

#include <fmt/format.h>

#include "nvct/cdi/spec_io.hpp"

namespace nvct::cdi {
namespace {

using nlohmann::ordered_json;

bool is_keyword(const std::string& s) {
  static const char* const kWords[] = {"~",    "null", "Null",  "NULL",  "true", "True",
                                       "TRUE", "false", "False", "FALSE", "yes",  "Yes",
                                       "YES",  "no",   "No",    "NO",    "on",   "On",
                                       "ON",   "off",  "Off",   "OFF",   "y",    "Y",
                                       "n",    "N",    "<<",    "="};
  for (const char* w : kWords) {
    if (s == w) return true;
  }
  return false;
}

// Strings a YAML 1.1 or 1.2 reader would take as a number or timestamp, including base-60
// forms such as "0:1" (a MIG device name) that YAML 1.1 reads as an integer.
bool looks_numeric(const std::string& s) {
  static const std::regex kNumber(
      R"([-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?)"
      R"(|[-+]?0[xX][0-9a-fA-F_]+|[-+]?0[oObB][0-7_]+)"
      R"(|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?)"
      R"(|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))"
      R"(|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?)");
  return std::regex_match(s, kNumber);
}

bool needs_quotes(const std::string& s) {
  if (s.empty() || is_keyword(s) || looks_numeric(s)) return true;
  static const std::string kSpecialFirst = "-?:,[]{}#&*!|>'\"%@` \t";
  if (kSpecialFirst.find(s.front()) != std::string::npos) {
    // "-x", "?x", ":x" are plain when followed by a non-space, but quoting is always safe.
    if (!((s.front() == '-' || s.front() == '?' || s.front() == ':') && s.size() > 1 &&
          s[1] != ' ')) {
      return true;
    }
  }
  if (s.back() == ' ' || s.back() == ':') return true;
  if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos) return true;
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", static_cast<unsigned>(c));
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string scalar(const ordered_json& v) {
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    return needs_quotes(s) ? quote(s) : s;
  }
  if (v.is_null()) return "null";
  return v.dump();
}

bool is_empty_container(const ordered_json& v) {
  return (v.is_object() || v.is_array()) && v.empty();
}

void emit_seq(std::string& out, const ordered_json& arr, std::size_t dash_col);
void emit_map(std::string& out, const ordered_json& obj, std::size_t key_col,
              std::size_t child_base, bool first_inline);

void emit_after_key(std::string& out, const ordered_json& v, std::size_t child_base) {
  if (is_empty_container(v)) {
    out += v.is_object() ? " {}\n" : " []\n";
  } else if (v.is_object()) {
    out += "\n";
    emit_map(out, v, child_base, child_base + 4, false);
  } else if (v.is_array()) {
    out += "\n";
    emit_seq(out, v, child_base);
  } else {
    out += " " + scalar(v) + "\n";
  }
}

void emit_map(std::string& out, const ordered_json& obj, std::size_t key_col,
              std::size_t child_base, bool first_inline) {
  bool first = true;
  for (const auto& [key, value] : obj.items()) {
    if (!(first && first_inline)) out.append(key_col, ' ');
    first = false;
    out += (needs_quotes(key) ? quote(key) : key) + ":";
    emit_after_key(out, value, child_base);
  }
}

void emit_seq(std::string& out, const ordered_json& arr, std::size_t dash_col) {
  for (const auto& item : arr) {
    out.append(dash_col, ' ');
    out += "-";
    if (is_empty_container(item)) {
      out += item.is_object() ? " {}\n" : " []\n";
    } else if (item.is_object()) {
      out += " ";
      emit_map(out, item, dash_col + 2, dash_col + 4, true);
    } else if (item.is_array()) {
      out += "\n";
      emit_seq(out, item, dash_col + 4);
    } else {
      out += " " + scalar(item) + "\n";
    }
  }
}

}  // namespace

std::string json_to_yaml(const ordered_json& value) {
  std::string out = "---\n";
  if (value.is_object() && !value.empty()) {
    emit_map(out, value, 0, 4, false);
  } else if (value.is_array() && !value.empty()) {
    emit_seq(out, value, 0);
  } else {
    out += (is_empty_container(value) ? (value.is_object() ? "{}" : "[]") : scalar(value)) + "\n";
  }
  return out;
}

}  // namespace nvct::cdi
