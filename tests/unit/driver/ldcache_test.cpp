#include "nvct/driver/ldcache.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "ldcache_writer.hpp"
#include "nvct/base/file.hpp"
#include "nvct/base/strings.hpp"

namespace nvct::driver {
namespace {

using testing::build_ldcache;
using testing::CacheEntrySpec;

const std::vector<CacheEntrySpec> kEntries = {
    {0x0303, "libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"},
    {0x0003, "libcuda.so.1", "/usr/lib/i386-linux-gnu/libcuda.so.1"},
    {0x0a03, "libnvidia-ml.so.1", "/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1"},
};

void expect_entries(const LdCache& c) {
  ASSERT_EQ(c.entries.size(), kEntries.size());
  for (std::size_t i = 0; i < kEntries.size(); ++i) {
    EXPECT_EQ(c.entries[i].flags, kEntries[i].flags);
    EXPECT_EQ(c.entries[i].key, kEntries[i].key);
    EXPECT_EQ(c.entries[i].value, kEntries[i].value);
  }
}

TEST(LdCache, ParsesNewFormatEntriesInFileOrder) {
  auto c = parse_ldcache(build_ldcache(kEntries));
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_FALSE(c->has_old_format);
  expect_entries(*c);
}

TEST(LdCache, ParsesCompatFormatWithOffsetsRelativeToTheNewHeader) {
  auto c = parse_ldcache(build_ldcache(kEntries, /*old_prefix=*/true));
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_TRUE(c->has_old_format);
  expect_entries(*c);
}

TEST(LdCache, ReadsTheGeneratorFromTheExtensionBlock) {
  auto c =
      parse_ldcache(build_ldcache(kEntries, false, "ldconfig (test) stable release version 2.36"));
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->generator, "ldconfig (test) stable release version 2.36");
  expect_entries(*c);
}

TEST(LdCache, MalformedExtensionBlockIsIgnoredNotFatal) {
  std::string data = build_ldcache(kEntries, false, "gen");
  testing::put_u32(data, 32, static_cast<std::uint32_t>(data.size() + 100));  // ext out of range
  auto c = parse_ldcache(data);
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->generator, "");
}

TEST(LdCache, KeySharingTheTailOfTheValueString) {
  std::string data = build_ldcache({{0x0303, "x", "/lib/libfoo.so.1"}});
  // Point the key at "libfoo.so.1" inside the value string, as glibc >= 2.33 does.
  std::size_t value_off = data.find("/lib/libfoo.so.1");
  testing::put_u32(data, 48 + 4, static_cast<std::uint32_t>(value_off + 5));
  auto c = parse_ldcache(data);
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->entries[0].key, "libfoo.so.1");
}

TEST(LdCache, OldFormatOnlyIsUnsupported) {
  std::string old = std::string("ld.so-1.7.0") + '\0';
  testing::append_u32(old, 0);
  old.append(64, '\0');
  auto c = parse_ldcache(old);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message().find("unsupported file format"), std::string::npos);
}

TEST(LdCache, EmptyAndHeaderOnlyFilesAreUnsupported) {
  EXPECT_FALSE(parse_ldcache(""));
  std::string h = build_ldcache({});
  ASSERT_EQ(h.size(), 48u);
  auto c = parse_ldcache(h);  // size <= header size, as in the reference
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message().find("unsupported file format"), std::string::npos);
}

TEST(LdCache, UnknownMagicIsUnsupported) {
  std::string data = build_ldcache(kEntries);
  data[0] = 'X';
  auto c = parse_ldcache(data);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), "unsupported file format");
}

TEST(LdCache, EntryCountBeyondTheFileIsRejected) {
  std::string data = build_ldcache(kEntries);
  testing::put_u32(data, 20, 0xffffffffu);
  auto c = parse_ldcache(data);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message().find("entries do not fit"), std::string::npos);
}

TEST(LdCache, OldEntryCountBeyondTheFileIsRejected) {
  std::string data = build_ldcache(kEntries, true);
  testing::put_u32(data, 12, 0x7fffffffu);
  EXPECT_FALSE(parse_ldcache(data));
}

TEST(LdCache, KeyOffsetOutsideTheFileIsRejected) {
  std::string data = build_ldcache(kEntries);
  testing::put_u32(data, 48 + 24 + 4, 0x7ffffff0u);
  auto c = parse_ldcache(data);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), "entry 1: key offset 0x7ffffff0 is outside the file");
}

