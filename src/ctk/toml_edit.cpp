#include "nvct/ctk/toml_edit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "nvct/base/toml_text.hpp"
#include "nvct/ctk/toml_text.hpp"

namespace nvct::ctk {

namespace {

// One logical line of the text: a value may span several physical lines.
struct Line {
  enum Kind { kBlank, kComment, kHeader, kKey } kind = kBlank;
  std::size_t begin = 0;  // first byte (the indentation)
  std::size_t end = 0;    // one past the newline
  bool array = false;     // [[header]]
  TomlPath path;          // header: the table; key: the full path (table + dotted key)
  TomlPath table;         // key: the table it is written in
  std::size_t value_begin = 0;
  std::size_t value_end = 0;
  std::string indent;
};

bool starts_with_path(const TomlPath& path, const TomlPath& prefix) {
  return path.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

std::size_t common_prefix(const TomlPath& a, const TomlPath& b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

void append_utf8(std::string& out, unsigned long cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// A scanner of TOML's structure: where lines, keys, headers and values begin and end. Values are
// skipped, not decoded (the toml++ parse of the result is the check that an edit is right).
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  Result<std::vector<Line>> lines() {
    std::vector<Line> out;
    TomlPath current;
    while (p_ < s_.size()) {
      Line line;
      line.begin = p_;
      skip_ws();
      line.indent = std::string(s_.substr(line.begin, p_ - line.begin));
      if (p_ >= s_.size() || s_[p_] == '\n' || s_[p_] == '\r') {
        line.kind = Line::kBlank;
      } else if (s_[p_] == '#') {
        line.kind = Line::kComment;
        skip_to_eol();
      } else if (s_[p_] == '[') {
        line.kind = Line::kHeader;
        line.array = at("[[");
        p_ += line.array ? 2 : 1;
        skip_ws();
        NVCT_ASSIGN_OR_RETURN(line.path, key_path());
        skip_ws();
        if (!(line.array ? at("]]") : at("]"))) return error("unterminated table header");
        p_ += line.array ? 2 : 1;
        current = line.path;
        NVCT_TRY(line_rest());
      } else {
        line.kind = Line::kKey;
        NVCT_ASSIGN_OR_RETURN(auto key, key_path());
        line.table = current;
        line.path = current;
        line.path.insert(line.path.end(), key.begin(), key.end());
        skip_ws();
        if (!at("=")) return error("expected '=' after a key");
        ++p_;
        skip_ws();
        line.value_begin = p_;
        NVCT_TRY(value());
        line.value_end = p_;
        NVCT_TRY(line_rest());
      }
      NVCT_TRY(newline());
      line.end = p_;
      out.push_back(std::move(line));
    }
    return out;
  }

  // The elements of the array at `begin`: where the last one ends (npos when empty).
  Result<std::size_t> last_element_end(std::size_t begin) {
    p_ = begin + 1;
    std::size_t last = std::string_view::npos;
    for (;;) {
      skip_space_and_comments();
      if (p_ >= s_.size()) return error("unterminated array");
      if (s_[p_] == ']') return last;
      if (s_[p_] == ',') {
        ++p_;
        continue;
      }
      NVCT_TRY(value());
      last = p_;
    }
  }

 private:
  std::string_view s_;
  std::size_t p_ = 0;

  tl::unexpected<Error> error(std::string_view what) const {
    std::size_t line = 1 + static_cast<std::size_t>(
                               std::count(s_.begin(), s_.begin() + std::min(p_, s_.size()), '\n'));
    return fail(EINVAL, fmt::format("line {}: {}", line, what));
  }
  bool at(std::string_view token) const { return s_.substr(p_, token.size()) == token; }
  void skip_ws() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t')) ++p_;
  }
  void skip_to_eol() {
    while (p_ < s_.size() && s_[p_] != '\n') ++p_;
  }
  void skip_space_and_comments() {
    for (;;) {
      while (p_ < s_.size() &&
             (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\n' || s_[p_] == '\r'))
        ++p_;
      if (p_ < s_.size() && s_[p_] == '#') {
        skip_to_eol();
        continue;
      }
      return;
    }
  }
  Status line_rest() {
    skip_ws();
    if (p_ < s_.size() && s_[p_] == '#') skip_to_eol();
    return ok();
  }
  Status newline() {
    if (at("\r\n")) {
      p_ += 2;
    } else if (at("\n")) {
      ++p_;
    } else if (p_ < s_.size()) {
      return error("unexpected text after a value");
    }
    return ok();
  }

  Result<std::string> key_part() {
    std::string out;
    if (at("\"")) {
      ++p_;
      while (p_ < s_.size() && s_[p_] != '"' && s_[p_] != '\n') {
        if (s_[p_] != '\\') {
          out += s_[p_++];
          continue;
        }
        if (p_ + 1 >= s_.size()) break;
        char e = s_[p_ + 1];
        p_ += 2;
        switch (e) {
          case 'n':
            out += '\n';
            break;
          case 't':
            out += '\t';
            break;
          case 'r':
            out += '\r';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'u':
          case 'U': {
            std::size_t n = e == 'u' ? 4 : 8;
            if (p_ + n > s_.size() ||
                !std::all_of(s_.begin() + p_, s_.begin() + p_ + n,
                             [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
              return error("bad escape in a key");
            append_utf8(out, std::stoul(std::string(s_.substr(p_, n)), nullptr, 16));
            p_ += n;
            break;
          }
          default:
            out += e;
        }
      }
      if (!at("\"")) return error("unterminated quoted key");
      ++p_;
      return out;
    }
    if (at("'")) {
      ++p_;
      while (p_ < s_.size() && s_[p_] != '\'' && s_[p_] != '\n') out += s_[p_++];
      if (!at("'")) return error("unterminated quoted key");
      ++p_;
      return out;
    }
    while (p_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_' || s_[p_] == '-'))
      out += s_[p_++];
    if (out.empty()) return error("expected a key");
    return out;
  }

  Result<TomlPath> key_path() {
    TomlPath path;
    for (;;) {
      NVCT_ASSIGN_OR_RETURN(auto part, key_part());
      path.push_back(std::move(part));
      skip_ws();
      if (!at(".")) return path;
      ++p_;
      skip_ws();
    }
  }

  Status multi_line_string(std::string_view quotes, bool escapes) {
    p_ += 3;
    while (p_ < s_.size()) {
      if (escapes && s_[p_] == '\\') {
        p_ += 2;
      } else if (at(quotes)) {
        p_ += 3;
        for (int extra = 0; extra < 2 && p_ < s_.size() && s_[p_] == quotes[0]; ++extra) ++p_;
        return ok();
      } else {
        ++p_;
      }
    }
    return error("unterminated multi-line string");
  }

  Status value() {
    if (p_ >= s_.size()) return error("expected a value");
    if (at("\"\"\"")) return multi_line_string("\"\"\"", true);
    if (at("'''")) return multi_line_string("'''", false);
    if (at("\"") || at("'")) {
      char quote = s_[p_++];
      while (p_ < s_.size() && s_[p_] != quote && s_[p_] != '\n')
        p_ += (quote == '"' && s_[p_] == '\\') ? 2 : 1;
      if (!at(std::string_view(&quote, 1))) return error("unterminated string");
      ++p_;
      return ok();
    }
    if (at("[")) {
      NVCT_ASSIGN_OR_RETURN(auto last, last_element_end(p_));
      (void)last;
      ++p_;  // the closing bracket
      return ok();
    }
    if (at("{")) {
      ++p_;
      for (;;) {
        skip_ws();
        if (at("}")) {
          ++p_;
          return ok();
        }
        if (at(",")) {
          ++p_;
          continue;
        }
        NVCT_TRY(key_path());
        skip_ws();
        if (!at("=")) return error("expected '=' in an inline table");
        ++p_;
        skip_ws();
        NVCT_TRY(value());
      }
    }
    std::size_t start = p_;
    while (p_ < s_.size() && std::string_view(" \t\r\n,]}#").find(s_[p_]) == std::string_view::npos)
      ++p_;
    // A date and time separated by a space ("1979-05-27 07:32:00").
    if (p_ - start == 10 && at(" ") && p_ + 1 < s_.size() &&
        std::isdigit(static_cast<unsigned char>(s_[p_ + 1]))) {
      ++p_;
      while (p_ < s_.size() &&
             std::string_view(" \t\r\n,]}#").find(s_[p_]) == std::string_view::npos)
        ++p_;
    }
    if (p_ == start) return error("expected a value");
    return ok();
  }
};

const toml::node* node_at(const toml::table& root, const TomlPath& path) {
  const toml::node* cur = &root;
  for (const auto& key : path) {
    const auto* table = cur->as_table();
    if (table == nullptr) return nullptr;
    cur = table->get(key);
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

bool same_node(const toml::node* a, const toml::node* b) {
  if (a == nullptr || b == nullptr) return a == b;
  if (a->is_table() && b->is_table()) return *a->as_table() == *b->as_table();
  if (a->is_table() || b->is_table()) return false;
  return a->type() == b->type() && write_toml_value(*a) == write_toml_value(*b);
}

struct Splice {
  std::size_t begin;
  std::size_t end;
  std::string text;
  std::size_t order;
};

class Editor {
 public:
  Editor(std::string_view text, std::vector<Line> lines, const toml::table& before,
         const toml::table& target)
      : text_(text), lines_(std::move(lines)), before_(before), target_(target) {}

  Status table(const TomlPath& path) {
    if (same_node(node_at(before_, path), node_at(target_, path))) return ok();
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      if (lines_[i].kind == Line::kHeader && starts_with_path(lines_[i].path, path))
        ranges.emplace_back(lines_[i].begin, block_end(i));
    }
    removed_.insert(removed_.end(), ranges.begin(), ranges.end());
    // Outside its own blocks the table must not appear: not as a dotted key into it, nor as (part
    // of) an inline table.
    for (const auto& line : lines_) {
      if (line.kind != Line::kKey) continue;
      bool inside = false;
      for (const auto& [b, e] : removed_) inside |= line.begin >= b && line.end <= e;
      if (!inside && (starts_with_path(line.path, path) || starts_with_path(path, line.path)))
        return fail(EINVAL, fmt::format("line {}: {} is written as a dotted key or inline table",
                                        line_number(line.begin), fmt::join(path, ".")));
    }
    // Neighbouring blocks separated by blank lines only go as one.
    std::vector<std::pair<std::size_t, std::size_t>> merged;
    for (const auto& r : ranges) {
      if (!merged.empty() && text_.substr(merged.back().second, r.first - merged.back().second)
                                     .find_first_not_of(" \t\r\n") == std::string_view::npos) {
        merged.back().second = r.second;
      } else {
        merged.push_back(r);
      }
    }
    const toml::node* want = node_at(target_, path);
    std::string block;
    if (want != nullptr) {
      if (!want->is_table())
        return fail(EINVAL, fmt::format("{} is not a table in the result", fmt::join(path, ".")));
      block = write_toml_table_at(*want->as_table(), path);
    }
    for (std::size_t i = 0; i < merged.size(); ++i) {
      std::string replacement;
      if (i == 0 && !block.empty()) replacement = block.substr(1);  // keep the old spacing
      splice(merged[i].first, merged[i].second, replacement);
    }
    if (merged.empty() && !block.empty()) splice_at(insertion_point(path), block);
    return ok();
  }

  Status key(const TomlPath& table, const std::string& key) {
    TomlPath full = table;
    full.push_back(key);
    const toml::node* want = node_at(target_, full);
    if (same_node(node_at(before_, full), want)) return ok();
    for (const auto& line : lines_) {
      if (line.kind != Line::kKey || line.path != full) continue;
      if (want == nullptr) {
        splice(line.begin, line.end, "");
        return ok();
      }
      const toml::node* had = node_at(before_, full);
      if (had != nullptr && had->is_array() && want->is_array() &&
          line.value_begin < text_.size() && text_[line.value_begin] == '[') {
        const auto& old_items = *had->as_array();
        const auto& new_items = *want->as_array();
        bool extends = new_items.size() > old_items.size();
        for (std::size_t i = 0; extends && i < old_items.size(); ++i)
          extends = write_toml_value(old_items[i]) == write_toml_value(new_items[i]);
        if (extends) {
          std::string items;
          for (std::size_t i = old_items.size(); i < new_items.size(); ++i)
            items += (items.empty() ? "" : ", ") + write_toml_value(new_items[i]);
          NVCT_ASSIGN_OR_RETURN(auto last, Scanner(text_).last_element_end(line.value_begin));
          if (last == std::string_view::npos)
            splice_at(line.value_begin + 1, items);
          else
            splice_at(last, ", " + items);
          return ok();
        }
      }
      splice(line.value_begin, line.value_end, write_toml_value(*want));
      return ok();
    }
    if (want == nullptr) return ok();
    std::string entry = toml_text::key(key) + " = " + write_toml_value(*want) + "\n";
    // Where go-toml would put it when the table's keys are sorted: before the first key that
    // sorts after it, else after the last key (right after the header when there is none).
    auto place = [&](std::size_t first, std::size_t stop, std::size_t after_header,
                     std::string indent) {
      std::size_t at = after_header;
      for (std::size_t j = first; j < stop; ++j) {
        const Line& line = lines_[j];
        if (line.kind != Line::kKey || line.table != table) continue;
        if (line.path.size() == table.size() + 1 && line.path.back() > key) {
          splice_at(line.begin, line.indent + entry);
          return;
        }
        if (at == after_header) indent = line.indent;
        at = line.end;
      }
      // After a last line without its newline: start a new line first.
      std::string added = indent + entry;
      if (at > 0 && text_[at - 1] != '\n') added = "\n" + added;
      splice(at, at, std::move(added));
    };
    auto next_header = [&](std::size_t from) {
      while (from < lines_.size() && lines_[from].kind != Line::kHeader) ++from;
      return from;
    };
    if (table.empty()) {
      place(0, next_header(0), 0, "");
      return ok();
    }
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      if (lines_[i].kind != Line::kHeader || lines_[i].array || lines_[i].path != table) continue;
      place(i + 1, next_header(i + 1), lines_[i].end, lines_[i].indent + "  ");
      return ok();
    }
    // No header of its own: a new block.
    toml::table only;
    only.insert_or_assign(key, *want);
    splice_at(insertion_point(table), write_toml_table_at(only, table));
    return ok();
  }

  std::string result() {
    std::stable_sort(splices_.begin(), splices_.end(), [](const Splice& a, const Splice& b) {
      // At one offset, insertions go before the replacement of the text that starts there.
      if (a.begin != b.begin) return a.begin < b.begin;
      if ((a.end == a.begin) != (b.end == b.begin)) return a.end == a.begin;
      return a.order < b.order;
    });
    std::string out;
    std::size_t pos = 0;
    for (const auto& s : splices_) {
      if (s.begin < pos) continue;  // overlapping edits cannot happen for disjoint paths
      out.append(text_.substr(pos, s.begin - pos));
      out += s.text;
      pos = s.end;
    }
    out.append(text_.substr(pos));
    return out;
  }

 private:
  std::string_view text_;
  std::vector<Line> lines_;
  const toml::table& before_;
  const toml::table& target_;
  std::vector<Splice> splices_;
  std::vector<std::pair<std::size_t, std::size_t>> removed_;

  std::size_t line_number(std::size_t offset) const {
    return 1 + static_cast<std::size_t>(std::count(text_.begin(), text_.begin() + offset, '\n'));
  }
  void splice(std::size_t begin, std::size_t end, std::string text) {
    splices_.push_back({begin, end, std::move(text), splices_.size()});
  }
  void splice_at(std::size_t at, std::string text) {
    // Appending to a text without a final newline.
    if (at == text_.size() && at > 0 && text_.back() != '\n') text = "\n" + text;
    splice(at, at, std::move(text));
  }
  // The end of the block that header line i opens, without the blank and comment lines that lead
  // into the next header.
  std::size_t block_end(std::size_t i) const {
    std::size_t j = i + 1;
    while (j < lines_.size() && lines_[j].kind != Line::kHeader) ++j;
    while (j > i + 1 &&
           (lines_[j - 1].kind == Line::kBlank || lines_[j - 1].kind == Line::kComment))
      --j;
    return lines_[j - 1].end;
  }
  // After the last block whose table shares the longest prefix with `path`; the end when none.
  std::size_t insertion_point(const TomlPath& path) const {
    std::size_t best = 0;
    std::size_t at = text_.size();
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      if (lines_[i].kind != Line::kHeader) continue;
      std::size_t n = common_prefix(lines_[i].path, path);
      if (n > 0 && n >= best) {
        best = n;
        at = block_end(i);
      }
    }
    return at;
  }
};

}  // namespace

Result<std::string> edit_toml_text(std::string_view text, const toml::table& target,
                                   const TomlEdits& edits) {
  NVCT_ASSIGN_OR_RETURN(auto before, parse_toml(text, "the file"));
  if (before == target) return std::string(text);
  NVCT_ASSIGN_OR_RETURN(auto lines, Scanner(text).lines());
  Editor editor(text, std::move(lines), before, target);
  // Keys first: a table header a key needs goes before new sub-tables at the same place.
  for (const auto& [table, key] : edits.keys) NVCT_TRY(editor.key(table, key));
  for (const auto& path : edits.tables) NVCT_TRY(editor.table(path));
  std::string out = editor.result();
  auto check = parse_toml(out, "the edited file");
  if (!check) return tl::unexpected(check.error());
  if (!(*check == target)) return fail(EINVAL, "the edited text does not give the intended tree");
  return out;
}

}  // namespace nvct::ctk
