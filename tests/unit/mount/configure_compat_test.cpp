#include "nvct/mount/configure_compat.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::mount {
namespace {

TEST(CudaCompatMode, DefaultIsMountWhichRunsAsLdconfig) {
  EXPECT_EQ(resolve_cuda_compat_mode({}, false), CudaCompatMode::kLdconfig);
  EXPECT_EQ(resolve_cuda_compat_mode({"mount"}, false), CudaCompatMode::kLdconfig);
  EXPECT_EQ(resolve_cuda_compat_mode({"ldconfig"}, false), CudaCompatMode::kLdconfig);
}

TEST(CudaCompatMode, DisabledAndNoCntlibsOverrideEverything) {
  EXPECT_EQ(resolve_cuda_compat_mode({"ldconfig"}, true), CudaCompatMode::kDisabled);
  EXPECT_EQ(resolve_cuda_compat_mode({"mount", "ldconfig", "disabled"}, false),
            CudaCompatMode::kDisabled);
}

TEST(CudaCompatMode, MountAndLdconfigTogetherFail) {
  auto m = resolve_cuda_compat_mode({"mount", "ldconfig"}, false);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().message(), "only one cuda-compat-mode can be specified at a time");
}

TEST(CudaCompatMode, UnknownValueFails) { EXPECT_FALSE(resolve_cuda_compat_mode({"hook"}, false)); }

TEST(CompatLibs, MajorIsTheDigitsAfterDotSo) {
  EXPECT_EQ(compat_lib_major("libcuda.so.560.35.03"), 560u);
  EXPECT_EQ(compat_lib_major("libcuda.so.1"), 1u);
  EXPECT_FALSE(compat_lib_major("libcuda.so"));
  EXPECT_FALSE(compat_lib_major("libcuda.so.x"));
}

TEST(CompatLibs, OnlyMajorsNewerThanTheDriverAreKept) {
  EXPECT_TRUE(compat_lib_is_newer("libcuda.so.560.35.03", "550.54.14"));
  EXPECT_FALSE(compat_lib_is_newer("libnvidia-ptxjitcompiler.so.550.99.01", "550.54.14"));
  EXPECT_FALSE(compat_lib_is_newer("libcuda.so.535.00.01", "550.54.14"));
  // Numeric, not textual: 1000 > 999.
  EXPECT_TRUE(compat_lib_is_newer("libcuda.so.1000.1", "999.0"));
}

class CompatFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("usr/local/cuda-12.6/compat/libcuda.so.560.35.03", "new");
    dir_.write("usr/local/cuda-12.6/compat/libnvidia-ptxjitcompiler.so.550.99.01", "same");
    std::filesystem::create_symlink("libcuda.so.560.35.03",
                                    dir_ / "usr/local/cuda-12.6/compat/libcuda.so.1");
    // Absolute link: resolved in the rootfs, never on the host (issue #117).
    std::filesystem::create_symlink("/usr/local/cuda-12.6", dir_ / "usr/local/cuda");
  }
  nvct::testing::TempDir dir_;
};

TEST_F(CompatFolder, NewerLibsGiveTheirRealInRootFolder) {
  auto root = Root::open(dir_.path());
  ASSERT_TRUE(root);
  auto f = compat_ldconfig_folder(*root, "550.54.14");
  ASSERT_TRUE(f) << f.error().message();
  EXPECT_EQ(*f, "/usr/local/cuda-12.6/compat");
}

TEST_F(CompatFolder, NoFolderWhenNothingIsNewer) {
  auto root = Root::open(dir_.path());
  auto f = compat_ldconfig_folder(*root, "560.35.03");
  ASSERT_TRUE(f);
  EXPECT_FALSE(*f);
}

TEST_F(CompatFolder, KeptLibsInTwoFoldersAreAnError) {
  dir_.write("opt/other/libnvidia-nvvm.so.570.1", "elsewhere");
  std::filesystem::create_symlink("/opt/other/libnvidia-nvvm.so.570.1",
                                  dir_ / "usr/local/cuda-12.6/compat/libnvidia-nvvm.so.4");
  auto root = Root::open(dir_.path());
  auto f = compat_ldconfig_folder(*root, "550.54.14");
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message().find("more than one folder"), std::string::npos);
}

TEST(CompatFolderAbsent, ImageWithoutCompatDirHasNone) {
  nvct::testing::TempDir dir;
  auto root = Root::open(dir.path());
  auto f = compat_ldconfig_folder(*root, "550.54.14");
  ASSERT_TRUE(f);
  EXPECT_FALSE(*f);
}

}  // namespace
}  // namespace nvct::mount
