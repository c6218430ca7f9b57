#include "cuda_command.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace nvct::cmd::nvidia_ctk {
namespace {

const std::string kFixtures = std::string(NVCT_SOURCE_DIR) + "/tests/fixtures/cuda";

int run(CudaExplainFlags f, std::string* out_text = nullptr, std::string* err_text = nullptr) {
  std::ostringstream out, err;
  int code = run_cuda_explain(f, out, err);
  if (out_text) *out_text = out.str();
  if (err_text) *err_text = err.str();
  return code;
}

TEST(CudaExplainCommand, FlagsOnlyRunExitCodes) {
  CudaExplainFlags f;
  f.path = kFixtures + "/multi";
  f.cuda_driver_version = "12.4";
  f.gpu_arch = {"sm_86"};
  std::string out;
  EXPECT_EQ(run(f, &out), 0);
  EXPECT_NE(out.find("sm_86: native: SASS sm_80 runs on sm_86 (same major, lower minor)"),
            std::string::npos)
      << out;
  f.path = kFixtures + "/sm70-only";
  EXPECT_EQ(run(f), 1);
}

TEST(CudaExplainCommand, BadFlagsExitTwo) {
  CudaExplainFlags f;
  f.path = kFixtures + "/multi";
  f.format = "yaml";
  std::string err;
  EXPECT_EQ(run(f, nullptr, &err), 2);
  EXPECT_EQ(err, "nvidia-ctk cuda explain: --format yaml: expected text or json\n");
  f.format = "text";
  f.driver_version = "abc";
  EXPECT_EQ(run(f, nullptr, &err), 2);
  EXPECT_NE(err.find("--driver-version abc: expected X.Y[.Z]"), std::string::npos);
  f.driver_version = "550.54.14";
  f.gpu_arch = {"volta"};
  EXPECT_EQ(run(f, nullptr, &err), 2);
}

TEST(CudaExplainCommand, ListNeedsNoDriver) {
  CudaExplainFlags f;
  f.path = kFixtures + "/ptx-only";
  f.list = true;
  f.driver_root = "/nonexistent-driver-root";
  std::string out;
  EXPECT_EQ(run(f, &out), 0);
  EXPECT_NE(out.find("PTX file    1: ptx-only.1.sm_90.ptx"), std::string::npos) << out;
}

TEST(CudaExplainCommand, RecognisesItsInvocation) {
  const char* argv[] = {"nvidia-ctk", "--debug", "cuda", "explain"};
  EXPECT_TRUE(is_cuda_invocation(4, const_cast<char**>(argv)));
  const char* other[] = {"nvidia-ctk", "doctor"};
  EXPECT_FALSE(is_cuda_invocation(2, const_cast<char**>(other)));
}

}  // namespace
}  // namespace nvct::cmd::nvidia_ctk
