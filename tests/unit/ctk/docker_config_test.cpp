// One test per row of spec/ctk.md §5.4 (D1-D15), the §5.3 example and the bad-input rules of §2.
#include "nvct/ctk/docker_config.hpp"

#include <gtest/gtest.h>

#include "nvct/base/file.hpp"

namespace nvct::ctk {
namespace {

using nlohmann::ordered_json;

DockerConfig parsed_docker(std::string_view text) {
  auto r = DockerConfig::parse(text, "daemon.json");
  EXPECT_TRUE(r) << (r ? "" : r.error().message());
  return r ? *r : *DockerConfig::parse("", "daemon.json");
}

ordered_json json(std::string_view text) { return ordered_json::parse(text); }

TEST(DockerConfig, D1_AddsRuntimesToEmptyConfig) {
  auto c = parsed_docker("{}");
  ASSERT_TRUE(c.add_runtime("runtime1", "/test/runtime/dir/runtime1", false));
  ASSERT_TRUE(c.add_runtime("runtime2", "/test/runtime/dir/runtime2", false));
  EXPECT_EQ(c.document(),
            json(R"({"runtimes":{"runtime1":{"args":[],"path":"/test/runtime/dir/runtime1"},
                                 "runtime2":{"args":[],"path":"/test/runtime/dir/runtime2"}}})"));
}

TEST(DockerConfig, D2_ReplacesPathOfExistingRuntime) {
  auto c = parsed_docker(R"({"runtimes":{"runtime1":{"path":"runtime1","args":[]}}})");
  ASSERT_TRUE(c.add_runtime("runtime1", "/test/runtime/dir/runtime1", false));
  ASSERT_TRUE(c.add_runtime("runtime2", "/test/runtime/dir/runtime2", false));
  EXPECT_EQ(c.document(),
            json(R"({"runtimes":{"runtime1":{"args":[],"path":"/test/runtime/dir/runtime1"},
                                 "runtime2":{"args":[],"path":"/test/runtime/dir/runtime2"}}})"));
}

TEST(DockerConfig, D3_KeepsOtherRuntimes) {
  auto c = parsed_docker(R"({"runtimes":{"not-nvidia":{"path":"some-other-path","args":[]}}})");
  ASSERT_TRUE(c.add_runtime("runtime1", "/test/runtime/dir/runtime1", false));
  EXPECT_EQ(c.document(), json(R"({"runtimes":{"not-nvidia":{"path":"some-other-path","args":[]},
                                 "runtime1":{"args":[],"path":"/test/runtime/dir/runtime1"}}})"));
}

constexpr std::string_view kD4 =
    R"({"exec-opts":["native.cgroupdriver=systemd"],"log-driver":"json-file",)"
    R"("log-opts":{"max-size":"100m"},"storage-driver":"overlay2"})";

TEST(DockerConfig, D4_KeepsUnrelatedKeys) {
  auto c = parsed_docker(kD4);
  ASSERT_TRUE(c.add_runtime("runtime1", "/test/runtime/dir/runtime1", false));
  auto expected = json(kD4);
  expected["runtimes"] = json(R"({"runtime1":{"args":[],"path":"/test/runtime/dir/runtime1"}})");
  EXPECT_EQ(c.document(), expected);
}

TEST(DockerConfig, D5_NoRuntimeAddedLeavesConfigUnchanged) {
  auto c = parsed_docker(kD4);
  EXPECT_EQ(c.document(), json(kD4));
  EXPECT_EQ(c.serialize(), parsed_docker(c.serialize()).serialize());
}

TEST(DockerConfig, D6_NotDefaultAddsNoDefaultRuntime) {
  auto c = parsed_docker("{}");
  ASSERT_TRUE(c.add_runtime("NAME", "/p", false));
  EXPECT_FALSE(c.document().contains("default-runtime"));
}

TEST(DockerConfig, D7_SetAsDefaultSetsDefaultRuntime) {
  auto c = parsed_docker("{}");
  ASSERT_TRUE(c.add_runtime("NAME", "/p", true));
  EXPECT_EQ(c.document()["default-runtime"], "NAME");
}

TEST(DockerConfig, D8_NotDefaultKeepsExistingDefault) {
  auto c = parsed_docker(R"({"default-runtime":"ALREADY_SET"})");
  ASSERT_TRUE(c.add_runtime("NAME", "/p", false));
  EXPECT_EQ(c.document()["default-runtime"], "ALREADY_SET");
}

TEST(DockerConfig, D9_SetAsDefaultReplacesExistingDefault) {
  auto c = parsed_docker(R"({"default-runtime":"ALREADY_SET"})");
  ASSERT_TRUE(c.add_runtime("NAME", "/p", true));
  EXPECT_EQ(c.document()["default-runtime"], "NAME");
}

TEST(DockerConfig, D10_MissingFileWithCdiEnabled) {
  auto c = parsed_docker("");
  ASSERT_TRUE(c.add_runtime("nvidia", "nvidia-container-runtime", false));
  ASSERT_TRUE(c.enable_cdi());
  EXPECT_EQ(c.document(),
            json(R"({"runtimes":{"nvidia":{"args":[],"path":"nvidia-container-runtime"}},
                                   "features":{"cdi":true}})"));
  EXPECT_EQ(c.serialize(),
            "{\n    \"features\": {\n        \"cdi\": true\n    },\n    \"runtimes\": {\n"
            "        \"nvidia\": {\n            \"args\": [],\n"
            "            \"path\": \"nvidia-container-runtime\"\n        }\n    }\n}");
}

TEST(DockerConfig, D11_RemovingLastRuntimeDeletesRuntimesKey) {
  auto c =
      parsed_docker(R"({"runtimes":{"nvidia":{"args":[],"path":"/usr/bin/nvidia-container-runtime"}}})");
  ASSERT_TRUE(c.remove_runtime("nvidia"));
  EXPECT_EQ(c.document(), json("{}"));
}

