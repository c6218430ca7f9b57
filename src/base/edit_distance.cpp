// Edit distance for "did you mean" suggestions.
#include "nvct/base/edit_distance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace nvct {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic-programming table: the transposition looks two rows back.
  const std::size_t n = b.size();
  std::vector<std::size_t> before(n + 1), previous(n + 1), current(n + 1);
  for (std::size_t j = 0; j <= n; ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= n; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[n];
}

std::vector<std::string> nearest_words(std::string_view word,
                                       std::span<const std::string_view> candidates,
                                       std::size_t max_distance) {
  std::size_t best = std::numeric_limits<std::size_t>::max();
  std::vector<std::string> out;
  for (std::string_view candidate : candidates) {
    const std::size_t d = edit_distance(word, candidate);
    if (d == 0) return {};
    if (d > max_distance || d > best) continue;
    if (d < best) {
      best = d;
      out.clear();
    }
    if (std::find(out.begin(), out.end(), candidate) == out.end()) out.emplace_back(candidate);
  }
  return out;
}

std::string quoted_alternatives(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? " or " : ", ";
    out += fmt::format("\"{}\"", words[i]);
  }
  return out;
}

}  // namespace nvct
