#include "nvct/runtime/legacy_hook.hpp"

#include <gtest/gtest.h>

#include <map>

#include "fake_probe.hpp"

namespace nvct::runtime {
namespace {

using nlohmann::ordered_json;
using testing::FakeProbe;

const std::string kHook = "/usr/bin/nvidia-container-runtime-hook";

ordered_json expected_hook(const std::string& path = kHook) {
  return ordered_json::parse(
      R"({"path":")" + path +
      R"(","args":["nvidia-container-runtime-hook","prestart"],)"
      R"("env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],)"
      R"("timeout":60})");
}

TEST(LegacyHook, ExtraEnvFollowsPath) {
  ordered_json spec = ordered_json::object();
  ASSERT_TRUE(add_legacy_prestart_hook(spec, kHook, "",
                                       {"NVCT_DRIVER_FACTS_CACHE_DIR=/var/tmp/facts"}));
  ordered_json want = expected_hook();
  want["env"].push_back("NVCT_DRIVER_FACTS_CACHE_DIR=/var/tmp/facts");
  EXPECT_EQ(spec["hooks"]["prestart"], ordered_json::array({want}));
}

TEST(LegacyHook, HookEnvFromForwardsOnlyTheFactsCacheDirectory) {
  auto env = [](std::map<std::string, std::string> vars) {
    return [vars](const char* n) -> const char* {
      auto it = vars.find(n);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  };
  EXPECT_EQ(hook_env_from(env({})), std::vector<std::string>{});
  EXPECT_EQ(hook_env_from(env({{"NVCT_DRIVER_FACTS_CACHE_DIR", "/x"},
                               {"LD_PRELOAD", "/evil.so"},
                               {"NVIDIA_CTK_CONFIG_FILE_PATH", "/c"}})),
            std::vector<std::string>{"NVCT_DRIVER_FACTS_CACHE_DIR=/x"});
  // Empty turns the cache off: it is handed on as empty, not dropped.
  EXPECT_EQ(hook_env_from(env({{"NVCT_DRIVER_FACTS_CACHE_DIR", ""}})),
            std::vector<std::string>{"NVCT_DRIVER_FACTS_CACHE_DIR="});
}

TEST(LegacyHook, EmptySpecGetsPrestartHook) {
  ordered_json spec = ordered_json::object();
  auto changed = add_legacy_prestart_hook(spec, kHook);
  ASSERT_TRUE(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(spec["hooks"]["prestart"], ordered_json::array({expected_hook()}));
}

TEST(LegacyHook, EmptyHooksObjectGetsPrestartHook) {
  auto spec = ordered_json::parse(R"({"hooks":{}})");
  ASSERT_TRUE(add_legacy_prestart_hook(spec, kHook));
  EXPECT_EQ(spec["hooks"]["prestart"], ordered_json::array({expected_hook()}));
}

TEST(LegacyHook, NullHooksAsWrittenByCtrGetsPrestartHook) {
  auto spec = ordered_json::parse(R"({"ociVersion":"1.0.2","hooks":null})");
  ASSERT_TRUE(add_legacy_prestart_hook(spec, kHook));
  EXPECT_EQ(spec["hooks"]["prestart"].size(), 1u);
  // hooks keeps its place in the key order.
  EXPECT_EQ(spec.begin().key(), "ociVersion");
  EXPECT_EQ(std::next(spec.begin()).key(), "hooks");
}

TEST(LegacyHook, NullPrestartListGetsPrestartHook) {
  auto spec = ordered_json::parse(R"({"hooks":{"prestart":null,"poststop":[]}})");
  ASSERT_TRUE(add_legacy_prestart_hook(spec, kHook));
  EXPECT_EQ(spec["hooks"]["prestart"], ordered_json::array({expected_hook()}));
  EXPECT_EQ(spec["hooks"].begin().key(), "prestart");
}

TEST(LegacyHook, ExistingNvidiaHookByBareNameMeansNoChange) {
  auto spec =
      ordered_json::parse(R"({"hooks":{"prestart":[{"path":"nvidia-container-runtime-hook"}]}})");
  auto before = spec;
  auto changed = add_legacy_prestart_hook(spec, kHook);
  ASSERT_TRUE(changed);
  EXPECT_FALSE(*changed);
  EXPECT_EQ(spec, before);
}

TEST(LegacyHook, ExistingNvidiaContainerToolkitHookMeansNoChange) {
  // Docker < 29.2 with --gpus inserts this one (hook.md §9).
  auto spec =
      ordered_json::parse(R"({"hooks":{"prestart":[{"path":"/usr/bin/nvidia-container-toolkit",)"
                          R"("args":["x","prestart"]}]}})");
  auto changed = add_legacy_prestart_hook(spec, kHook);
  ASSERT_TRUE(changed);
  EXPECT_FALSE(*changed);
  EXPECT_EQ(spec["hooks"]["prestart"].size(), 1u);
}

TEST(LegacyHook, OtherHookIsKeptAndOursAppended) {
  auto spec = ordered_json::parse(R"({"hooks":{"prestart":[{"path":"some-hook"}]}})");
  ASSERT_TRUE(add_legacy_prestart_hook(spec, kHook));
  ASSERT_EQ(spec["hooks"]["prestart"].size(), 2u);
  EXPECT_EQ(spec["hooks"]["prestart"][0], ordered_json::parse(R"({"path":"some-hook"})"));
  EXPECT_EQ(spec["hooks"]["prestart"][1], expected_hook());
}

TEST(LegacyHook, OtherStagesAreUntouched) {
  auto spec = ordered_json::parse(
      R"({"hooks":{"poststop":[{"path":"/bin/true"}],"createContainer":[{"path":"/bin/x"}]}})");
  ASSERT_TRUE(add_legacy_prestart_hook(spec, kHook));
  EXPECT_EQ(spec["hooks"]["poststop"].size(), 1u);
  EXPECT_EQ(spec["hooks"]["createContainer"].size(), 1u);
  EXPECT_EQ(spec["hooks"]["prestart"].size(), 1u);
}

TEST(LegacyHook, RunningTwiceGivesExactlyOneHook) {
  auto spec = ordered_json::parse(R"({"ociVersion":"1.0.2"})");
  auto first = add_legacy_prestart_hook(spec, kHook);
  auto second = add_legacy_prestart_hook(spec, kHook);
  ASSERT_TRUE(first && second);
  EXPECT_TRUE(*first);
  EXPECT_FALSE(*second);
  EXPECT_EQ(spec["hooks"]["prestart"].size(), 1u);
}

TEST(LegacyHook, HookArgsZeroIsTheBasenameOfACustomPath) {
  auto hook = make_prestart_hook("/opt/nvct/bin/nvidia-container-runtime-hook");
  EXPECT_EQ(hook["path"], "/opt/nvct/bin/nvidia-container-runtime-hook");
  EXPECT_EQ(hook["args"][0], "nvidia-container-runtime-hook");
  EXPECT_EQ(hook["args"][1], "prestart");
}

TEST(LegacyHook, HookCarriesExplicitEnvAndTimeout) {
  auto hook = make_prestart_hook(kHook);
  ASSERT_TRUE(hook["env"].is_array());
  EXPECT_EQ(hook["env"].size(), 1u);
  EXPECT_EQ(hook["timeout"], 60);
}

TEST(LegacyHook, HooksThatIsNotAnObjectIsAnError) {
  auto spec = ordered_json::parse(R"({"hooks":[]})");
  auto r = add_legacy_prestart_hook(spec, kHook);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("\"hooks\""), std::string::npos);
}

TEST(LegacyHook, PrestartThatIsNotAnArrayIsAnError) {
  auto spec = ordered_json::parse(R"({"hooks":{"prestart":{}}})");
  auto r = add_legacy_prestart_hook(spec, kHook);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("hooks.prestart"), std::string::npos);
}