TEST(DockerConfig, D12_RemovingAllThreeRuntimes) {
  auto c = parsed_docker(R"({"runtimes":{"nvidia":{"path":"a"},"nvidia-cdi":{"path":"b"},
                                  "nvidia-legacy":{"path":"c"}}})");
  for (const char* n : {"nvidia", "nvidia-cdi", "nvidia-legacy"}) ASSERT_TRUE(c.remove_runtime(n));
  EXPECT_EQ(c.document(), json("{}"));
}

TEST(DockerConfig, D13_RemovingTheDefaultRuntimeResetsDefaultToRunc) {
  auto c = parsed_docker(R"({"default-runtime":"nvidia","runtimes":{"nvidia":{"path":"a"}}})");
  ASSERT_TRUE(c.remove_runtime("nvidia"));
  EXPECT_EQ(c.document(), json(R"({"default-runtime":"runc"})"));
}

TEST(DockerConfig, D14_RemovingKeepsOtherDefault) {
  auto c = parsed_docker(R"({"default-runtime":"not-nvidia","runtimes":{"nvidia":{"path":"a"}}})");
  ASSERT_TRUE(c.remove_runtime("nvidia"));
  EXPECT_EQ(c.document(), json(R"({"default-runtime":"not-nvidia"})"));
}

TEST(DockerConfig, D15_RuntimePathOfNamedRuntimeOrEmpty) {
  auto c = parsed_docker(R"({"runtimes":{"nvidia":{"path":"nvidia-container-runtime","args":[]}}})");
  EXPECT_EQ(c.runtime_path("nvidia"), "nvidia-container-runtime");
  EXPECT_EQ(c.runtime_path("other"), "");
}

TEST(DockerConfig, RuntimePathOfTheShimV2FormIsItsBinaryName) {
  auto c = parsed_docker(R"({"runtimes":{"nvidia":{"runtimeType":"io.containerd.runc.v2",
                     "options":{"BinaryName":"/usr/bin/nvidia-container-runtime"}},
                     "bare":{}}})");
  EXPECT_EQ(c.runtime_path("nvidia"), "/usr/bin/nvidia-container-runtime");
  EXPECT_EQ(c.runtime_path("bare"), "");
  EXPECT_TRUE(c.has_runtime("bare"));
  EXPECT_FALSE(c.has_runtime("other"));
}

TEST(DockerConfig, RemovingKeepsOtherKeysInTheirOrder) {
  auto c = parsed_docker(R"({"log-driver":"local","runtimes":{"nvidia":{"path":"a"},"x":{"path":"b"}},
                     "a-key":[1,2]})");
  ASSERT_TRUE(c.remove_runtime("nvidia"));
  EXPECT_EQ(c.document().dump(),
            R"({"log-driver":"local","runtimes":{"x":{"path":"b"}},"a-key":[1,2]})");
}

TEST(DockerConfig, SpecExampleSetAsDefaultIsByteExact) {
  auto c = parsed_docker(R"({"log-driver":"json-file","runtimes":{"runc-x":{"path":"/x"}}})");
  ASSERT_TRUE(c.add_runtime("nvidia", "nvidia-container-runtime", true));
  auto golden = read_file(NVCT_SOURCE_DIR "/tests/data/ctk/docker_example_set_as_default.json");
  ASSERT_TRUE(golden) << golden.error().message();
  EXPECT_EQ(c.serialize(), *golden);
}

TEST(DockerConfig, CdiIsMergedIntoExistingFeatures) {
  auto c = parsed_docker(R"({"features":{"buildkit":true}})");
  ASSERT_TRUE(c.enable_cdi());
  EXPECT_EQ(c.document(), json(R"({"features":{"buildkit":true,"cdi":true}})"));
}

TEST(DockerConfig, ExistingRuntimeArgsAreKept) {
  auto c = parsed_docker(R"({"runtimes":{"nvidia":{"path":"old","runtimeArgs":["--debug"]}}})");
  ASSERT_TRUE(c.add_runtime("nvidia", "/usr/bin/nvidia-container-runtime", false));
  EXPECT_EQ(
      c.document()["runtimes"]["nvidia"],
      json(R"({"args":[],"path":"/usr/bin/nvidia-container-runtime","runtimeArgs":["--debug"]})"));
}

TEST(DockerConfig, WrongTypesAreErrors) {
  for (const char* text :
       {R"({"runtimes":[]})", R"({"runtimes":{"x":"y"}})", R"({"default-runtime":5})",
        R"({"features":true})", "[]", "\"s\"", "{\"a\":1,}", "\xEF\xBB\xBF{}", "{/*c*/}"}) {
    auto r = DockerConfig::parse(text, "daemon.json");
    EXPECT_FALSE(r) << text;
    if (!r) {
      EXPECT_EQ(r.error().message().rfind("daemon.json", 0), 0u) << r.error().message();
    }
  }
}

TEST(DockerConfig, UnknownKeysKeepTheirTypes) {
  auto c = parsed_docker(R"({"x":{"n":12345678901234567890,"f":1.5,"s":"<&>","l":[1,"a",null]}})");
  ASSERT_TRUE(c.add_runtime("nvidia", "p", false));
  // Key order is not part of the comparison: the output is sorted like the reference's.
  EXPECT_EQ(nlohmann::json::parse(parsed_docker(c.serialize()).document()["x"].dump()),
            nlohmann::json::parse(c.document()["x"].dump()));
  EXPECT_EQ(c.document()["x"]["n"].get<std::uint64_t>(), 12345678901234567890ull);
}

}  // namespace
}  // namespace nvct::ctk
