#include "nvct/compat/image_runtime.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::compat {
namespace {

Result<ImageRuntime> read(const nvct::testing::TempDir& dir, const ImageEnv& env = {}) {
  auto root = driver::DriverRoot::open(dir.path());
  if (!root) return tl::unexpected(root.error());
  return read_image_runtime(*root, env);
}

TEST(ImageRuntime, CudartFileNameVersion) {
  EXPECT_EQ(cudart_file_version("libcudart.so.12.4.127"), "12.4");
  EXPECT_EQ(cudart_file_version("libcudart.so.11.8.89"), "11.8");
  // The soname says too little: 11.0 for every 11.x, 12 for every 12.x.
  EXPECT_FALSE(cudart_file_version("libcudart.so.11.0"));
  EXPECT_FALSE(cudart_file_version("libcudart.so.12"));
  EXPECT_FALSE(cudart_file_version("libcudart.so"));
  EXPECT_FALSE(cudart_file_version("libcudart_static.a"));
}

TEST(ImageRuntime, VersionFiles) {
  EXPECT_EQ(version_json_cuda(R"({"cuda":{"name":"CUDA SDK","version":"11.8.20220929"}})"),
            "11.8");
  EXPECT_EQ(version_json_cuda(R"({"cuda_cudart":{"version":"12.2.140"}})"), "12.2");
  EXPECT_FALSE(version_json_cuda("not json"));
  EXPECT_EQ(version_txt_cuda("CUDA Version 10.2.89\n"), "10.2");
  EXPECT_FALSE(version_txt_cuda("nothing here"));
}

TEST(ImageRuntime, LibcudartDecidesAndTheHighestCopyWins) {
  nvct::testing::TempDir dir;
  dir.write("usr/local/cuda-12.2/lib64/libcudart.so.12.2.140", "");
  dir.write("usr/lib/python3/dist-packages/x/libcudart.so.12.4.127", "");  // not a library dir
  dir.write("usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12.4.127", "");
  ::symlink("cuda-12.2", (dir / "usr/local/cuda").c_str());
  dir.write("usr/local/cuda-12.2/version.json", R"({"cuda":{"version":"12.2.2"}})");
  auto r = read(dir, ImageEnv::from_entries({"CUDA_VERSION=11.8.0"}));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->version, "12.4");
  EXPECT_EQ(r->source, "libcudart");
  EXPECT_EQ(r->path, "usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12.4.127");
  EXPECT_EQ(r->cudart.size(), 2u);
  EXPECT_EQ(r->version_json, "12.2");
}

TEST(ImageRuntime, FallbacksInOrder) {
  nvct::testing::TempDir dir;
  dir.write("usr/local/cuda/version.json", R"({"cuda":{"version":"11.8.20220929"}})");
  dir.write("usr/local/cuda/version.txt", "CUDA Version 10.2.89\n");
  auto env = ImageEnv::from_entries({"CUDA_VERSION=12.4.1", "PATH=/bin"});
  auto r = read(dir, env);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->version, "12.4");
  EXPECT_EQ(r->source, "CUDA_VERSION");
  r = read(dir);
  EXPECT_EQ(r->version, "11.8");
  EXPECT_EQ(r->source, "version.json");
  std::filesystem::remove(dir / "usr/local/cuda/version.json");
  r = read(dir);
  EXPECT_EQ(r->version, "10.2");
  EXPECT_EQ(r->source, "version.txt");
}

TEST(ImageRuntime, NoRuntimeAtAll) {
  nvct::testing::TempDir dir;
  dir.write("etc/os-release", "x");
  auto r = read(dir);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->version);
  EXPECT_EQ(r->source, "");
  EXPECT_FALSE(r->compat.present);
}

TEST(ImageRuntime, LinksStayInsideTheRootfs) {
  nvct::testing::TempDir dir;
  dir.write("usr/lib/x86_64-linux-gnu/.keep", "");
  // A cuda link out of the rootfs resolves inside it: the host's /usr/local/cuda is never read.
  std::filesystem::create_directories(dir / "usr/local");
  ::symlink("/../../../usr/local/cuda-host", (dir / "usr/local/cuda").c_str());
  dir.write("usr/local/cuda-host/version.txt", "CUDA Version 9.2.1\n");
  auto r = read(dir);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->version, "9.2");  // the rootfs's own usr/local/cuda-host
  ::symlink("/../../etc/passwd", (dir / "usr/lib/x86_64-linux-gnu/libcudart.so.12.4.1").c_str());
  r = read(dir);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->version, "12.4");  // the file name decides; nothing outside was opened
}

TEST(ImageRuntime, CompatPackage) {
  nvct::testing::TempDir dir;
  dir.write("usr/local/cuda-12.4/compat/libcuda.so.550.54.15", "not an ELF");
  ::symlink("libcuda.so.550.54.15", (dir / "usr/local/cuda-12.4/compat/libcuda.so.1").c_str());
  ::symlink("/usr/local/cuda-12.4", (dir / "usr/local/cuda").c_str());
  auto r = read(dir);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->compat.present);
  EXPECT_EQ(r->compat.path, "usr/local/cuda/compat/libcuda.so.550.54.15");
  EXPECT_EQ(r->compat.driver_version, "550.54.15");
  EXPECT_EQ(r->compat.cuda_version, "12.4");  // no ELF note: from the driver branch
}

}  // namespace
}  // namespace nvct::compat
