#include "nvct/base/input_checks.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace nvct {
namespace {

std::size_t line_of(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return line;
}

// JSON and TOML: brackets outside strings (and, for TOML, outside comments). TOML's
// [table] headers are not nesting but their brackets balance on the same line, so they count
// at most 2 and never accumulate.
std::size_t bracket_depth(std::string_view text, bool toml, std::size_t stop_after) {
  std::size_t depth = 0;
  std::size_t max = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"' || (toml && c == '\'')) {
      const char quote = c;
      const bool triple =
          toml && text.substr(i, 3) == std::string_view(quote == '"' ? "\"\"\"" : "'''");
      if (triple) {
        auto end = text.find(quote == '"' ? "\"\"\"" : "'''", i + 3);
        while (quote == '"' && end != std::string_view::npos && end > 0 && text[end - 1] == '\\')
          end = text.find("\"\"\"", end + 1);
        if (end == std::string_view::npos) return max;
        i = end + 2;
        continue;
      }
      for (++i; i < text.size() && text[i] != quote; ++i) {
        if (quote == '"' && text[i] == '\\') ++i;
        if (toml && i < text.size() && text[i] == '\n') break;
      }
      continue;
    }
    if (toml && c == '#') {
      auto nl = text.find('\n', i);
      if (nl == std::string_view::npos) return max;
      i = nl;
      continue;
    }
    if (c == '[' || c == '{') {
      if (++depth > max) max = depth;
      if (max > stop_after) return max;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return max;
}

// YAML: flow collections ([ ] { }) outside quotes and comments, plus block nesting measured
// as a stack of indentation levels ("- " entries at the start of a line open a level each).
std::size_t yaml_depth(std::string_view text, std::size_t stop_after) {
  std::size_t max = 0;
  std::size_t flow = 0;
  std::vector<std::size_t> indents;
  std::size_t i = 0;
  while (i < text.size()) {
    // Start of a line.
    std::size_t col = 0;
    while (i < text.size() && text[i] == ' ') ++i, ++col;
    if (i >= text.size()) break;
    if (text[i] == '\n' || text[i] == '#') {
      auto nl = text.find('\n', i);
      i = nl == std::string_view::npos ? text.size() : nl + 1;
      continue;
    }
    if (flow == 0) {
      while (!indents.empty() && indents.back() >= col) indents.pop_back();
      indents.push_back(col);
      // "- - - x": each dash opens a level.
      while (i + 1 < text.size() && text[i] == '-' && (text[i + 1] == ' ' || text[i + 1] == '\n')) {
        i += 1;
        col += 1;
        while (i < text.size() && text[i] == ' ') ++i, ++col;
        indents.push_back(col);
      }
    }
    // The rest of the line.
    char prev = ' ';
    for (; i < text.size() && text[i] != '\n'; ++i) {
      char c = text[i];
      if ((c == '"' || c == '\'') &&
          (prev == ' ' || prev == '[' || prev == '{' || prev == ',' || prev == ':')) {
        const char quote = c;
        for (++i; i < text.size(); ++i) {
          if (quote == '"' && text[i] == '\\') {
            ++i;
            continue;
          }
          if (text[i] == quote) {
            if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
              ++i;
              continue;
            }
            break;
          }
        }
        prev = quote;
        continue;
      }
      if (c == '#' && prev == ' ') {
        while (i < text.size() && text[i] != '\n') ++i;
        break;
      }
      if (c == '[' || c == '{') {
        ++flow;
      } else if ((c == ']' || c == '}') && flow > 0) {
        --flow;
      }
      std::size_t d = indents.size() + flow;
      if (d > max) max = d;
      if (max > stop_after) return max;
      prev = c;
    }
    std::size_t d = indents.size() + flow;
    if (d > max) max = d;
    if (max > stop_after) return max;
    if (i < text.size()) ++i;  // the newline
  }
  return max;
}