TEST(LegacyHook, UnknownFieldsAndKeyOrderSurvive) {
  auto text =
      std::string(R"({"zeta":1,"ociVersion":"1.0.2","process":{"rlimits":[{"type":"RLIMIT_NOFILE",)"
                  R"("hard":18446744073709551615,"soft":1024}]},"x-unknown":{"b":2,"a":1}})");
  auto spec = ordered_json::parse(text);
  ASSERT_TRUE(add_legacy_prestart_hook(spec, kHook));
  auto out = spec.dump();
  EXPECT_EQ(out.rfind(text.substr(0, text.size() - 1), 0), 0u) << out;
  EXPECT_NE(out.find("18446744073709551615"), std::string::npos);
}

TEST(HasNvidiaPrestartHook, OnlyPrestartStageCounts) {
  auto spec = ordered_json::parse(
      R"({"hooks":{"poststart":[{"path":"/usr/bin/nvidia-container-runtime-hook"}]}})");
  EXPECT_FALSE(has_nvidia_prestart_hook(spec));
}

TEST(ResolveHookPath, AbsolutePathIsUsedAsIsWhenItIsAnExecutable) {
  FakeProbe probe;
  probe.file("/opt/x/nvidia-container-runtime-hook");
  EXPECT_EQ(resolve_hook_path("/opt/x/nvidia-container-runtime-hook", {"/usr/bin"}, probe),
            "/opt/x/nvidia-container-runtime-hook");
}

