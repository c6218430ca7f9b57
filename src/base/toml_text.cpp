#include "nvct/base/toml_text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace nvct::toml_text {

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c < 0x20 || c == 0x7f)
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(c));
        else
          out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string key(std::string_view key) {
  bool bare = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
  });
  return bare ? std::string(key) : quote(key);
}

}  // namespace nvct::toml_text
