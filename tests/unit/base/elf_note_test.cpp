#include "nvct/base/elf_note.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>

#include "elf_note_writer.hpp"
#include "nvct/base/unique_fd.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct {
namespace {

using nvct::testing::elf_with_note;

class ReadElfNote : public ::testing::Test {
 protected:
  Result<std::optional<std::string>> read(std::string_view content, std::string_view owner = "nvct",
                                          std::uint32_t type = kVersionNoteType,
                                          std::size_t max_text = 63) {
    std::string path = dir_.write("f", content);
    unique_fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    return read_elf_note(fd.get(), owner, type, max_text);
  }
  nvct::testing::TempDir dir_;
};

TEST_F(ReadElfNote, FindsTheTextOfTheNoteWithThisOwnerAndType) {
  auto v = read(nvct::testing::nvct_program("1.20.0+nvct0.1.0"));
  ASSERT_TRUE(v) << v.error().message();
  EXPECT_EQ(*v, "1.20.0+nvct0.1.0");
}

TEST_F(ReadElfNote, AnotherOwnerTypeOrNoNoteIsNone) {
  auto other_owner = read(elf_with_note("NVIDIA", kVersionNoteType, "12.4"));
  ASSERT_TRUE(other_owner);
  EXPECT_FALSE(*other_owner);
  // "nvc" is a prefix of "nvct": owners are compared whole.
  auto prefix = read(elf_with_note("nvc", kVersionNoteType, "1.0"));
  ASSERT_TRUE(prefix);
  EXPECT_FALSE(*prefix);
  auto other_type = read(elf_with_note("nvct", 2, "1.0"));
  ASSERT_TRUE(other_type);
  EXPECT_FALSE(*other_type);
  auto none = read(elf_with_note("", 0, ""));
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
}

TEST_F(ReadElfNote, TextLongerThanAllowedOrEmptyIsNone) {
  auto long_text = read(nvct::testing::nvct_program(std::string(40, 'x')), "nvct",
                        kVersionNoteType, 31);
  ASSERT_TRUE(long_text);
  EXPECT_FALSE(*long_text);
  auto empty = read(nvct::testing::nvct_program(""));
  ASSERT_TRUE(empty);
  EXPECT_FALSE(*empty);
}

TEST_F(ReadElfNote, NotElfNotRegularOrTruncatedIsAnError) {
  auto script = read("#!/bin/sh\nexec runc \"$@\"\n");
  ASSERT_FALSE(script);
  EXPECT_EQ(script.error().message(), "not an ELF file");
  unique_fd dir(::open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  auto folder = read_elf_note(dir.get(), "nvct", kVersionNoteType, 63);
  ASSERT_FALSE(folder);
  EXPECT_EQ(folder.error().message(), "not a regular file");
  std::string elf = nvct::testing::nvct_program("1.0");
  auto cut = read(elf.substr(0, elf.size() - 10));
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().message(), "ELF structure points past the end of the file");
}

}  // namespace
}  // namespace nvct
