#include "output.hpp"

#include <gtest/gtest.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::cmd::nvidia_ctk {
namespace {

using nvct::testing::TempDir;

TEST(WriteOutput, CreatesParentDirectories) {
  TempDir dir;
  ASSERT_TRUE(write_output(dir / "a/b/out.toml", "x\n"));
  EXPECT_EQ(dir.read("a/b/out.toml"), "x\n");
}

TEST(WriteOutput, ReplacesExistingFile) {
  TempDir dir;
  dir.write("out.toml", "old\n");
  ASSERT_TRUE(write_output(dir / "out.toml", "new\n"));
  EXPECT_EQ(dir.read("out.toml"), "new\n");
}

TEST(WriteOutput, ParentThatIsAFileIsAnError) {
  TempDir dir;
  dir.write("file", "");
  Status s = write_output(dir / "file/out.toml", "x");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("file"), std::string::npos);
}

}  // namespace
}  // namespace nvct::cmd::nvidia_ctk
