// The fatbin container walk (§3.2) and its malformed-input errors (§7) on synthetic bytes.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "fatbin_builder.hpp"

namespace nvct::compat {
namespace {

using fbt::container;
using fbt::EntrySpec;
using fbt::put16;
using fbt::put32;
using fbt::put64;
using fbt::scan;

std::string three_entries() { return container({{2, 70}, {2, 80}, {1, 90, 7, 8}}); }

TEST(FatbinContainer, ReadsEntriesOfAFatbinFile) {
  FileCode c = scan(three_entries(), "k.fatbin");
  ASSERT_FALSE(c.error) << c.error->text();
  EXPECT_EQ(c.kind, FileKind::fatbin);
  ASSERT_EQ(c.containers.size(), 1u);
  EXPECT_EQ(c.containers[0].entries, 3u);
  ASSERT_EQ(c.entries.size(), 3u);
  EXPECT_EQ(c.entries[0].arch_name(), "sm_70");
  EXPECT_EQ(c.entries[0].elf_sm, 70u);
  EXPECT_EQ(c.entries[1].file_offset, 16u + c.entries[0].header_size + c.entries[0].payload_size);
  EXPECT_EQ(c.entries[2].kind, EntryKind::ptx);
  EXPECT_EQ(c.entries[2].arch_name(), "compute_90");
  EXPECT_EQ(c.entries[2].version_major, 7);
  EXPECT_EQ(c.entries[2].version_minor, 8);
  EXPECT_EQ(c.entries[2].index, 2u);
}

TEST(FatbinContainer, SeveralContainersWithPaddingAndGaps) {
  std::string two =
      container({{2, 52}}) + std::string(8, '\0') + std::string(24, '\x55') + container({{2, 90}});
  FileCode c = scan(two);
  ASSERT_FALSE(c.error) << c.error->text();
  ASSERT_EQ(c.containers.size(), 2u);
  EXPECT_EQ(c.entries[1].container, 1u);
  EXPECT_EQ(c.entries[1].index, 0u);
  EXPECT_EQ(c.entries[1].arch, 90u);
}

TEST(FatbinContainer, CompressionFlagsAndObjectNames) {
  EntrySpec lz{2, 80};
  lz.flags = 0x2013;
  lz.compressed_size = 0x345;
  lz.payload = std::string(0x348, '\x7f');
  lz.name = "CMakeCUDACompilerId.cu";
  EntrySpec zstd{1, 90};
  zstd.flags = 0x8011;
  zstd.payload = std::string(16, '\x01');
  FileCode c = scan(container({lz, zstd}));
  ASSERT_FALSE(c.error) << c.error->text();
  ASSERT_EQ(c.entries.size(), 2u);
  EXPECT_TRUE(c.entries[0].compressed);
  EXPECT_EQ(c.entries[0].compression, Compression::lz);
  EXPECT_EQ(c.entries[0].name, "CMakeCUDACompilerId.cu");
  EXPECT_EQ(c.entries[0].header_size, 0x58u);
  EXPECT_FALSE(c.entries[0].arch_specific);
  EXPECT_EQ(c.entries[1].compression, Compression::zstd);
  EXPECT_TRUE(c.warnings.empty());
}

TEST(FatbinContainer, ArchSpecificFromPayloads) {
  EntrySpec sass{2, 90};
  sass.payload = fbt::cubin(7, 0x005a0d5a);  // sm_90 | 0x800 accelerators
  EntrySpec ptx{1, 90};
  ptx.payload = "//\n.version 8.0\n.target sm_90a\n";
  FileCode c = scan(container({sass, ptx}));
  ASSERT_FALSE(c.error) << c.error->text();
  EXPECT_EQ(c.entries[0].arch_name(), "sm_90a");
  EXPECT_EQ(c.entries[1].arch_name(), "compute_90a");
}

TEST(FatbinContainer, HeaderArchDifferentFromEFlagsIsAWarning) {
  EntrySpec e{2, 80};
  e.payload = fbt::cubin(7, 0x00460546);  // sm_70
  FileCode c = scan(container({e}));
  ASSERT_FALSE(c.error);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("sm_80"), std::string::npos);
  EXPECT_NE(c.warnings[0].find("sm_70"), std::string::npos);
}

TEST(FatbinContainer, UnknownKindsAreKeptAsUnknown) {
  EntrySpec odd{0x10, 80};
  odd.payload = std::string(8, 'x');
  FileCode c = scan(container({odd, {2, 80}}));
  ASSERT_FALSE(c.error);
  ASSERT_EQ(c.entries.size(), 2u);
  EXPECT_EQ(c.entries[0].kind, EntryKind::unknown);
  EXPECT_EQ(c.entries[0].raw_kind, 0x10);
}

// Every malformed case: an error naming the file and a hex offset, never a crash.
void expect_malformed(const std::string& bytes, const std::string& needle, std::uint64_t offset) {
  FileCode c = scan(bytes, "broken.fatbin");
  ASSERT_TRUE(c.error) << "expected a malformed-file error containing: " << needle;
  EXPECT_EQ(c.error->file, "broken.fatbin");
  EXPECT_EQ(c.error->offset, offset) << c.error->text();
  EXPECT_NE(c.error->text().find(needle), std::string::npos) << c.error->text();
  std::ostringstream hex;
  hex << "0x" << std::hex << offset;
  EXPECT_NE(c.error->text().find(hex.str()), std::string::npos) << c.error->text();
}

TEST(FatbinMalformed, TruncatedAtEveryEntryBoundaryAndByte) {
  const std::string good = three_entries();
  for (std::size_t cut = 4; cut < good.size(); ++cut) {  // < 4: not a fatbin
    FileCode c = scan(good.substr(0, cut), "cut.fatbin");
    ASSERT_TRUE(c.error) << "cut at " << cut;
    EXPECT_NE(c.error->text().find("cut.fatbin: malformed: "), std::string::npos);
    EXPECT_NE(c.error->text().find("0x"), std::string::npos);
  }
}

TEST(FatbinMalformed, ContainerSizePastTheEnd) {
  expect_malformed(container({{2, 80}}, 1u << 20), "past the end of the fatbin file", 0);
  expect_malformed(container({{2, 80}}, UINT64_MAX - 4), "past the end", 0);
}

TEST(FatbinMalformed, ContainerHeaderSizes) {
  expect_malformed(container({{2, 80}}, std::nullopt, 0), "header size 0", 0);
  expect_malformed(container({{2, 80}}, std::nullopt, 0xFFFF), "header size 65535", 0);
}

TEST(FatbinMalformed, EntryHeaderSizes) {
  EntrySpec zero{2, 80};
  zero.header_size = 0;
  std::string bytes = container({{2, 80}});
  put32(bytes, 16 + 4, 0);
  expect_malformed(bytes, "(container 0, entry 0) has header size 0", 16);
  put32(bytes, 16 + 4, 40);
  expect_malformed(bytes, "header size 40", 16);
  put32(bytes, 16 + 4, 0x10000);
  expect_malformed(bytes, "header size 65536", 16);
  put32(bytes, 16 + 4, 0xFFFFFFFF);
  expect_malformed(bytes, "header size 4294967295", 16);
}

TEST(FatbinMalformed, PayloadSizeHuge) {
  EntrySpec huge{2, 80};
  huge.payload_size = std::uint64_t{1} << 63;
  expect_malformed(container({{2, 70}, huge}), "(container 0, entry 1)", 16 + 64 + 64);
  huge.payload_size = UINT64_MAX;
  expect_malformed(container({huge}), "runs past the end of its container", 16);
}

TEST(FatbinMalformed, SecondContainerBrokenKeepsTheFirst) {
  std::string two = container({{2, 52}}) + container({{2, 90}}, 1u << 30);
  FileCode c = scan(two, "two.fatbin");
  ASSERT_TRUE(c.error);
  EXPECT_EQ(c.error->container, 1u);
  EXPECT_EQ(c.containers.size(), 1u);
  EXPECT_EQ(c.entries.size(), 2u);  // the broken container's entry that fits is kept too
}

TEST(FatbinMalformed, CutSectionNamesTheEntryThatCrossesItsEnd) {
  std::string bytes = three_entries();
  const std::size_t e2 = 16 + 2 * fbt::entry({2, 70}).size();
  FileCode c = scan(bytes.substr(0, e2 + 80), "cut.fatbin");
  ASSERT_TRUE(c.error);
  EXPECT_EQ(c.error->offset, e2);
  EXPECT_EQ(c.error->entry, 2u);
  EXPECT_NE(c.error->text().find("fatbin entry at file offset 0x" +
                                 [&] {
                                   char b[32];
                                   std::snprintf(b, sizeof b, "%zx", e2);
                                   return std::string(b);
                                 }() +
                                 " (container 0, entry 2) runs past the end of the fatbin file"),
            std::string::npos)
      << c.error->text();
  EXPECT_EQ(c.entries.size(), 2u);
}

TEST(FatbinMalformed, GarbageTailInsideAContainer) {
  std::string bytes = container({{2, 80}});
  std::string tail = "\x01\x02\x03\x04\x05\x06\x07\x08";
  bytes += tail;
  put64(bytes, 8, fbt::entry({2, 80}).size() + tail.size());
  expect_malformed(bytes, "needs a 64-byte header", 16 + fbt::entry({2, 80}).size());
  // Zero padding at the end of a container is fine.
  std::string padded = container({{2, 80}});
  padded += std::string(8, '\0');
  put64(padded, 8, fbt::entry({2, 80}).size() + 8);
  EXPECT_FALSE(scan(padded).error);
}

TEST(FatbinLimits, EntriesAndContainers) {
  ScanLimits l;
  l.max_entries = 2;
  FileCode c = scan(three_entries(), "many.fatbin", l);
  ASSERT_TRUE(c.error);
  EXPECT_NE(c.error->message.find("more than 2 entries"), std::string::npos);
  l = {};
  l.max_containers = 1;
  c = scan(container({{2, 52}}) + container({{2, 90}}), "many.fatbin", l);
  ASSERT_TRUE(c.error);
  EXPECT_NE(c.error->message.find("more than 1 fatbin containers"), std::string::npos);
  l = {};
  l.max_entry_header = 64;
  EntrySpec named{2, 80};
  named.name = "x.cu";
  c = scan(container({named}), "big.fatbin", l);
  ASSERT_TRUE(c.error);
}

TEST(FatbinLimits, ManyTinyContainersAreLinear) {
  // 60 000 empty containers in a section: walked without quadratic rescans.
  std::string one = container({});
  std::string many;
  for (int i = 0; i < 60000; ++i) many += one;
  FileCode c = scan(many);
  ASSERT_FALSE(c.error) << c.error->text();
  EXPECT_EQ(c.containers.size(), 60000u);
}

TEST(FatbinMalformed, NameOutsideTheHeaderIsAWarning) {
  std::string bytes = container({{2, 80}});
  put32(bytes, 16 + 32, 60);
  put32(bytes, 16 + 36, 100);
  FileCode c = scan(bytes);
  ASSERT_FALSE(c.error);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("object name"), std::string::npos);
}

}  // namespace
}  // namespace nvct::compat
