// check_configured_program: the runtime (or hook) an engine config names must be there.
#include "nvct/ctk/configured_program.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::ctk {
namespace {

using nvct::testing::TempDir;

// The program a configuration names must exist (spec/packaging.md §4.3).
TEST(ConfiguredProgram, AnAbsoluteRuntimePathMustBeAnExecutableFile) {
  TempDir dir;
  auto runtime = dir.write("bin/nvidia-container-runtime", "#!/bin/sh\n");
  ConfigureOptions o;
  o.runtime = "containerd";
  o.runtime_path = runtime;
  auto normalized = normalize_options(o);
  ASSERT_TRUE(normalized);
  auto not_executable = check_configured_program(*normalized, "");
  ASSERT_FALSE(not_executable);
  ::chmod(runtime.c_str(), 0755);
  EXPECT_TRUE(check_configured_program(*normalized, ""));

  normalized->runtime_path = dir / "missing/nvidia-container-runtime";
  auto missing = check_configured_program(*normalized, "");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(),
            "the NVIDIA Container Runtime " + dir.path() +
                "/missing/nvidia-container-runtime (--nvidia-runtime-path) is not an executable "
                "file, so containerd could not start it; install nvct there or pass "
                "--nvidia-runtime-path=<its absolute path>");
}

TEST(ConfiguredProgram, DockersBareNameIsLookedUpInPath) {
  TempDir dir;
  auto runtime = dir.write("b/nvidia-container-runtime", "#!/bin/sh\n");
  ::chmod(runtime.c_str(), 0755);
  auto normalized = normalize_options(ConfigureOptions{});
  ASSERT_TRUE(normalized);
  ASSERT_EQ(normalized->runtime_path, "nvidia-container-runtime");
  EXPECT_TRUE(check_configured_program(*normalized, dir / "a:" + dir / "b"));
  auto missing = check_configured_program(*normalized, "relative:" + dir / "a");
  ASSERT_FALSE(missing);
  const std::string head =
      "the NVIDIA Container Runtime nvidia-container-runtime (--nvidia-runtime-path) is not in "
      "any directory of PATH (";
  const std::string tail =
      "/a), where docker would look for it; install nvct or pass "
      "--nvidia-runtime-path=<its absolute path>";
  const std::string want = head + dir.path() + tail;
  EXPECT_EQ(missing.error().message(), want);
}

TEST(ConfiguredProgram, OciHookModeChecksTheHookPath) {
  TempDir dir;
  ConfigureOptions o;
  o.runtime = "crio";
  o.config_mode = "oci-hook";
  o.hook_path = dir / "nvidia-container-runtime-hook";
  o.runtime_path = "/nonexistent";  // not written in oci-hook mode
  auto normalized = normalize_options(o);
  ASSERT_TRUE(normalized);
  auto missing = check_configured_program(*normalized, "");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("the NVIDIA Container Runtime hook " + o.hook_path +
                                           " (--nvidia-runtime-hook-path) is not an executable "
                                           "file"),
            std::string::npos)
      << missing.error().message();
  auto hook = dir.write("nvidia-container-runtime-hook", "#!/bin/sh\n");
  ::chmod(hook.c_str(), 0755);
  EXPECT_TRUE(check_configured_program(*normalized, ""));
}

}  // namespace
}  // namespace nvct::ctk
