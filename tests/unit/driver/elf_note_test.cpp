#include "nvct/driver/elf_note.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>

#include "elf_writer.hpp"
#include "nvct/base/file.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct::driver {
namespace {

Result<std::optional<AbiTag>> tag_of(const std::string& bytes) {
  // An in-memory file: the truncation test makes hundreds of them.
  unique_fd fd(::memfd_create("elf", MFD_CLOEXEC));
  if (!fd || !write_all(fd.get(), bytes)) return fail(EIO, "cannot create the test file");
  return read_abi_tag(fd.get());
}

TEST(ElfNote, ReadsTheGnuAbiTag) {
  auto t = tag_of(testing::build_elf(testing::AbiNoteSpec{0, 2, 3, 99}));
  ASSERT_TRUE(t) << t.error().message();
  ASSERT_TRUE(*t);
  EXPECT_EQ((*t)->os, 0u);
  EXPECT_EQ((*t)->version, (std::array<unsigned, 3>{2, 3, 99}));
}

TEST(ElfNote, NoNoteSectionIsNoTag) {
  auto t = tag_of(testing::build_elf(std::nullopt));
  ASSERT_TRUE(t) << t.error().message();
  EXPECT_FALSE(*t);
}

TEST(ElfNote, HostBinaryCarriesALinuxTag) {
  unique_fd fd(::open("/bin/true", O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(fd) << "this test needs /bin/true";
  auto t = read_abi_tag(fd.get());
  ASSERT_TRUE(t) << t.error().message();
  ASSERT_TRUE(*t) << "Debian binaries carry .note.ABI-tag";
  EXPECT_EQ((*t)->os, 0u);
  EXPECT_GE((*t)->version[0], 2u);
}

TEST(ElfNote, NotElfAndHostileOffsetsAreErrors) {
  EXPECT_FALSE(tag_of("not an elf file at all, but long enough for an identification"));
  std::string elf = testing::build_elf(testing::AbiNoteSpec{0, 2, 3, 99});
  std::string bad_shoff = elf;
  Elf64_Ehdr e;
  std::memcpy(&e, bad_shoff.data(), sizeof e);
  e.e_shoff = 0xffffffffffff0000ull;
  std::memcpy(bad_shoff.data(), &e, sizeof e);
  EXPECT_FALSE(tag_of(bad_shoff));
  std::string bad_strndx = elf;
  e = {};
  std::memcpy(&e, bad_strndx.data(), sizeof e);
  e.e_shstrndx = 50;
  std::memcpy(bad_strndx.data(), &e, sizeof e);
  EXPECT_FALSE(tag_of(bad_strndx));
  // Every truncation fails cleanly or parses.
  for (std::size_t n = 0; n < elf.size(); ++n) (void)tag_of(elf.substr(0, n));
}

TEST(ElfNote, OversizedNoteLengthIsAnError) {
  std::string elf = testing::build_elf(testing::AbiNoteSpec{0, 2, 3, 99});
  // The note header follows the 25-byte name table at offset 64, aligned to 8: offset 96.
  std::uint32_t huge = 0x7fffffff;
  std::memcpy(elf.data() + 96, &huge, 4);
  auto t = tag_of(elf);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().message(), "ELF note truncated");
}

}  // namespace
}  // namespace nvct::driver
