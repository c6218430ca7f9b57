#include "nvct/driver/nvml_library.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace nvct::driver {
namespace {

TEST(NvmlLibrary, MissingLibraryIsALoadFailure) {
  auto api = open_nvml_library("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(api);
  EXPECT_EQ(api.error().message().rfind("load library failed: /nonexistent/libnvidia-ml.so.1", 0),
            0u)
      << api.error().message();
}

TEST(NvmlLibrary, MissingSymbolsReturnFunctionNotFound) {
  // libm has none of the NVML symbols: every call must report NVML_ERROR_FUNCTION_NOT_FOUND.
  auto api = open_nvml_library("libm.so.6");
  ASSERT_TRUE(api) << api.error().message();
  EXPECT_EQ((*api)->init(), kNvmlErrorFunctionNotFound);
  unsigned current = 0, pending = 0;
  EXPECT_EQ((*api)->device_mig_mode(nullptr, current, pending), kNvmlErrorFunctionNotFound);
  EXPECT_EQ((*api)->error_string(13), "unknown error 13");
}

TEST(NvmlLibrary, MockNvmlAnswersThroughTheRealSymbols) {
  std::string lib = std::string(NVCT_BINARY_DIR) + "/tests/mock-driver/lib64/libnvidia-ml.so";
  ASSERT_TRUE(std::filesystem::exists(lib))
      << lib << " is missing: cmake --build <build dir> --target mock_driver";
  auto api = open_nvml_library(lib);
  ASSERT_TRUE(api) << api.error().message();
  // Loaded from the build tree the mock's root is the host, which has no NVIDIA driver: init
  // fails, and the error string comes from the library's own nvmlErrorString.
  int rc = (*api)->init();
  if (rc == kNvmlSuccess) {
    std::string version;
    EXPECT_EQ((*api)->system_driver_version(version), kNvmlSuccess);
    EXPECT_FALSE(version.empty());
    (*api)->shutdown();
  } else {
    EXPECT_NE((*api)->error_string(rc), fmt::format("unknown error {}", rc));
  }
}

}  // namespace
}  // namespace nvct::driver
