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

TEST(GenerateHooks, HookBinaryFoundOnPath) {
  nvct::testing::TempDir d;
  std::string bin = d.write("bin/nvidia-cdi-hook", "#!/bin/sh\n");
  std::string ctk = d.write("bin/nvidia-ctk", "#!/bin/sh\n");
  ::chmod(bin.c_str(), 0755);
  ::chmod(ctk.c_str(), 0755);
  EXPECT_EQ(resolve_hook_binary("", "relative:" + d.path() + "/bin"), bin);
  EXPECT_EQ(resolve_hook_binary(bin, ""), bin);
  EXPECT_EQ(resolve_hook_binary("nvidia-ctk", d.path() + "/bin"), ctk);
}

TEST(GenerateHooks, MissingHookBinaryIsAnErrorNamingTheFlag) {
  // Never a silent /usr/bin fallback: a spec whose hooks are not there fails every container.
  auto r = resolve_hook_binary("/x/nvidia-cdi-hook", "");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("--nvidia-cdi-hook-path is set to /x/nvidia-cdi-hook"),
            std::string::npos)
      << r.error().message();
  r = resolve_hook_binary("no-such-nvct-program", "/nonexistent", kCtkPathSetting);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("no-such-nvct-program not found (nvidia-ctk.path "
                                     "(config.toml) is \"no-such-nvct-program\"): looked in "),
            std::string::npos)
      << r.error().message();
  EXPECT_NE(r.error().message().find("/nonexistent"), std::string::npos);
}

TEST(GenerateHooks, NonExecutableOnPathIsSkipped) {
  nvct::testing::TempDir d, e;
  d.write("bin/nvidia-cdi-hook", "not executable");
  std::string good = e.write("bin/nvidia-cdi-hook", "#!/bin/sh\n");
  ::chmod(good.c_str(), 0755);
  EXPECT_EQ(resolve_hook_binary("", d.path() + "/bin:" + e.path() + "/bin"), good);
}

}  // namespace
}  // namespace nvct::cdi