struct TomlScan {
  std::size_t bad_line = 0;   // first line toml++ must not see (see below), 0 if none
  std::size_t deep_line = 0;  // first line whose keys nest deeper than the limit, 0 if none
};

// toml++ 3.3 asserts (debug builds; an `assume` in clang release builds) instead of failing when
// a [table] header's first key character is neither a bare-key character nor a quote ("[.a]",
// "[[+x]]"): found by tests/fuzz (config_toml, containerd_toml, crio_toml regressions). Such a
// header is invalid TOML: its line is bad_line. Lines inside multi-line values (arrays, inline
// tables, multi-line strings) and comments are not headers and are skipped.
//
// The same scan measures how deep the keys make the table tree: the segments of the current
// [table] header, plus those of a dotted key, plus the inline tables and arrays its value opens.
// Brackets alone do not measure it: `x.a.a.a…= 1` with 200 000 segments (400 KB) is a tree
// 200 000 deep, and toml++'s parser recurses over it (update_region_ends) until the stack
// overflows (found by tests/fuzz, config_toml: a 3 KB input of dotted keys rendered to 561 KB).
TomlScan scan_toml(std::string_view text, std::size_t max_depth) {
  TomlScan out;
  auto key_start = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '"' ||
           c == '\'';
  };
  // Where a value starts (after `=`, or after `[` / `,` inside an array), and whether a bare
  // value (a number, boolean or date, or garbage) is being read: toml++ reads a bare value up to
  // the next value terminator (whitespace, `,`, `]`, `}`, `#`) whatever it contains, quotes
  // included, so a quote there does not start a string.
  std::string open;  // the open arrays and inline tables, innermost last
  // Tree depth: of the current [table] (its header's segments), of the node each open bracket
  // made (parallel to `open`), of the key being read (its segments so far) and of the last key
  // before `=` (what a value opened right after it nests under).
  std::vector<std::size_t> open_depth;
  std::size_t table_depth = 0, key_segments = 1, value_depth = 0;
  bool after_equals = false;
  auto base = [&] { return open_depth.empty() ? table_depth : open_depth.back(); };
  bool value_pos = false, bare = false;
  std::size_t line = 1;
  bool line_start = true, header_line = false;
  auto bad = [&] {
    out.bad_line = line;
    return out;
  };
  auto too_deep = [&](std::size_t depth) {
    if (depth > max_depth && out.deep_line == 0) out.deep_line = line;
    return out.deep_line != 0;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = true;
      header_line = false;
      bare = false;
      if (open.empty()) {
        value_pos = false;
        key_segments = 1;
      }
      continue;
    }
    // Non-ASCII outside strings and comments is invalid TOML 1.0, and toml++ 3.3's
    // is_non_ascii_horizontal_whitespace() reaches TOML_UNREACHABLE (undefined behaviour in
    // release builds) for 3019 code points, among them U+00A1..U+0499 and U+FB26..U+FEFE,
    // whenever it looks for whitespace after a key or inside a bare value (tests/fuzz
    // regressions, e.g. U+FEF8 in a bare key, U+FEFD after a quote inside a bare value).
    if (static_cast<unsigned char>(c) >= 0x80) return bad();
    if (bare) {
      if (c != ' ' && c != '\t' && c != '\r' && c != ',' && c != ']' && c != '}' && c != '#')
        continue;
      bare = false;
      // toml++ 3.3 asserts (debug builds; `assume` in clang release builds) on a date-shaped
      // bare value, one space, one digit and a value terminator: it takes the digit for the
      // start of a time and then stands on the terminator ("a = 1979-05-27 0", tests/fuzz
      // finding 6). Its "date-shaped" is loose: 10 characters once underscores are dropped, a
      // digit first, `-` at offsets 4 and 7, and characters such as `&` or `r` that it does not
      // classify anywhere ("81&_------- 1,", finding 8). No valid TOML has a digit one space
      // after a bare value, so any bare value followed so is refused.
      auto terminator = [](char t) {
        return t == ' ' || t == '\t' || t == '\r' || t == '\n' || t == ',' || t == ']' ||
               t == '}' || t == '#';
      };
      if (c == ' ' && i + 2 < text.size() &&
          std::isdigit(static_cast<unsigned char>(text[i + 1])) && terminator(text[i + 2]))
        return bad();
    }
    if (c == ' ' || c == '\t' || c == '\r') continue;
    const bool at_line_start = line_start;
    line_start = false;
    const std::size_t depth = open.size();
    if (at_line_start && depth == 0 && c == '[') {
      std::size_t j = i + 1;
      if (j < text.size() && text[j] == '[') ++j;
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
      if (j < text.size() && text[j] != ']' && !key_start(text[j])) return bad();
      header_line = true;  // its brackets are not nesting
      table_depth = 1;
      continue;
    }
    if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;  // the rest of the line
      continue;
    }
    if (c == '"' || c == '\'') {
      const bool multi_line = text.substr(i, 3) == std::string(3, c);
      std::size_t j = i + (multi_line ? 3 : 1);
      for (; j < text.size(); ++j) {
        if (c == '"' && text[j] == '\\') {
          // No TOML escape starts with a non-ASCII character, and toml++ 3.3 asks whether one
          // is whitespace (a line-ending backslash) before it fails: TOML_UNREACHABLE again.
          // It asks the same of the first character after the backslash's spaces and tabs
          // (`\ ` then U+FDFF: tests/fuzz, finding 7; a backslash and whitespace before
          // anything but a line break is no valid escape), and after a line-ending backslash it
          // skips whitespace and newlines, asking the same of the first other character.
          std::size_t k = j + 1;
          while (k < text.size() && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r')) ++k;
          if (k < text.size() && text[k] == '\n') {
            while (k < text.size() &&
                   (text[k] == ' ' || text[k] == '\t' || text[k] == '\r' || text[k] == '\n')) {
              if (text[k] == '\n') ++line;
              ++k;
            }
            if (k < text.size() && static_cast<unsigned char>(text[k]) >= 0x80) return bad();
            j = k - 1;  // the loop's ++j reaches the next character
            continue;
          }
          if (k < text.size() && static_cast<unsigned char>(text[k]) >= 0x80) return bad();
          ++j;
        } else if (text[j] == '\n') {
          if (!multi_line) break;
          ++line;
        } else if (text[j] == c && (!multi_line || text.substr(j, 3) == std::string(3, c))) {
          j += multi_line ? 2 : 0;
          // A multi-line string may end with one or two more quotes (`""""` is a `"` and the
          // delimiter): they belong to it, so what follows them is outside the string, where
          // non-ASCII is refused above (toml++'s whitespace test after the value: finding 9).
          for (int extra = 0; multi_line && extra < 2 && j + 1 < text.size() && text[j + 1] == c;
               ++extra)
            ++j;
          break;
        }
      }
      i = j < text.size() && text[j] == '\n' ? j - 1 : j;  // a newline is counted above
      value_pos = false;
      after_equals = false;
      continue;
    }
    if (header_line) {
      if (c == '.' && too_deep(++table_depth)) return out;
      continue;
    }
    if (value_pos) {
      value_pos = false;
      if (c == '[' || c == '{') {
        // Right after `key =` the bracket is that key's node; inside an array, a new element.
        const std::size_t node_depth = after_equals ? value_depth : base() + 1;
        after_equals = false;
        if (too_deep(node_depth)) return out;
        open.push_back(c);
        open_depth.push_back(node_depth);
        value_pos = c == '[';
        key_segments = 1;
        continue;
      }
      after_equals = false;
      // toml++ 3.3 asserts (debug builds; `assume` in clang release builds) when an array
      // element starts with `}`: "[1, }" (tests/fuzz regression).
      if (c == '}' && !open.empty() && open.back() == '[') return bad();
      if (c != ']' && c != '}' && c != ',') {
        bare = true;
        continue;
      }
    }
    if (c == '=') {
      value_pos = true;
      after_equals = true;
      value_depth = base() + key_segments;
      key_segments = 1;
      if (too_deep(value_depth)) return out;
    } else if (c == '.' && (open.empty() || open.back() == '{')) {
      ++key_segments;  // a dotted key's separator (values' dots are inside bare values)
      if (too_deep(base() + key_segments)) return out;
    } else if (c == ',') {
      value_pos = !open.empty() && open.back() == '[';
      key_segments = 1;
    } else if (c == '[' || c == '{') {
      const std::size_t node_depth = base() + 1;
      if (too_deep(node_depth)) return out;
      open.push_back(c);
      open_depth.push_back(node_depth);
      value_pos = c == '[';
      key_segments = 1;
    } else if ((c == ']' || c == '}') && !open.empty()) {
      open.pop_back();
      open_depth.pop_back();
    }
  }
  return out;
}

