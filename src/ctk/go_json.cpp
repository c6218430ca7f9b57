#include "nvct/ctk/go_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "nvct/base/input_checks.hpp"

namespace nvct::ctk {

Result<nlohmann::ordered_json> parse_json(std::string_view text, std::string_view origin) {
  // nlohmann skips a UTF-8 BOM silently; a BOM in daemon.json is rejected by dockerd, so refuse
  // to "fix" the file by rewriting it without one (security checklist #42).
  if (text.substr(0, 3) == "\xEF\xBB\xBF")
    return fail(EINVAL, fmt::format("{}: byte-order mark is not allowed in JSON", origin));
  // A NUL byte, invalid UTF-8 or 100 000 nested arrays (a stack overflow in the parser or in
  // the writer's recursion) are refused before parsing (issue 18).
  NVCT_TRY(check_untrusted_text(text, TextSyntax::kJson, origin));
  // A duplicate key is refused: nlohmann keeps one value and dockerd (Go) the last, and the
  // rewrite would silently drop the other (issue 18).
  std::vector<std::unordered_set<std::string>> keys;
  std::string duplicate;
  auto callback = [&](int, nlohmann::ordered_json::parse_event_t event,
                      nlohmann::ordered_json& parsed) {
    using Event = nlohmann::ordered_json::parse_event_t;
    if (event == Event::object_start) {
      keys.emplace_back();
    } else if (event == Event::object_end) {
      if (!keys.empty()) keys.pop_back();
    } else if (event == Event::key && !keys.empty() && parsed.is_string()) {
      if (!keys.back().insert(parsed.get<std::string>()).second && duplicate.empty())
        duplicate = parsed.get<std::string>();
    }
    return true;
  };
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(text, callback, true, false);
  } catch (const nlohmann::json::exception& e) {
    return fail(EINVAL, fmt::format("{}: invalid JSON: {}", origin, e.what()));
  }
  if (!duplicate.empty())
    return fail(EINVAL, fmt::format("{}: duplicate key \"{}\" in one object; keep one of them "
                                    "(nothing was written)",
                                    origin, duplicate));
  return doc;
}

namespace {

void write_string(std::string_view s, std::string& out) {
  out += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '\b':
        out += "\\b";
        continue;
      case '\f':
        out += "\\f";
        continue;
      case '<':
      case '>':
      case '&':
        out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        continue;
      default:
        break;
    }
    if (c < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(s[i + 2]) == 0xA8 ||
                static_cast<unsigned char>(s[i + 2]) == 0xA9)) {
      // U+2028/U+2029 break JavaScript string literals; Go escapes them.
      out += static_cast<unsigned char>(s[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

void write_value(const nlohmann::ordered_json& v, const std::string& indent, std::string& out) {
  const std::string inner = indent + "    ";
  if (v.is_object()) {
    if (v.empty()) {
      out += "{}";
      return;
    }
    // Pointers into the object: ordered_json looks keys up linearly, so no at() per key.
    std::vector<std::pair<const std::string*, const nlohmann::ordered_json*>> entries;
    entries.reserve(v.size());
    for (auto it = v.begin(); it != v.end(); ++it) entries.emplace_back(&it.key(), &it.value());
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return *a.first < *b.first; });
    out += "{\n";
    for (std::size_t i = 0; i < entries.size(); ++i) {
      out += inner;
      write_string(*entries[i].first, out);
      out += ": ";
      write_value(*entries[i].second, inner, out);
      out += i + 1 < entries.size() ? ",\n" : "\n";
    }
    out += indent + "}";
  } else if (v.is_array()) {
    if (v.empty()) {
      out += "[]";
      return;
    }
    out += "[\n";
    for (std::size_t i = 0; i < v.size(); ++i) {
      out += inner;
      write_value(v[i], inner, out);
      out += i + 1 < v.size() ? ",\n" : "\n";
    }
    out += indent + "]";
  } else if (v.is_string()) {
    write_string(v.get_ref<const std::string&>(), out);
  } else {
    out += v.dump();
  }
}

}  // namespace

std::string write_go_json(const nlohmann::ordered_json& doc) {
  std::string out;
  write_value(doc, "", out);
  return out;
}

}  // namespace nvct::ctk
