#include "nvct/base/edit_distance.hpp"

#include <gtest/gtest.h>

#include <array>

namespace nvct {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("mode", "mode"), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("legcy", "legacy"), 1u);
  EXPECT_EQ(edit_distance("legaccy", "legacy"), 1u);
  EXPECT_EQ(edit_distance("lagacy", "legacy"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(EditDistance, AnAdjacentTranspositionCostsOne) {
  EXPECT_EQ(edit_distance("mdoe", "mode"), 1u);
  EXPECT_EQ(edit_distance("ldconfgi", "ldconfig"), 1u);
  EXPECT_EQ(edit_distance("ab", "ba"), 1u);
}

TEST(EditDistance, IsCaseSensitiveAndSymmetric) {
  EXPECT_EQ(edit_distance("Mode", "mode"), 1u);
  EXPECT_EQ(edit_distance("nvidia-container-cli.rot", "nvidia-container-cli.root"),
            edit_distance("nvidia-container-cli.root", "nvidia-container-cli.rot"));
}

constexpr std::array<std::string_view, 5> kModes = {"auto", "legacy", "cdi", "jit-cdi", "csv"};

TEST(NearestWords, PicksTheClosestWithinTheLimit) {
  EXPECT_EQ(nearest_words("legcy", kModes), (std::vector<std::string>{"legacy"}));
  EXPECT_EQ(nearest_words("jitcdi", kModes), (std::vector<std::string>{"jit-cdi"}));
}

TEST(NearestWords, ReturnsEveryCandidateAtTheSameDistance) {
  // "cdv" is one edit from both "cdi" and "csv".
  EXPECT_EQ(nearest_words("cdv", kModes), (std::vector<std::string>{"cdi", "csv"}));
}

TEST(NearestWords, NothingWhenTooFarOrExact) {
  EXPECT_TRUE(nearest_words("something-else", kModes).empty());
  EXPECT_TRUE(nearest_words("cdi", kModes).empty());
  EXPECT_TRUE(nearest_words("lgcy", kModes, 1).empty());
  EXPECT_EQ(nearest_words("lgcy", kModes, 2), (std::vector<std::string>{"legacy"}));
}

TEST(QuotedAlternatives, JoinsWithCommasAndOr) {
  EXPECT_EQ(quoted_alternatives({}), "");
  EXPECT_EQ(quoted_alternatives({"a"}), "\"a\"");
  EXPECT_EQ(quoted_alternatives({"a", "b"}), "\"a\" or \"b\"");
  EXPECT_EQ(quoted_alternatives({"a", "b", "c"}), "\"a\", \"b\" or \"c\"");
}

}  // namespace
}  // namespace nvct
