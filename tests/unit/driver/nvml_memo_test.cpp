#include "nvct/driver/nvml_memo.hpp"

#include <gtest/gtest.h>

#include "nvct/driver/driver_root.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::driver {
namespace {

TEST(NvmlMemo, SecondAskForTheSameRootAndLibraryReusesTheAnswer) {
  nvct::testing::TempDir dir;
  auto root = DriverRoot::open(dir.path());
  ASSERT_TRUE(root) << root.error().message();
  int calls = 0;
  NvmlQuery memo = memoized_nvml_query([&](const DriverRoot&, const std::string& lib) {
    ++calls;
    NvmlFacts f;
    f.driver_version = "550.54.14 via " + lib;
    return Result<NvmlFacts>(f);
  });
  auto a = memo(*root, "/lib/libnvidia-ml.so.1");
  NvmlQuery copy = memo;  // copies share the answers
  auto b = copy(*root, "/lib/libnvidia-ml.so.1");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(b->driver_version, "550.54.14 via /lib/libnvidia-ml.so.1");
  auto c = memo(*root, "/lib64/libnvidia-ml.so.1");  // another library: asked again
  ASSERT_TRUE(c);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(c->driver_version, "550.54.14 via /lib64/libnvidia-ml.so.1");
}

TEST(NvmlMemo, FailuresAreNotRemembered) {
  nvct::testing::TempDir dir;
  auto root = DriverRoot::open(dir.path());
  ASSERT_TRUE(root);
  int calls = 0;
  NvmlQuery memo = memoized_nvml_query([&](const DriverRoot&, const std::string&) {
    if (++calls == 1) return Result<NvmlFacts>(fail(EIO, "NVML_ERROR_UNKNOWN"));
    return Result<NvmlFacts>(NvmlFacts{});
  });
  EXPECT_FALSE(memo(*root, "/l"));
  EXPECT_TRUE(memo(*root, "/l"));
  EXPECT_TRUE(memo(*root, "/l"));
  EXPECT_EQ(calls, 2);
}

TEST(NvmlMemo, SeparateMemosDoNotShare) {
  nvct::testing::TempDir dir;
  auto root = DriverRoot::open(dir.path());
  ASSERT_TRUE(root);
  int calls = 0;
  auto inner = [&](const DriverRoot&, const std::string&) {
    ++calls;
    return Result<NvmlFacts>(NvmlFacts{});
  };
  NvmlQuery first = memoized_nvml_query(inner);
  NvmlQuery second = memoized_nvml_query(inner);
  EXPECT_TRUE(first(*root, "/l"));
  EXPECT_TRUE(second(*root, "/l"));
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace nvct::driver