std::string_view syntax_name(TextSyntax syntax) {
  switch (syntax) {
    case TextSyntax::kJson:
      return "JSON";
    case TextSyntax::kToml:
      return "TOML";
    case TextSyntax::kYaml:
      return "YAML";
  }
  return "text";
}

}  // namespace

std::size_t nesting_depth(std::string_view text, TextSyntax syntax, std::size_t stop_after) {
  switch (syntax) {
    case TextSyntax::kJson:
      return bracket_depth(text, false, stop_after);
    case TextSyntax::kToml:
      return bracket_depth(text, true, stop_after);
    case TextSyntax::kYaml:
      return yaml_depth(text, stop_after);
  }
  return 0;
}

Status check_nesting_depth(std::string_view text, TextSyntax syntax, std::string_view origin,
                           std::size_t max_depth) {
  if (nesting_depth(text, syntax, max_depth) > max_depth)
    return fail(EINVAL, fmt::format("{}: {} nested deeper than {} levels; refusing to parse it "
                                    "(a hostile or corrupt file: flatten it)",
                                    origin, syntax_name(syntax), max_depth));
  return ok();
}

Status check_text_encoding(std::string_view text, std::string_view origin) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    unsigned char c = s[i];
    if (c == 0)
      return fail(EINVAL, fmt::format("{}: NUL byte at line {} (byte offset {}); the file is not "
                                      "text: restore it from a backup",
                                      origin, line_of(text, i), i));
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    }
    bool good = len != 0 && i + len <= n;
    for (std::size_t k = 1; good && k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) good = false;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if (good) {
      static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
      good = cp >= kMin[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    }
    if (!good)
      return fail(EINVAL, fmt::format("{}: invalid UTF-8 (byte 0x{:02x}) at line {} (byte offset "
                                      "{}); save the file as UTF-8",
                                      origin, c, line_of(text, i), i));
    i += len;
  }
  return ok();
}

Status check_untrusted_text(std::string_view text, TextSyntax syntax, std::string_view origin,
                            std::size_t max_depth) {
  NVCT_TRY(check_text_encoding(text, origin));
  if (syntax == TextSyntax::kToml) {
    const TomlScan scan = scan_toml(text, max_depth);
    if (scan.bad_line != 0)
      return fail(EINVAL, fmt::format("{}: line {}: a [table] header that does not start "
                                      "with a key, non-ASCII outside strings and comments, or a "
                                      "date followed by a lone digit; refusing to parse it",
                                      origin, scan.bad_line));
    if (scan.deep_line != 0)
      return fail(EINVAL, fmt::format("{}: line {}: TOML nested deeper than {} levels (arrays, "
                                      "inline tables, dotted keys and [table] headers together); "
                                      "refusing to parse it (a hostile or corrupt file: flatten "
                                      "it)",
                                      origin, scan.deep_line, max_depth));
  }
  return check_nesting_depth(text, syntax, origin, max_depth);
}

}  // namespace nvct
