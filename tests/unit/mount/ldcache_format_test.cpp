// The ld.so.cache format: glibc's library name order, and the layout and parser of the new
// format. The layout is checked byte for byte against ldconfig in ldcache_writer_test.cpp.
#include "nvct/mount/ldcache_format.hpp"

#include <gtest/gtest.h>

namespace nvct::mount {
namespace {

TEST(LdcacheLibcmp, ComparesDigitRunsNumerically) {
  EXPECT_LT(ldcache_libcmp("libfoo.so.9", "libfoo.so.10"), 0);
  EXPECT_GT(ldcache_libcmp("libfoo.so.1.10", "libfoo.so.1.9"), 0);
  EXPECT_EQ(ldcache_libcmp("libfoo.so.01", "libfoo.so.1"), 0);
  EXPECT_GT(ldcache_libcmp("libfoo.so.1", "libfoo.so"), 0);
  EXPECT_LT(ldcache_libcmp("liba", "libb"), 0);
  EXPECT_GT(ldcache_libcmp("lib1", "liba"), 0);
}

TEST(LdcacheBytes, EmptyCacheHasHeaderAndGenerator) {
  std::string b = ldcache_bytes({}, {}, "gen");
  ASSERT_GE(b.size(), 48u + 8 + 16 + 3);
  EXPECT_EQ(b.substr(0, 20), "glibc-ld.so.cache1.1");
  EXPECT_EQ(b.substr(b.size() - 3), "gen");
  auto recs = parse_ldcache(b);
  ASSERT_TRUE(recs);
  EXPECT_TRUE(recs->empty());
}

TEST(LdcacheBytes, ParserRejectsTruncatedFiles) {
  std::string b = ldcache_bytes({{"libx.so.1", "/l/libx.so.1", 0x303, ""}}, {}, "g");
  EXPECT_FALSE(parse_ldcache(b.substr(0, 60)));
  EXPECT_FALSE(parse_ldcache("glibc-ld.so.cache1.0"));
}

}  // namespace
}  // namespace nvct::mount
