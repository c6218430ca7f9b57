// libcuda loaded in-process as the helper does for `--query cuda` (runtime.md §7.6), against the
// mock driver's fake libcuda (cuDriverGetVersion only).
#include "nvct/driver/cuda_library.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "nvct/base/file.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::driver {
namespace {

std::string mock_libcuda() {
  return std::string(NVCT_BINARY_DIR) + "/tests/mock-driver/lib64/libcuda.so";
}

// The mock's libcuda with the builder's cuda_version patch applied (make-driver-root.sh writes
// the topology's value over the placeholder, NUL-padded).
std::string patched_libcuda(const nvct::testing::TempDir& dir, const std::string& version) {
  auto read = read_file(mock_libcuda(), 64u << 20);
  EXPECT_TRUE(read) << read.error().message();
  std::string data = read ? *read : "";
  const std::string placeholder = "NVCTCUDAVERSION";
  auto at = data.find(placeholder);
  EXPECT_NE(at, std::string::npos) << "placeholder missing from " << mock_libcuda();
  if (at != std::string::npos)
    data.replace(at, placeholder.size(),
                 version + std::string(placeholder.size() - version.size(), '\0'));
  return dir.write("libcuda.so.1", data);
}

TEST(QueryCudaLibrary, MockLibcudaReportsThePatchedVersion) {
  ASSERT_TRUE(std::filesystem::exists(mock_libcuda()))
      << mock_libcuda() << " is missing: cmake --build <build dir> --target mock_driver";
  nvct::testing::TempDir dir;
  auto facts = query_cuda_library(patched_libcuda(dir, "12040"));
  ASSERT_TRUE(facts) << facts.error().message();
  EXPECT_EQ(facts->driver_version, 12040);
  // The fake has no cuInit/cuDeviceGet/cuDeviceGetAttribute: arch is unknown, with the reason.
  EXPECT_FALSE(facts->device0_arch);
  EXPECT_NE(facts->arch_error.find("cuInit"), std::string::npos) << facts->arch_error;
}

TEST(QueryCudaLibrary, UnpatchedMockFailsLikeAnUninitialisedDriver) {
  ASSERT_TRUE(std::filesystem::exists(mock_libcuda()))
      << mock_libcuda() << " is missing: cmake --build <build dir> --target mock_driver";
  auto facts = query_cuda_library(mock_libcuda());
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().message(), "cuDriverGetVersion failed: CUDA error 3");
}

TEST(QueryCudaLibrary, LibraryWithoutTheSymbolIsAnError) {
  auto facts = query_cuda_library("libm.so.6");
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().message(), "cuDriverGetVersion not found in libm.so.6");
}

TEST(QueryCudaLibrary, MissingLibraryIsALoadError) {
  auto facts = query_cuda_library("/nonexistent/libcuda.so.1");
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().message().rfind("load library failed: ", 0), 0u)
      << facts.error().message();
}

}  // namespace
}  // namespace nvct::driver
