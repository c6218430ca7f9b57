// "Did you mean ...?": the distance between a mistyped word and the valid ones. Shared by the
// config key check, `--set` enum values and anything else that names the valid choice.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nvct {

// Optimal-string-alignment distance: insertions, deletions, substitutions and transpositions of
// two adjacent characters each cost 1, so the common typo "mdoe" is 1 away from "mode" (plain
// Levenshtein says 2). Case-sensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidates at the smallest distance from `word`, in candidate order, when that distance is
// at most max_distance; empty otherwise (and when `word` is itself a candidate).
std::vector<std::string> nearest_words(std::string_view word,
                                       std::span<const std::string_view> candidates,
                                       std::size_t max_distance = 2);

// `"a"`, `"a" or "b"`, `"a", "b" or "c"`: the candidates of a "did you mean" sentence.
std::string quoted_alternatives(const std::vector<std::string>& words);

}  // namespace nvct
