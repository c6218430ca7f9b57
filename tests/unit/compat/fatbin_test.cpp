#include "nvct/compat/fatbin.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fatbin_builder.hpp"

namespace nvct::compat {
namespace {

const std::string kCudaFixtures = std::string(NVCT_SOURCE_DIR) + "/tests/fixtures/cuda";

std::string fatbin_slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A cuobjdump listing without its "cuobjdump info : no device code" message (= empty list).
std::string listing(const std::string& path) {
  std::istringstream in(fatbin_slurp(path));
  std::string line, out;
  while (std::getline(in, line)) {
    if (!line.starts_with("cuobjdump info")) out += line + "\n";
  }
  return out;
}

struct Expected {
  EntryKind kind;
  std::string arch;
  std::uint16_t major = 0, minor = 0;
  bool compressed = false;
};

// The entry table of plain cuobjdump output (`Fatbin elf code:` blocks, spec §3.4).
std::vector<Expected> parse_cuobjdump(const std::string& path) {
  std::istringstream in(fatbin_slurp(path));
  std::string line;
  std::vector<Expected> out;
  while (std::getline(in, line)) {
    if (line == "Fatbin elf code:")
      out.push_back({EntryKind::sass, {}});
    else if (line == "Fatbin ptx code:")
      out.push_back({EntryKind::ptx, {}});
    else if (out.empty()) {
      continue;
    } else if (line.starts_with("arch = ")) {
      out.back().arch = line.substr(7);
    } else if (line.starts_with("code version = [")) {
      unsigned a = 0, b = 0;
      std::sscanf(line.c_str(), "code version = [%u,%u]", &a, &b);
      out.back().major = static_cast<std::uint16_t>(a);
      out.back().minor = static_cast<std::uint16_t>(b);
    } else if (line == "compressed") {
      out.back().compressed = true;
    }
  }
  return out;
}

Result<FileCode> fixture(const std::string& name) {
  return scan_file(AT_FDCWD, kCudaFixtures + "/" + name);
}

class Fixture : public ::testing::TestWithParam<const char*> {};

TEST_P(Fixture, ListsEqualCuobjdump) {
  const std::string name = GetParam();
  auto code = fixture(name);
  ASSERT_TRUE(code) << code.error().message();
  ASSERT_FALSE(code->error) << code->error->text();
  EXPECT_EQ(cuobjdump_list(*code, EntryKind::sass, name),
            listing(kCudaFixtures + "/" + name + ".list-elf"));
  EXPECT_EQ(cuobjdump_list(*code, EntryKind::ptx, name),
            listing(kCudaFixtures + "/" + name + ".list-ptx"));
}

TEST_P(Fixture, EntryTableEqualsCuobjdump) {
  const std::string name = GetParam();
  auto code = fixture(name);
  ASSERT_TRUE(code) << code.error().message();
  auto want = parse_cuobjdump(kCudaFixtures + "/" + name + ".cuobjdump");
  if (code->kind == FileKind::cubin) {
    // Plain cuobjdump prints no entry table for a standalone cubin; --list-elf covers it.
    EXPECT_TRUE(want.empty()) << name << ".cuobjdump lists entries";
    return;
  }
  std::vector<CodeEntry> got;
  for (const auto& e : code->entries) {
    if (e.kind != EntryKind::unknown) got.push_back(e);
  }
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << name << " entry " << i);
    EXPECT_EQ(got[i].kind, want[i].kind);
    EXPECT_EQ("sm_" + std::to_string(got[i].arch), want[i].arch);
    EXPECT_EQ(got[i].version_major, want[i].major);
    EXPECT_EQ(got[i].version_minor, want[i].minor);
    EXPECT_EQ(got[i].compressed, want[i].compressed);
    // Uncompressed cubins: e_flags name the same SM as the entry header (§3.3).
    if (got[i].kind == EntryKind::sass && !got[i].compressed) {
      ASSERT_TRUE(got[i].elf_sm);
      EXPECT_EQ(*got[i].elf_sm, got[i].arch);
      EXPECT_EQ(got[i].arch_specific, std::optional<bool>(false));
    }
    if (got[i].compressed) {
      EXPECT_NE(got[i].compression, Compression::none);
    }
  }
  EXPECT_EQ(code->warnings, std::vector<std::string>{});
}

