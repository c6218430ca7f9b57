// Small string helpers used across modules.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nvct::strings {

std::string_view trim(std::string_view s);
// Splits on every occurrence of sep; keeps empty items.
std::vector<std::string> split(std::string_view s, char sep);
// Splits on sep, trims each item and drops empty ones.
std::vector<std::string> split_trimmed(std::string_view s, char sep);
std::string join(const std::vector<std::string>& items, std::string_view sep);
std::string to_lower(std::string_view s);
bool ends_with(std::string_view s, std::string_view suffix);
bool starts_with(std::string_view s, std::string_view prefix);
// Basename of a slash-separated path ("/usr/bin/x" -> "x", "x" -> "x", "/a/" -> "").
std::string_view basename(std::string_view path);
// Directory of a slash-separated path ("/usr/bin/x" -> "/usr/bin", "/x" -> "/", "x" -> ".").
std::string dirname(std::string_view path);
// Appends `item` unless `list` already holds it (keeps the first-seen order).
void append_unique(std::vector<std::string>& list, const std::string& item);
inline bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace nvct::strings