TEST(LdCache, ValueOffsetNearUint32MaxDoesNotWrapAround) {
  std::string data = build_ldcache(kEntries, true);
  // H > 0 here: H + 0xffffffff must not wrap to a small offset.
  testing::put_u32(data, data.find("glibc-ld.so.cache") + 48 + 8, 0xffffffffu);
  auto c = parse_ldcache(data);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message().find("value offset"), std::string::npos);
}

TEST(LdCache, UnterminatedStringAtTheEndIsRejected) {
  std::string data = build_ldcache(kEntries);
  data.pop_back();  // the last value loses its NUL
  auto c = parse_ldcache(data);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), "entry 2: value string is not terminated");
}

TEST(LdCache, EveryTruncationEitherParsesOrFailsCleanly) {
  std::string data = build_ldcache(kEntries, true, "generator");
  for (std::size_t n = 0; n < data.size(); ++n) {
    // A copy in an exactly sized heap buffer, so that an overread is caught by ASan.
    std::unique_ptr<char[]> buf(new char[n ? n : 1]);
    std::memcpy(buf.get(), data.data(), n);
    auto c = parse_ldcache(std::string_view(buf.get(), n));
    if (c) {
      EXPECT_LE(c->entries.size(), kEntries.size());
    }
  }
}

TEST(LdCache, AcceptRuleNeedsElfBitAndExactArch) {
  EXPECT_TRUE(ldcache_entry_matches(0x0303, kLdArchX8664));
  EXPECT_TRUE(ldcache_entry_matches(0x0301, kLdArchX8664));
  EXPECT_FALSE(ldcache_entry_matches(0x0302, kLdArchX8664));  // libc5: no ELF bit
  EXPECT_FALSE(ldcache_entry_matches(0x0003, kLdArchX8664));
  EXPECT_TRUE(ldcache_entry_matches(0x0003, kLdArchI386));
  EXPECT_TRUE(ldcache_entry_matches(0x0a03, kLdArchAArch64));
  EXPECT_TRUE(ldcache_entry_matches(0x0903, kLdArchArmHardFloat));
  EXPECT_FALSE(ldcache_entry_matches(0x0b03, kLdArchArmHardFloat));  // soft-float
}

TEST(LdCache, HostArchitectures) {
#if defined(__x86_64__)
  EXPECT_EQ(native_ldcache_arch(), kLdArchX8664);
  EXPECT_EQ(compat32_ldcache_arch(), kLdArchI386);
#endif
}

// ldconfig -p prints "\t<key> (<flags>[, hwcap: ...][, OS ABI: ...]) => <value>" in file order.
TEST(LdCache, AgreesEntryForEntryWithLdconfigOnTheHostCache) {
  auto data = read_file("/etc/ld.so.cache", 64u << 20);
  ASSERT_TRUE(data) << "this test needs the host's /etc/ld.so.cache: " << data.error().message();
  auto c = parse_ldcache(*data);
  ASSERT_TRUE(c) << c.error().message();
  FILE* p = ::popen("ldconfig -p -C /etc/ld.so.cache 2>&1 || /sbin/ldconfig -p 2>&1", "r");
  ASSERT_NE(p, nullptr) << "cannot run ldconfig -p";
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  ::pclose(p);
  auto lines = strings::split(out, '\n');
  ASSERT_GT(lines.size(), 1u) << out;
  EXPECT_EQ(lines[0], fmt::format("{} libs found in cache `/etc/ld.so.cache'", c->entries.size()));
  std::size_t i = 0;
  for (std::size_t l = 1; l < lines.size(); ++l) {
    if (lines[l].empty()) continue;
    if (strings::starts_with(lines[l], "Cache generated by: ")) {
      EXPECT_EQ(lines[l].substr(20), c->generator);
      continue;
    }
    ASSERT_LT(i, c->entries.size()) << lines[l];
    const auto& e = c->entries[i++];
    auto arrow = lines[l].rfind(" => ");
    ASSERT_NE(arrow, std::string::npos) << lines[l];
    EXPECT_EQ(lines[l].substr(arrow + 4), e.value);
    std::string head = lines[l].substr(1, arrow - 1);  // "<key> (<desc>)"
    EXPECT_EQ(head.substr(0, e.key.size() + 2), e.key + " (") << lines[l];
    std::string desc = head.substr(e.key.size() + 2);
    EXPECT_TRUE(strings::starts_with(desc, describe_ldcache_flags(e.flags)))
        << lines[l] << " vs " << describe_ldcache_flags(e.flags);
  }
  EXPECT_EQ(i, c->entries.size());
}

}  // namespace
}  // namespace nvct::driver
