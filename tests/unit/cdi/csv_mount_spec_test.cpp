// Tegra CSV mount specs (runtime.md §7.6; format decisions in csv_mount_spec.hpp).
#include "nvct/cdi/csv_mount_spec.hpp"

#include <gtest/gtest.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::cdi {
namespace {

using Specs = std::vector<CsvMountSpec>;

TEST(CsvMountSpec, EveryRowTypeIsParsed) {
  auto specs = parse_csv_mount_specs(
      "dev, /dev/nvhost-ctrl\nlib, /usr/lib/libcuda.so.1\nsym, /usr/lib/libcuda.so\n"
      "dir, /usr/share/nvidia\n",
      "x.csv");
  ASSERT_TRUE(specs) << specs.error().message();
  EXPECT_EQ(*specs, (Specs{{CsvMountType::kDev, "/dev/nvhost-ctrl"},
                           {CsvMountType::kLib, "/usr/lib/libcuda.so.1"},
                           {CsvMountType::kSym, "/usr/lib/libcuda.so"},
                           {CsvMountType::kDir, "/usr/share/nvidia"}}));
}

TEST(CsvMountSpec, WhitespaceIsTrimmedAndTypeIsCaseInsensitive) {
  auto specs = parse_csv_mount_specs("  \tLIB ,   /usr/lib/a.so  \r\n dev,/dev/x", "x.csv");
  ASSERT_TRUE(specs) << specs.error().message();
  EXPECT_EQ(*specs, (Specs{{CsvMountType::kLib, "/usr/lib/a.so"}, {CsvMountType::kDev, "/dev/x"}}));
}

TEST(CsvMountSpec, BlankLinesAndCommentsAreSkipped) {
  auto specs = parse_csv_mount_specs("\n   \n# a comment\n  # indented\nlib, /a.so\n\n", "x.csv");
  ASSERT_TRUE(specs) << specs.error().message();
  EXPECT_EQ(*specs, (Specs{{CsvMountType::kLib, "/a.so"}}));
}

TEST(CsvMountSpec, GlobPathsAreKeptForLaterExpansion) {
  auto specs = parse_csv_mount_specs("dev, /dev/nvhost-*", "x.csv");
  ASSERT_TRUE(specs);
  EXPECT_EQ(specs->at(0).path, "/dev/nvhost-*");
}

TEST(CsvMountSpec, UnknownTypeNamesFileAndLine) {
  auto specs = parse_csv_mount_specs("lib, /a.so\n\nfoo, /b.so\n", "/etc/x/drivers.csv");
  ASSERT_FALSE(specs);
  EXPECT_EQ(specs.error().code(), EINVAL);
  EXPECT_NE(specs.error().message().find("/etc/x/drivers.csv:3"), std::string::npos)
      << specs.error().message();
  EXPECT_NE(specs.error().message().find("foo"), std::string::npos);
}

TEST(CsvMountSpec, MissingCommaAndRelativePathAreErrors) {
  auto no_comma = parse_csv_mount_specs("lib /a.so", "f.csv");
  ASSERT_FALSE(no_comma);
  EXPECT_NE(no_comma.error().message().find("f.csv:1"), std::string::npos);
  auto relative = parse_csv_mount_specs("lib, a.so", "f.csv");
  ASSERT_FALSE(relative);
  EXPECT_NE(relative.error().message().find("absolute"), std::string::npos);
  auto empty = parse_csv_mount_specs("lib,", "f.csv");
  EXPECT_FALSE(empty);
}

TEST(CsvMountSpec, TypeNames) {
  EXPECT_EQ(csv_mount_type_name(CsvMountType::kDev), "dev");
  EXPECT_EQ(csv_mount_type_name(CsvMountType::kLib), "lib");
  EXPECT_EQ(csv_mount_type_name(CsvMountType::kSym), "sym");
  EXPECT_EQ(csv_mount_type_name(CsvMountType::kDir), "dir");
}

TEST(CsvMountSpec, MissingFileIsAnErrorNamingIt) {
  nvct::testing::TempDir dir;
  auto specs = read_csv_mount_spec_file(dir.path() + "/none.csv");
  ASSERT_FALSE(specs);
  EXPECT_EQ(specs.error().code(), ENOENT);
  EXPECT_NE(specs.error().message().find(dir.path() + "/none.csv"), std::string::npos);
}

TEST(CsvMountSpec, FileListSkipsMissingFilesAndKeepsOrder) {
  nvct::testing::TempDir dir;
  dir.write("a.csv", "dev, /dev/a\n");
  dir.write("b.csv", "lib, /b.so\n");
  auto specs = read_csv_mount_spec_files(
      {dir.path() + "/a.csv", dir.path() + "/missing.csv", dir.path() + "/b.csv"});
  ASSERT_TRUE(specs) << specs.error().message();
  EXPECT_EQ(*specs, (Specs{{CsvMountType::kDev, "/dev/a"}, {CsvMountType::kLib, "/b.so"}}));
}

TEST(CsvMountSpec, FileListFailsOnABadFile) {
  nvct::testing::TempDir dir;
  dir.write("bad.csv", "xyz, /a\n");
  auto specs = read_csv_mount_spec_files({dir.path() + "/bad.csv"});
  ASSERT_FALSE(specs);
  EXPECT_NE(specs.error().message().find("bad.csv:1"), std::string::npos);
}

TEST(CsvMountSpec, DefaultFilesAreTheThreeBaseFiles) {
  ASSERT_EQ(kDefaultCsvFiles.size(), 3u);
  EXPECT_EQ(kDefaultCsvFiles[0],
            "/etc/nvidia-container-runtime/host-files-for-container.d/devices.csv");
  EXPECT_EQ(kDefaultCsvFiles[1],
            "/etc/nvidia-container-runtime/host-files-for-container.d/drivers.csv");
  EXPECT_EQ(kDefaultCsvFiles[2],
            "/etc/nvidia-container-runtime/host-files-for-container.d/l4t.csv");
}

}  // namespace
}  // namespace nvct::cdi
