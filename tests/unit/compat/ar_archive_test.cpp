// `ar` archives: members scanned as files, GNU and BSD names, hostile headers, nesting (§7).
#include <gtest/gtest.h>

#include "fatbin_builder.hpp"

namespace nvct::compat {
namespace {

using fbt::archive;
using fbt::container;
using fbt::host_elf;
using fbt::scan;

std::string ar_object(std::uint32_t arch) {
  return host_elf({{".nv_fatbin", container({{2, arch}})}}, 1);
}

TEST(ArArchive, MembersAreScannedInOrder) {
  FileCode c = scan(
      archive({{"a.o", ar_object(60)}, {"readme.txt", "text"}, {"b.o", ar_object(89)}}), "libk.a");
  ASSERT_FALSE(c.error) << c.error->text();
  EXPECT_EQ(c.kind, FileKind::archive);
  EXPECT_EQ(c.members, (std::vector<std::string>{"a.o", "readme.txt", "b.o"}));
  ASSERT_EQ(c.entries.size(), 2u);
  EXPECT_EQ(c.entries[0].member, "a.o");
  EXPECT_EQ(c.entries[1].member, "b.o");
  EXPECT_EQ(c.entries[1].arch, 89u);
  EXPECT_EQ(c.entries[1].container, 1u);
}

TEST(ArArchive, SymbolTableAndLongNames) {
  std::string names = "a_very_long_object_name_indeed.o/\n";
  std::string a = "!<arch>\n";
  auto header = [](const std::string& name, std::size_t size) {
    char h[61];
    std::snprintf(h, sizeof h, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", name.c_str(), "0", "0", "0",
                  "644", size);
    return std::string(h, 60);
  };
  a += header("/", 4) + std::string(4, '\0');
  a += header("//", names.size()) + names;
  std::string obj = ar_object(75);
  a += header("/0", obj.size()) + obj;
  FileCode c = scan(a);
  ASSERT_FALSE(c.error) << c.error->text();
  EXPECT_EQ(c.members, (std::vector<std::string>{"a_very_long_object_name_indeed.o"}));
  ASSERT_EQ(c.entries.size(), 1u);
  // BSD: the name precedes the data.
  std::string bsd =
      "!<arch>\n" + header("#1/8", 8 + obj.size()) + std::string("bsd.o\0\0\0", 8) + obj;
  c = scan(bsd);
  ASSERT_FALSE(c.error) << c.error->text();
  EXPECT_EQ(c.members, (std::vector<std::string>{"bsd.o"}));
  EXPECT_EQ(c.entries.size(), 1u);
}

void expect_ar_error(const std::string& a, const std::string& needle) {
  FileCode c = scan(a, "broken.a");
  ASSERT_TRUE(c.error) << needle;
  EXPECT_NE(c.error->text().find("broken.a: malformed: "), std::string::npos);
  EXPECT_NE(c.error->text().find(needle), std::string::npos) << c.error->text();
}

TEST(ArMalformed, HostileHeaders) {
  std::string good = archive({{"a.o", ar_object(60)}});
  std::string a = good;
  a[8 + 58] = 'x';
  expect_ar_error(a, "lacks the");
  a = good;
  std::memcpy(a.data() + 8 + 48, "99999999999", 10);
  expect_ar_error(a, "declares 9999999999 bytes, past the end of the archive");
  a = good;
  std::memcpy(a.data() + 8 + 48, "-1        ", 10);
  expect_ar_error(a, "size field that is not a number");
  a = good;
  std::memcpy(a.data() + 8, "/77            ", 16);
  expect_ar_error(a, "long name /77");
  expect_ar_error(good.substr(0, 8 + 30), "ar member header at file offset 0x8 is truncated");
}

TEST(ArMalformed, ErrorsInsideAMemberNameIt) {
  std::string broken = host_elf({{".nv_fatbin", container({{2, 80}}, 1u << 20)}}, 1);
  FileCode c = scan(archive({{"ok.o", ar_object(60)}, {"bad.o", broken}}), "libk.a");
  ASSERT_TRUE(c.error);
  EXPECT_EQ(c.error->member, "bad.o");
  EXPECT_NE(
      c.error->text().find("libk.a: malformed: member bad.o: fatbin container at file offset"),
      std::string::npos)
      << c.error->text();
  EXPECT_EQ(c.entries.size(), 2u);  // ok.o's, and bad.o's entry that fits before the error
}

TEST(ArLimits, NestingDepthAndMemberCount) {
  std::string a = ar_object(80);
  for (int i = 0; i < 6; ++i) a = archive({{"m" + std::to_string(i), a}});
  FileCode c = scan(a, "deep.a");
  ASSERT_TRUE(c.error);
  EXPECT_NE(c.error->message.find("nested deeper than 4"), std::string::npos) << c.error->text();
  std::string three = archive({{"a.o", "1"}, {"b.o", "2"}, {"c.o", "3"}});
  ScanLimits l;
  l.max_archive_members = 2;
  c = scan(three, "many.a", l);
  ASSERT_TRUE(c.error);
  EXPECT_NE(c.error->message.find("more than 2 members"), std::string::npos);
}

TEST(ArArchive, TruncationsNeverCrash) {
  const std::string first = ar_object(60);
  const std::string good = archive({{"a.o", first}, {"b.o", ar_object(70)}});
  const std::size_t boundary = 8 + 60 + first.size() + first.size() % 2;
  for (std::size_t cut = 9; cut < good.size(); ++cut) {
    FileCode c = scan(good.substr(0, cut));
    EXPECT_TRUE(c.error || cut == boundary) << "cut at " << cut;  // a whole first member is valid
  }
}

}  // namespace
}  // namespace nvct::compat
