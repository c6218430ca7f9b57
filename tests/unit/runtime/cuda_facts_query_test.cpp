// Where csv mode's CUDA facts come from: libcuda.so.1 under the driver root, asked through the
// nvidia-container-runtime-nvml helper with `--query cuda`.
#include "nvct/runtime/cuda_facts_query.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "nvct/driver/nvml_helper.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::runtime {
namespace {

// An ELF header is all the library locator's fallback checks (no ld.so.cache in these roots).
const std::string kCudaElf = std::string(
                             "\x7f"
                             "ELF\x02\x01\x01",
                             7) +
                         std::string(57, '\0');

std::string write_helper(const nvct::testing::TempDir& dir, const std::string& body) {
  std::string path = dir.write(std::string(driver::kNvmlHelperName), "#!/bin/sh\n" + body + "\n");
  EXPECT_EQ(::chmod(path.c_str(), 0755), 0);
  return path;
}

TEST(FindLibcuda, FoundInADefaultLibraryDirectory) {
  nvct::testing::TempDir root;
  root.write("usr/lib/x86_64-linux-gnu/libcuda.so.1", kCudaElf);
  root.write("usr/lib64/libcuda.so.1", kCudaElf);
  auto path = find_libcuda(root.path());
  ASSERT_TRUE(path) << path.error().message();
  EXPECT_NE(path->find("libcuda.so.1"), std::string::npos) << *path;
  EXPECT_EQ(path->front(), '/');
}

TEST(FindLibcuda, MissingNamesTheLibraryAndTheRoot) {
  nvct::testing::TempDir root;
  auto path = find_libcuda(root.path());
  ASSERT_FALSE(path);
  EXPECT_NE(path.error().message().find("libcuda.so.1 not found under " + root.path()),
            std::string::npos)
      << path.error().message();
}

TEST(HelperCudaFactsQuery, RunsTheHelperWithQueryCudaAndDecodesItsReply) {
  nvct::testing::TempDir root, bin;
  root.write("usr/lib/x86_64-linux-gnu/libcuda.so.1", kCudaElf);
  root.write("usr/lib64/libcuda.so.1", kCudaElf);
  const std::string args_file = bin / "args";
  write_helper(bin, "echo \"$@\" > " + args_file +
                        "\necho '{\"cuda\":{\"driver_version\":12060,\"device0_arch\":\"8.7\"}}'");
  auto facts = helper_cuda_facts_query({bin.path()})(root.path());
  ASSERT_TRUE(facts) << facts.error().message();
  EXPECT_EQ(facts->driver_version, 12060);
  EXPECT_EQ(facts->device0_arch, "8.7");
  std::string args = bin.read("args");
  EXPECT_EQ(args.rfind("--query cuda --root " + root.path() + " --library /", 0), 0u) << args;
  EXPECT_NE(args.find("libcuda.so.1"), std::string::npos) << args;
}

TEST(HelperCudaFactsQuery, HelperErrorIsReturned) {
  nvct::testing::TempDir root, bin;
  root.write("usr/lib/x86_64-linux-gnu/libcuda.so.1", kCudaElf);
  root.write("usr/lib64/libcuda.so.1", kCudaElf);
  write_helper(bin, "echo '{\"error\":\"cuDriverGetVersion failed: CUDA error 3\"}'; exit 1");
  auto facts = helper_cuda_facts_query({bin.path()})(root.path());
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().message(), "cuDriverGetVersion failed: CUDA error 3");
}

TEST(HelperCudaFactsQuery, NoLibcudaFailsBeforeLookingForTheHelper) {
  nvct::testing::TempDir root, bin;
  auto facts = helper_cuda_facts_query({bin.path()})(root.path());
  ASSERT_FALSE(facts);
  EXPECT_NE(facts.error().message().find("libcuda.so.1 not found"), std::string::npos);
}

TEST(HelperCudaFactsQuery, MissingHelperIsAnError) {
  nvct::testing::TempDir root, bin;
  root.write("usr/lib/x86_64-linux-gnu/libcuda.so.1", kCudaElf);
  root.write("usr/lib64/libcuda.so.1", kCudaElf);
  auto facts = helper_cuda_facts_query({bin.path()})(root.path());
  ASSERT_FALSE(facts);
  EXPECT_NE(facts.error().message().find("no usable NVML helper"), std::string::npos);
}

}  // namespace
}  // namespace nvct::runtime
