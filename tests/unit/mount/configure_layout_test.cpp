#include "nvct/mount/configure_layout.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::mount {
namespace {

edits::ContainerLayout layout_of(const nvct::testing::TempDir& dir, std::string_view machine) {
  auto root = Root::open(dir.path());
  EXPECT_TRUE(root);
  auto l = choose_container_layout(*root, machine);
  if (!l) {
    ADD_FAILURE() << l.error().message();
    return {};
  }
  return *l;
}

TEST(ContainerLayout, DebianImageGetsMultiarchDirs) {
  nvct::testing::TempDir dir;
  dir.write("etc/debian_version", "12.5\n");
  auto l = layout_of(dir, "x86_64");
  EXPECT_EQ(l.bins_dir, "/usr/bin");
  EXPECT_EQ(l.libs_dir, "/usr/lib/x86_64-linux-gnu");
  EXPECT_EQ(l.libs32_dir, "/usr/lib/i386-linux-gnu");
}

TEST(ContainerLayout, DebianOnAarch64AndPpc64leHasNoLibs32) {
  nvct::testing::TempDir dir;
  dir.write("etc/debian_version", "12.5\n");
  auto a = layout_of(dir, "aarch64");
  EXPECT_EQ(a.libs_dir, "/usr/lib/aarch64-linux-gnu");
  EXPECT_EQ(a.libs32_dir, "/var/empty");
  auto p = layout_of(dir, "ppc64le");
  EXPECT_EQ(p.libs_dir, "/usr/lib/powerpc64le-linux-gnu");
  EXPECT_EQ(p.libs32_dir, "/var/empty");
}

TEST(ContainerLayout, DebianCheckIsResolvedInsideTheRootfs) {
  nvct::testing::TempDir dir;
  // An absolute link to a file the host has must not count: in the rootfs it dangles.
  std::filesystem::create_directories(dir / "etc");
  std::filesystem::create_symlink("/etc/hostname", dir / "etc/debian_version");
  EXPECT_EQ(layout_of(dir, "x86_64").libs_dir, "/usr/lib64");
}

TEST(ContainerLayout, SymlinkLoopCountsAsAbsent) {
  nvct::testing::TempDir dir;
  std::filesystem::create_directories(dir / "etc");
  std::filesystem::create_symlink("/etc/debian_version", dir / "etc/debian_version");
  EXPECT_EQ(layout_of(dir, "x86_64").libs_dir, "/usr/lib64");
}

TEST(ContainerLayout, OtherImagesUseLib64AndLib32WhenItExists) {
  nvct::testing::TempDir dir;
  std::filesystem::create_directories(dir / "usr/lib32");
  std::filesystem::create_directories(dir / "usr/lib");
  auto l = layout_of(dir, "x86_64");
  EXPECT_EQ(l.libs_dir, "/usr/lib64");
  EXPECT_EQ(l.libs32_dir, "/usr/lib32");
}

TEST(ContainerLayout, UsrLibServesAsLibs32WithoutLib32) {
  nvct::testing::TempDir dir;
  std::filesystem::create_directories(dir / "usr/lib");
  std::filesystem::create_directories(dir / "usr/lib64");
  EXPECT_EQ(layout_of(dir, "x86_64").libs32_dir, "/usr/lib");
}

TEST(ContainerLayout, UsrLibIsNotLibs32WhenItIsTheLibsDir) {
  nvct::testing::TempDir dir;
  std::filesystem::create_directories(dir / "usr/lib");
  std::filesystem::create_symlink("lib", dir / "usr/lib64");
  EXPECT_EQ(layout_of(dir, "x86_64").libs32_dir, "/usr/lib32");
}

TEST(ContainerLayout, EmptyImageFallsBackToLib32) {
  nvct::testing::TempDir dir;
  auto l = layout_of(dir, "x86_64");
  EXPECT_EQ(l.libs_dir, "/usr/lib64");
  EXPECT_EQ(l.libs32_dir, "/usr/lib32");
}

}  // namespace
}  // namespace nvct::mount