INSTANTIATE_TEST_SUITE_P(Cuda118, Fixture,
                         ::testing::Values("multi", "multi-compressed", "ptx-only", "sm70-only",
                                           "host-only", "lib.so", "app.fatbin", "app.cubin",
                                           "archive.a"),
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           std::string n = p.param;
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

TEST(FatbinFixtures, KindsOfTheStandaloneForms) {
  EXPECT_EQ(fixture("multi")->kind, FileKind::host_elf);
  EXPECT_EQ(fixture("app.fatbin")->kind, FileKind::fatbin);
  EXPECT_EQ(fixture("app.cubin")->kind, FileKind::cubin);
  EXPECT_EQ(fixture("archive.a")->kind, FileKind::archive);
  EXPECT_EQ(fixture("host-only")->kind, FileKind::host_elf);
  EXPECT_FALSE(fixture("host-only")->has_gpu_code());
  auto ptx = fixture("app.ptx");
  ASSERT_TRUE(ptx);
  EXPECT_EQ(ptx->kind, FileKind::ptx);
  ASSERT_EQ(ptx->entries.size(), 1u);
  EXPECT_EQ(ptx->entries[0].arch_name(), "compute_80");
  EXPECT_EQ(ptx->entries[0].version_major, 7);
  EXPECT_EQ(ptx->entries[0].version_minor, 8);
}

TEST(FatbinFixtures, ArchiveEntriesNameTheirMember) {
  auto a = fixture("archive.a");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->members, (std::vector<std::string>{"kernel.o", "kernel2.o"}));
  ASSERT_FALSE(a->entries.empty());
  EXPECT_EQ(a->entries.front().member, "kernel.o");
  EXPECT_EQ(a->entries.back().member, "kernel2.o");
  EXPECT_EQ(a->containers.size(), 2u);
}

TEST(FatbinFixtures, CompressedEntriesKeepHeaderFactsOnly) {
  auto c = fixture("multi-compressed");
  ASSERT_TRUE(c);
  for (const auto& e : c->entries) {
    EXPECT_TRUE(e.compressed);
    EXPECT_FALSE(e.arch_specific) << "a compressed payload is never decompressed";
    EXPECT_FALSE(e.elf_flags);
    EXPECT_GT(e.uncompressed_size, 0u);
  }
}

TEST(FatbinFixtures, ScanBytesAgreesWithScanFile) {
  std::string bytes = fatbin_slurp(kCudaFixtures + "/multi");
  FileCode b = fbt::scan(bytes, "multi");
  auto f = fixture("multi");
  ASSERT_TRUE(f);
  ASSERT_EQ(b.entries.size(), f->entries.size());
  for (std::size_t i = 0; i < b.entries.size(); ++i) {
    EXPECT_EQ(b.entries[i].file_offset, f->entries[i].file_offset);
    EXPECT_EQ(b.entries[i].arch, f->entries[i].arch);
  }
}

// tests/fixtures/cuda/bad/ (make_bad.py): every file is a malformed-file error naming the file
// and a hex offset, never a crash.
TEST(FatbinFixtures, BadCorpusGivesErrorsWithFileAndOffset) {
  const std::string dir = kCudaFixtures + "/bad";
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename());
  ASSERT_GE(names.size(), 15u) << "run tests/fixtures/cuda/make_bad.py";
  for (const auto& name : names) {
    auto code = scan_file(AT_FDCWD, dir + "/" + name);
    ASSERT_TRUE(code) << code.error().message();
    ASSERT_TRUE(code->error) << name << " parsed without an error";
    const std::string text = code->error->text();
    EXPECT_TRUE(text.starts_with(dir + "/" + name + ": malformed: ")) << text;
    std::ostringstream off;
    off << "0x" << std::hex << code->error->offset;
    EXPECT_NE(text.find(off.str()), std::string::npos) << text;
    if (name.starts_with("multi-") && name != "multi-zero-section") {
      EXPECT_TRUE(code->error->container) << text;
    }
  }
}

