// Host ELF files: the fatbin sections, the section-less PT_LOAD fallback, standalone cubins and
// hostile header fields (§3.1, §7).
#include <gtest/gtest.h>

#include "fatbin_builder.hpp"

namespace nvct::compat {
namespace {

using fbt::container;
using fbt::host_elf;
using fbt::put16;
using fbt::put32;
using fbt::put64;
using fbt::scan;

TEST(ElfFile, ReadsNvFatbinSections) {
  std::string f =
      host_elf({{".text", std::string(32, '\x90')},
                {".nv_fatbin", container({{2, 70}}) + container({{2, 80}, {1, 80, 7, 8}})}});
  FileCode c = scan(f, "app");
  ASSERT_FALSE(c.error) << c.error->text();
  EXPECT_EQ(c.kind, FileKind::host_elf);
  ASSERT_EQ(c.containers.size(), 2u);
  EXPECT_EQ(c.containers[0].section, ".nv_fatbin");
  ASSERT_EQ(c.entries.size(), 3u);
  EXPECT_EQ(c.entries[2].arch_name(), "compute_80");
}

TEST(ElfFile, Elf32IsRead) {
  std::string f = host_elf({{".nv_fatbin", container({{2, 52}})}}, 3, false);
  FileCode c = scan(f);
  ASSERT_FALSE(c.error) << c.error->text();
  ASSERT_EQ(c.entries.size(), 1u);
  EXPECT_EQ(c.entries[0].arch, 52u);
}

TEST(ElfFile, RelfatbinCountsOnlyInRelocatableObjects) {
  std::vector<fbt::Section> s = {{".nv_fatbin", container({{2, 80}})},
                                 {"__nv_relfatbin", container({{2, 35}, {2, 50}})}};
  EXPECT_EQ(scan(host_elf(s, 1)).entries.size(), 3u);  // ET_REL: device code to be linked
  EXPECT_EQ(scan(host_elf(s, 2)).entries.size(), 1u);  // linked: libcudadevrt, never loaded
}

TEST(ElfFile, NoFatbinSectionIsHostOnly) {
  FileCode c = scan(host_elf({{".text", "code"}, {".rodata", "data"}}));
  ASSERT_FALSE(c.error);
  EXPECT_EQ(c.kind, FileKind::host_elf);
  EXPECT_FALSE(c.has_gpu_code());
}

TEST(ElfFile, FatbinSegmentWrappersWhenThereIsNoFatbinSection) {
  std::string fat = container({{2, 86}});
  std::string wrapper(24, '\0');
  put32(wrapper, 0, 0x466243B1);
  put32(wrapper, 4, 1);
  put64(wrapper, 8, 0x401000 + 16);
  FileCode c = scan(host_elf({{".rodata", std::string(16, 'r') + fat, 1, 0x401000},
                              {".nvFatBinSegment", wrapper, 1, 0x500000}}));
  ASSERT_FALSE(c.error) << c.error->text();
  ASSERT_EQ(c.entries.size(), 1u);
  EXPECT_EQ(c.entries[0].arch, 86u);
}

TEST(ElfFile, NoSectionHeadersScansLoadSegments) {
  std::string fat = container({{2, 75}});
  std::string f(64 + 56, '\0');
  std::memcpy(f.data(),
              "\x7f"
              "ELF",
              4);
  f[4] = 2;
  f[5] = 1;
  put16(f, 16, 3);
  put64(f, 32, 64);  // phoff
  put16(f, 54, 56);
  put16(f, 56, 1);
  const std::uint64_t data_off = f.size() + 8 + 8;  // 8-aligned
  f += std::string(16, '\x42');
  f += "\x50\xed\x55\xba junk";  // a false magic: skipped in lenient mode
  while (f.size() % 8) f.push_back('\0');
  f += fat;
  put32(f, 64, 1);  // PT_LOAD
  put64(f, 64 + 8, 0);
  put64(f, 64 + 32, f.size());
  FileCode c = scan(f);
  ASSERT_FALSE(c.error) << c.error->text();
  ASSERT_EQ(c.entries.size(), 1u);
  EXPECT_EQ(c.entries[0].arch, 75u);
  EXPECT_EQ(c.containers[0].section, "PT_LOAD");
  (void)data_off;
}

TEST(ElfFile, StandaloneCubin) {
  FileCode c = scan(fbt::cubin(7, 0x00500550), "k.cubin");
  ASSERT_FALSE(c.error);
  EXPECT_EQ(c.kind, FileKind::cubin);
  ASSERT_EQ(c.entries.size(), 1u);
  EXPECT_EQ(c.entries[0].arch_name(), "sm_80");
  FileCode unknown = scan(fbt::cubin(3, 0x50), "old.cubin");
  ASSERT_EQ(unknown.entries.size(), 1u);
  EXPECT_EQ(unknown.entries[0].arch, 0u);
  EXPECT_FALSE(unknown.warnings.empty());
}

void expect_elf_error(const std::string& f, const std::string& needle) {
  FileCode c = scan(f, "broken.so");
  ASSERT_TRUE(c.error) << needle;
  EXPECT_NE(c.error->text().find("broken.so: malformed: "), std::string::npos);
  EXPECT_NE(c.error->text().find(needle), std::string::npos) << c.error->text();
}

TEST(ElfMalformed, HostileHeaderFields) {
  const std::string good = host_elf({{".nv_fatbin", container({{2, 80}})}});
  std::string f = good;
  put64(f, 40, 0xffffffffffff0000ull);
  expect_elf_error(f, "section header table at file offset 0xffffffffffff0000");
  f = good;
  put64(f, 40, good.size() + 64);
  expect_elf_error(f, "lies past the end of the file");
  f = good;
  put16(f, 60, 0xfff0);
  expect_elf_error(f, "65520 entries of 64 bytes");
  f = good;
  put16(f, 62, 50);
  expect_elf_error(f, "section-name table index 50");
  f = good;
  put16(f, 58, 8);
  expect_elf_error(f, "section header size 8");
  // The .nv_fatbin section's offset past the end of the file.
  f = good;
  const std::uint64_t shoff = good.size() - 3 * 64;
  put64(f, shoff + 64 + 24, 0x7fffffffffffffffull);
  expect_elf_error(f, "section .nv_fatbin at file offset 0x7fffffffffffffff");
  f = good;
  put64(f, shoff + 64 + 32, 0xffffffffffffffffull);
  expect_elf_error(f, "runs past the end of the file");
}

TEST(ElfMalformed, ZeroFilledFatbinSection) {
  expect_elf_error(host_elf({{".nv_fatbin", std::string(256, '\0')}}), "holds no fatbin container");
}

TEST(ElfMalformed, TruncationsNeverCrash) {
  const std::string good = host_elf({{".nv_fatbin", container({{2, 80}, {1, 80}})}});
  for (std::size_t cut = 0; cut < good.size(); ++cut) {
    FileCode c = scan(good.substr(0, cut));
    if (cut >= 4) {
      EXPECT_TRUE(c.error) << "cut at " << cut;
    }
  }
}

TEST(ElfFile, BigEndianIsNotRead) {
  std::string f = host_elf({{".nv_fatbin", container({{2, 80}})}});
  f[5] = 2;
  FileCode c = scan(f);
  EXPECT_FALSE(c.error);
  EXPECT_FALSE(c.has_gpu_code());
  EXPECT_FALSE(c.warnings.empty());
}

}  // namespace
}  // namespace nvct::compat