TEST(ResolveHookPath, MissingAbsolutePathIsAnErrorNamingTheSetting) {
  FakeProbe probe;
  probe.file("/usr/bin/nvidia-container-runtime-hook");
  auto r = resolve_hook_path("/opt/x/nvidia-container-runtime-hook", {"/usr/bin"}, probe,
                             "nvidia-container-runtime-hook.path in /etc/x.toml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "nvidia-container-runtime-hook.path in /etc/x.toml is set to "
            "/opt/x/nvidia-container-runtime-hook, which is not an executable file; install the "
            "hook there or change nvidia-container-runtime-hook.path in /etc/x.toml");
}

TEST(ResolveHookPath, NonExecutableAbsolutePathIsAnError) {
  FakeProbe probe;
  probe.file("/opt/x/hook", false);
  EXPECT_FALSE(resolve_hook_path("/opt/x/hook", {}, probe));
}

TEST(ResolveHookPath, BareNameIsLookedUpInSearchDirsInOrder) {
  FakeProbe probe;
  probe.file("/usr/local/bin/nvidia-container-runtime-hook");
  probe.file("/usr/bin/nvidia-container-runtime-hook");
  EXPECT_EQ(
      resolve_hook_path("nvidia-container-runtime-hook", {"/usr/local/bin", "/usr/bin"}, probe),
      "/usr/local/bin/nvidia-container-runtime-hook");
}

TEST(ResolveHookPath, NotFoundIsAnErrorListingWhereItLooked) {
  FakeProbe probe;
  auto r = resolve_hook_path("nvidia-container-runtime-hook", {"/opt/nvct/bin", "/usr/bin"}, probe);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "the prestart hook nvidia-container-runtime-hook was not found "
            "(nvidia-container-runtime-hook.path is \"nvidia-container-runtime-hook\"): looked in "
            "/opt/nvct/bin, /usr/bin; install nvidia-container-toolkit or set "
            "nvidia-container-runtime-hook.path to the hook's absolute path");
}

TEST(ResolveHookPath, EmptyConfigValueUsesDefaultName) {
  FakeProbe probe;
  probe.file("/sbin/nvidia-container-runtime-hook");
  EXPECT_EQ(resolve_hook_path("", {"/sbin"}, probe), "/sbin/nvidia-container-runtime-hook");
}

TEST(LegacyHook, ConfigPathIsPassedToTheHookBeforeTheCommand) {
  auto hook = make_prestart_hook(kHook, "/etc/nvct/config.toml");
  EXPECT_EQ(hook["args"], ordered_json::array({"nvidia-container-runtime-hook", "-config",
                                               "/etc/nvct/config.toml", "prestart"}));
}

}  // namespace
}  // namespace nvct::runtime
