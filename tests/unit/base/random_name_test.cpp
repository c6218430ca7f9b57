#include "nvct/base/random_name.hpp"

#include <gtest/gtest.h>

#include <set>

namespace nvct {
namespace {

TEST(RandomName, LengthAndAlphabet) {
  for (std::size_t n : {0u, 1u, 6u, 16u, 300u}) {
    std::string a = random_alnum(n);
    std::string h = random_hex(n);
    ASSERT_EQ(a.size(), n);
    ASSERT_EQ(h.size(), n);
    for (char c : a) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) << a;
    for (char c : h) EXPECT_TRUE((c >= 'a' && c <= 'f') || (c >= '0' && c <= '9')) << h;
  }
}

TEST(RandomName, DistinctAcrossCalls) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(random_alnum(8));
  EXPECT_EQ(seen.size(), 1000u);  // 36^8: a repeat in 1000 draws has odds of about 1e-7
}

TEST(RandomName, UsesTheWholeAlphabet) {
  std::set<char> seen;
  for (int i = 0; i < 200; ++i)
    for (char c : random_hex(16)) seen.insert(c);
  EXPECT_EQ(seen.size(), 16u);
}

}  // namespace
}  // namespace nvct