TEST(FatbinScanFile, SkipsFifosWithoutOpeningThem) {
  char dir[] = "/tmp/nvct-fatbin-XXXXXX";
  ASSERT_TRUE(::mkdtemp(dir));
  std::string fifo = std::string(dir) + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto c = scan_file(AT_FDCWD, fifo);  // would block forever if opened for reading
  ::unlink(fifo.c_str());
  ::rmdir(dir);
  ASSERT_TRUE(c) << c.error().message();
  ASSERT_TRUE(c->skipped);
  EXPECT_NE(c->skipped->find("FIFO"), std::string::npos);
}

TEST(FatbinScanFile, SkipsSymlinksAndDevicesAndTooLargeFiles) {
  auto dev = scan_file(AT_FDCWD, "/dev/null");
  ASSERT_TRUE(dev);
  EXPECT_TRUE(dev->skipped);
  ScanLimits small;
  small.max_file_size = 100;
  auto big = scan_file(AT_FDCWD, kCudaFixtures + "/multi", small);
  ASSERT_TRUE(big);
  ASSERT_TRUE(big->skipped);
  EXPECT_NE(big->skipped->find("too large"), std::string::npos);
  auto missing = scan_file(AT_FDCWD, kCudaFixtures + "/no-such-file");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("no-such-file"), std::string::npos);
}

TEST(FatbinList, StandaloneCubinHasNoIndexAndArchivesNameMembers) {
  FileCode c;
  c.kind = FileKind::cubin;
  CodeEntry e;
  e.kind = EntryKind::sass;
  e.arch = 90;
  e.arch_specific = true;
  c.entries.push_back(e);
  EXPECT_EQ(cuobjdump_list(c, EntryKind::sass, "dir/k.cubin"), "ELF file    1: k.sm_90a.cubin\n");
  EXPECT_EQ(cuobjdump_list(c, EntryKind::ptx, "dir/k.cubin"), "");
  FileCode a;
  a.kind = FileKind::archive;
  a.members = {"x.o", "y.o"};
  e.member = "y.o";
  e.arch_specific = false;
  a.entries.push_back(e);
  EXPECT_EQ(
      cuobjdump_list(a, EntryKind::sass, "lib/libk.a"),
      "\nmember lib/libk.a:x.o:\n\nmember lib/libk.a:y.o:\nELF file    1: libk.1.sm_90.cubin\n");
}

TEST(FatbinError, TextNamesFileMemberAndOffset) {
  ScanError e{"usr/lib/broken.so",
              0x2f40,
              0,
              3,
              "",
              "fatbin entry at file offset 0x2f40 (container 0, entry 3) runs past"};
  EXPECT_EQ(e.text(),
            "usr/lib/broken.so: malformed: fatbin entry at file offset 0x2f40 (container 0, entry "
            "3) runs past");
  e.member = "a.o";
  EXPECT_EQ(e.describe(),
            "member a.o: fatbin entry at file offset 0x2f40 (container 0, entry 3) runs past");
}

TEST(FatbinNames, ToStringAndArchNames) {
  EXPECT_EQ(to_string(FileKind::host_elf), "host-elf");
  EXPECT_EQ(to_string(EntryKind::sass), "sass");
  EXPECT_EQ(to_string(Compression::zstd), "zstd");
  CodeEntry p;
  p.kind = EntryKind::ptx;
  p.arch = 90;
  EXPECT_EQ(p.arch_name(), "compute_90");
}

}  // namespace
}  // namespace nvct::compat
