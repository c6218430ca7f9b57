#include "nvct/runtime/spec_modifier.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::runtime {
namespace {

using nlohmann::ordered_json;
using nvct::testing::TempDir;

const std::string kModifierHook = "/usr/bin/nvidia-container-runtime-hook";

ModifierOptions legacy() {
  ModifierOptions options;
  options.mode = Mode::kLegacy;
  options.hook_path = kModifierHook;
  return options;
}

std::string spec_with_env(const std::string& env_json) {
  return R"({"ociVersion":"1.0.2","process":{"args":["sh"],"env":)" + env_json +
         R"(,"cwd":"/"},"root":{"path":"rootfs"}})";
}

std::size_t prestart_count(const ordered_json& spec) {
  if (!spec.contains("hooks") || !spec["hooks"].contains("prestart")) return 0;
  return spec["hooks"]["prestart"].size();
}

TEST(ApplyModifiers, NoGpuRequestChangesNothing) {
  auto spec = ordered_json::parse(spec_with_env(R"(["PATH=/bin"])"));
  auto before = spec;
  auto changed = apply_modifiers(spec, request::Request{}, legacy());
  ASSERT_TRUE(changed);
  EXPECT_FALSE(*changed);
  EXPECT_EQ(spec, before);
}

TEST(ApplyModifiers, GpuRequestInLegacyModeAddsOneHook) {
  auto spec = ordered_json::parse(spec_with_env(R"(["NVIDIA_VISIBLE_DEVICES=all"])"));
  request::Request req;
  req.devices = std::vector<std::string>{"all"};
  auto changed = apply_modifiers(spec, req, legacy());
  ASSERT_TRUE(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(prestart_count(spec), 1u);
}

TEST(ApplyModifiers, NoneRequestIsStillAGpuContainerAndGetsTheHook) {
  auto spec = ordered_json::parse(spec_with_env(R"(["NVIDIA_VISIBLE_DEVICES=none"])"));
  request::Request req;
  req.devices = std::vector<std::string>{""};
  ASSERT_TRUE(apply_modifiers(spec, req, legacy()));
  EXPECT_EQ(prestart_count(spec), 1u);
}

class ModifyBundle : public ::testing::Test {
 protected:
  std::string write_spec(const std::string& text) {
    auto path = dir_.write("config.json", text);
    ::chmod(path.c_str(), 0600);
    return path;
  }
  TempDir dir_;
  config::Config cfg_;
};

TEST_F(ModifyBundle, NoGpuLeavesConfigJsonByteIdentical) {
  // Unusual spacing and key order: any parse-and-rewrite would change the bytes.
  std::string text =
      "{ \"root\": {\"path\":\"rootfs\"},\n  \"ociVersion\" : \"1.0.2\",\n"
      "  \"process\": {\"env\": [\"PATH=/bin\"], \"args\":[\"sh\"], \"cwd\":\"/\"}}\n";
  write_spec(text);
  struct stat before {};
  ASSERT_EQ(::stat((dir_ / "config.json").c_str(), &before), 0);
  auto outcome = modify_bundle(dir_.path(), cfg_, legacy());
  ASSERT_TRUE(outcome) << outcome.error().message();
  EXPECT_EQ(*outcome, BundleOutcome::kUnchanged);
  EXPECT_EQ(dir_.read("config.json"), text);
  struct stat after {};
  ASSERT_EQ(::stat((dir_ / "config.json").c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino) << "file was replaced";
}

TEST_F(ModifyBundle, VoidIsNotAGpuContainer) {
  std::string text = spec_with_env(R"(["NVIDIA_VISIBLE_DEVICES=void"])");
  write_spec(text);
  auto outcome = modify_bundle(dir_.path(), cfg_, legacy());
  ASSERT_TRUE(outcome) << outcome.error().message();
  EXPECT_EQ(*outcome, BundleOutcome::kUnchanged);
  EXPECT_EQ(dir_.read("config.json"), text);
}

TEST_F(ModifyBundle, GpuRequestRewritesWithOneHookKeepingModeAndFields) {
  write_spec(R"({"ociVersion":"1.0.2","x-vendor":{"keep":true},)"
             R"("process":{"env":["NVIDIA_VISIBLE_DEVICES=all"],"rlimits":)"
             R"([{"type":"RLIMIT_NOFILE","hard":18446744073709551615,"soft":1024}]},)"
             R"("root":{"path":"rootfs"}})");
  auto outcome = modify_bundle(dir_.path(), cfg_, legacy());
  ASSERT_TRUE(outcome) << outcome.error().message();
  EXPECT_EQ(*outcome, BundleOutcome::kRewritten);
  auto text = dir_.read("config.json");
  auto spec = ordered_json::parse(text);
  EXPECT_EQ(prestart_count(spec), 1u);
  EXPECT_EQ(spec["hooks"]["prestart"][0]["path"], kModifierHook);
  EXPECT_EQ(spec["x-vendor"]["keep"], true);
  EXPECT_NE(text.find("18446744073709551615"), std::string::npos);
  EXPECT_EQ(spec.begin().key(), "ociVersion");
  struct stat st {};
  ASSERT_EQ(::stat((dir_ / "config.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_F(ModifyBundle, RunningTwiceOnTheSameBundleGivesExactlyOneHook) {
  write_spec(spec_with_env(R"(["NVIDIA_VISIBLE_DEVICES=0"])"));
  auto first = modify_bundle(dir_.path(), cfg_, legacy());
  ASSERT_TRUE(first) << first.error().message();
  auto after_first = dir_.read("config.json");
  auto second = modify_bundle(dir_.path(), cfg_, legacy());
  ASSERT_TRUE(second) << second.error().message();
  EXPECT_EQ(*second, BundleOutcome::kUnchanged);
  EXPECT_EQ(dir_.read("config.json"), after_first);
  EXPECT_EQ(prestart_count(ordered_json::parse(after_first)), 1u);
}

TEST_F(ModifyBundle, MalformedSpecFailsAndLeavesTheFileUntouched) {
  std::string text = R"({"ociVersion":"1.0.2","process":{"env":["NVIDIA_VISIBLE_DEVICES=all"])";
  write_spec(text);
  auto outcome = modify_bundle(dir_.path(), cfg_, legacy());
  ASSERT_FALSE(outcome);
  EXPECT_NE(outcome.error().message().find("config.json"), std::string::npos)
      << outcome.error().message();
  EXPECT_EQ(dir_.read("config.json"), text);
}

TEST_F(ModifyBundle, TrailingGarbageIsMalformed) {
  std::string text = spec_with_env(R"(["NVIDIA_VISIBLE_DEVICES=all"])") + "garbage";
  write_spec(text);
  EXPECT_FALSE(modify_bundle(dir_.path(), cfg_, legacy()));
  EXPECT_EQ(dir_.read("config.json"), text);
}

TEST_F(ModifyBundle, MissingConfigJsonIsAnError) {
  auto outcome = modify_bundle(dir_.path(), cfg_, legacy());
  ASSERT_FALSE(outcome);
  EXPECT_NE(outcome.error().message().find("config.json"), std::string::npos);
}

TEST_F(ModifyBundle, ExistingDockerGpusHookIsNotDuplicated) {
  std::string text =
      R"({"ociVersion":"1.0.2","process":{"env":["NVIDIA_VISIBLE_DEVICES=all"]},)"
      R"("root":{"path":"rootfs"},"hooks":{"prestart":[{"path":)"
      R"("/usr/bin/nvidia-container-runtime-hook",)"
      R"("args":["nvidia-container-runtime-hook","prestart"]}]}})";
  write_spec(text);
  auto outcome = modify_bundle(dir_.path(), cfg_, legacy());
  ASSERT_TRUE(outcome) << outcome.error().message();
  EXPECT_EQ(*outcome, BundleOutcome::kUnchanged);
  EXPECT_EQ(dir_.read("config.json"), text);
}

}  // namespace
}  // namespace nvct::runtime
