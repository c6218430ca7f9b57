// Hook-creator rules of spec/cdi.md §8 and the hook path rules of §6.1.
#include "nvct/cdi/generate_hooks.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::cdi {
namespace {

TEST(GenerateHooks, CdiHookBinaryGivesBasenameThenHookName) {
  HookOptions o;
  auto h = make_hook(o, "update-ldcache", {"--folder", "/lib"});
  ASSERT_TRUE(h);
  EXPECT_EQ(h->hook_name, "createContainer");
  EXPECT_EQ(h->path, "/usr/bin/nvidia-cdi-hook");
  EXPECT_EQ(h->args,
            (std::vector<std::string>{"nvidia-cdi-hook", "update-ldcache", "--folder", "/lib"}));
  EXPECT_EQ(h->env, (std::vector<std::string>{"NVIDIA_CTK_DEBUG=false"}));
}

TEST(GenerateHooks, NvidiaCtkBinaryGivesHookSubcommand) {
  HookOptions o;
  o.binary = "/opt/bin/nvidia-ctk";
  auto h = make_hook(o, "disable-device-node-modification", {});
  ASSERT_TRUE(h);
  EXPECT_EQ(h->args,
            (std::vector<std::string>{"nvidia-ctk", "hook", "disable-device-node-modification"}));
}

TEST(GenerateHooks, DebugSetsTheDebugEnvTrue) {
  HookOptions o;
  o.debug = true;
  EXPECT_EQ(make_hook(o, "noop", {})->env, (std::vector<std::string>{"NVIDIA_CTK_DEBUG=true"}));
}

TEST(GenerateHooks, SymlinksAndChmodWithoutArgsGiveNoHook) {
  HookOptions o;
  o.enabled = {"chmod"};
  EXPECT_FALSE(make_hook(o, "create-symlinks", {}));
  EXPECT_FALSE(make_hook(o, "chmod", {}));
  EXPECT_TRUE(make_hook(o, "create-symlinks", {"--link", "a::/b"}));
}

TEST(GenerateHooks, ChmodIsDisabledByDefault) {
  HookOptions o;
  EXPECT_FALSE(hook_enabled(o, "chmod"));
  EXPECT_TRUE(hook_enabled(o, "update-ldcache"));
  o.enabled = {"chmod"};
  EXPECT_TRUE(hook_enabled(o, "chmod"));
}

TEST(GenerateHooks, DisableAllDisablesEveryHookButExplicitEnablesWin) {
  HookOptions o;
  o.disabled = {"all"};
  EXPECT_FALSE(hook_enabled(o, "update-ldcache"));
  EXPECT_FALSE(hook_enabled(o, "create-symlinks"));
  o.enabled = {"update-ldcache"};
  EXPECT_TRUE(hook_enabled(o, "update-ldcache"));
}

TEST(GenerateHooks, DisableByName) {
  HookOptions o;
  o.disabled = {"enable-cuda-compat"};
  EXPECT_FALSE(make_hook(o, "enable-cuda-compat", {"--host-driver-version=1"}));
  EXPECT_TRUE(make_hook(o, "update-ldcache", {}));
}

TEST(GenerateHooks, EnableAllIsRejected) {
  HookOptions o;
  o.enabled = {"all"};
  EXPECT_FALSE(validate_hook_options(o));
  o.enabled = {"chmod"};
  EXPECT_TRUE(validate_hook_options(o));
}

TEST(GenerateHooks, HookBinaryFoundOnPathWithUsrBinFallback) {
  testing::TempDir d;
  std::string bin = d.write("bin/nvidia-cdi-hook", "#!/bin/sh\n");
  ::chmod(bin.c_str(), 0755);
  EXPECT_EQ(resolve_hook_binary("", "relative:" + d.path() + "/bin"), bin);
  EXPECT_EQ(resolve_hook_binary("", "/nonexistent"), "/usr/bin/nvidia-cdi-hook");
  EXPECT_EQ(resolve_hook_binary("/x/nvidia-cdi-hook", ""), "/x/nvidia-cdi-hook");
  EXPECT_EQ(resolve_hook_binary("nvidia-ctk", "/nonexistent"), "/usr/bin/nvidia-ctk");
}

TEST(GenerateHooks, NonExecutableOnPathIsSkipped) {
  testing::TempDir d;
  d.write("bin/nvidia-cdi-hook", "not executable");
  EXPECT_EQ(resolve_hook_binary("", d.path() + "/bin"), "/usr/bin/nvidia-cdi-hook");
}

}  // namespace
}  // namespace nvct::cdi
