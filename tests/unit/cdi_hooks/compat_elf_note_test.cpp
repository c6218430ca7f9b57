#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "elf_writer.hpp"
#include "nvct/base/unique_fd.hpp"
#include "nvct/cdi_hooks/cuda_compat.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::cdi_hooks {
namespace {

using testing::make_elf;
using testing::Note;

Result<std::optional<std::string>> read_note_of(const std::string& content) {
  nvct::testing::TempDir t;
  std::string p = t.write("libcuda.so.999.1", content);
  unique_fd fd(::open(p.c_str(), O_RDONLY | O_CLOEXEC));
  return read_compat_cuda_version(fd.get());
}

TEST(CompatElfNote, ReadsTheNvidiaCudaVersionNote) {
  auto v = read_note_of(make_elf({{"GNU", 1, "abi"}, {"NVIDIA", 1, "12.8"}}));
  ASSERT_TRUE(v) << v.error().message();
  ASSERT_TRUE(v->has_value());
  EXPECT_EQ(**v, "12.8");
}

TEST(CompatElfNote, NoNoteIsNotAnError) {
  auto v = read_note_of(make_elf({{"GNU", 1, "abi"}, {"NVIDIA", 2, "other type"}}));
  ASSERT_TRUE(v) << v.error().message();
  EXPECT_FALSE(v->has_value());
}

TEST(CompatElfNote, SectionTablePastTheEndIsAnError) {
  auto v = read_note_of(make_elf({{"NVIDIA", 1, "12.8"}}, 40));
  EXPECT_FALSE(v);
}

TEST(CompatElfNote, NotElfIsAnError) { EXPECT_FALSE(read_note_of("#!/bin/sh\necho hi\n")); }

TEST(CompatElfNote, TruncatedHeaderIsAnError) {
  EXPECT_FALSE(
      read_note_of("\x7f"
                   "ELF"));
}

TEST(CompatElfNote, NoteSizeLargerThanItsSectionIsIgnored) {
  std::string elf = make_elf({{"NVIDIA", 1, "12.8"}});
  // descsz of the first note (offset 64 + 4) claims far more bytes than the section holds.
  elf[64 + 4] = '\xff';
  elf[64 + 5] = '\xff';
  auto v = read_note_of(elf);
  ASSERT_TRUE(v) << v.error().message();
  EXPECT_FALSE(v->has_value());
}

}  // namespace
}  // namespace nvct::cdi_hooks
