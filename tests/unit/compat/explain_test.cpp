#include "nvct/compat/explain.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <fstream>
#include <sstream>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::compat {
namespace {

const std::string kExplainFixtures = std::string(NVCT_SOURCE_DIR) + "/tests/fixtures/cuda";

DriverFacts flags(const char* cuda, std::vector<const char*> archs) {
  DriverFacts d;
  d.version = "550.54.14";
  d.cuda_version = cuda;
  for (auto a : archs) {
    GpuFacts g;
    g.arch = a;
    d.gpus.push_back(g);
  }
  return d;
}

TEST(Explain, SingleFileVerdictsOfTheSpec) {
  ExplainOptions o;
  o.path = kExplainFixtures + "/multi";
  auto r = explain(o, flags("12.4", {"8.6", "10.0"}));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->kind, InputKind::file);
  ASSERT_EQ(r->files.size(), 1u);
  ASSERT_EQ(r->files[0].verdicts.size(), 2u);
  EXPECT_EQ(r->files[0].verdicts[0].verdict.message,
            "SASS sm_80 runs on sm_86 (same major, lower minor)");
  EXPECT_EQ(r->files[0].verdicts[1].verdict.verdict, Verdict::jit);
  EXPECT_EQ(r->exit_code, 0);
  o.strict = true;
  EXPECT_EQ(explain(o, flags("12.4", {"10.0"}))->exit_code, 1);
}

TEST(Explain, NoCodeExitsOne) {
  ExplainOptions o;
  o.path = kExplainFixtures + "/sm70-only";
  auto r = explain(o, flags("12.4", {"8.0"}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, 1);
  auto text = render_text(*r);
  EXPECT_NE(text.find("sm_80: no-code: no SASS or PTX for sm_80 (SASS sm_70 runs only on 7.x)"),
            std::string::npos)
      << text;
}

TEST(Explain, RootfsWithRuntimeAndSortedFiles) {
  nvct::testing::TempDir dir;
  dir.write("etc/os-release", "");
  dir.write("usr/local/cuda-12.4/lib64/libcudart.so.12.4.127", "");
  dir.write("usr/bin/tool", "#!/bin/sh\n");
  std::filesystem::create_directories(dir / "usr/lib/x86_64-linux-gnu");
  std::filesystem::copy_file(kExplainFixtures + "/sm70-only", dir / "usr/lib/x86_64-linux-gnu/libb.so");
  std::filesystem::copy_file(kExplainFixtures + "/multi", dir / "usr/lib/x86_64-linux-gnu/liba.so");
  ::mkfifo((dir / "usr/bin/fifo").c_str(), 0600);  // skipped, never opened
  ExplainOptions o;
  o.path = dir.path();
  o.env = ImageEnv::from_entries({"NVIDIA_REQUIRE_CUDA=cuda>=12.2"});
  auto d = flags("12.2", {"8.0"});
  d.version = "535.104.05";
  auto r = explain(o, d);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->kind, InputKind::rootfs);
  ASSERT_TRUE(r->runtime);
  EXPECT_EQ(r->runtime->verdict, Verdict::minor_compat);
  EXPECT_EQ(r->require_cuda_satisfied, true);
  ASSERT_EQ(r->files.size(), 2u);
  EXPECT_EQ(r->files[0].code.path, "usr/lib/x86_64-linux-gnu/liba.so");
  EXPECT_EQ(r->files[1].code.path, "usr/lib/x86_64-linux-gnu/libb.so");
  EXPECT_EQ(r->exit_code, 1);  // libb.so has no code for sm_80
  auto text = render_text(*r);
  EXPECT_NE(text.find("runtime: minor-compat: needs CUDA 12.4 (driver >= 550.54.14); driver "
                      "535.104.05 (CUDA 12.2) runs it by minor version compatibility with a "
                      "limited feature set"),
            std::string::npos)
      << text;
  EXPECT_EQ(text, render_text(*explain(o, d)));  // byte-identical for equal input
  auto json = nlohmann::json::parse(render_json(*r));
  EXPECT_EQ(json["schemaVersion"], 1);
  EXPECT_EQ(json["input"]["kind"], "rootfs");
  EXPECT_EQ(json["runtime"]["verdict"], "minor-compat");
  EXPECT_EQ(json["image"]["cudaRuntime"]["version"], "12.4");
  EXPECT_EQ(json["files"][1]["verdicts"][0]["verdict"], "no-code");
  EXPECT_EQ(json["summary"]["withGpuCode"], 2);
  EXPECT_EQ(json["exitCode"], 1);
}

TEST(Explain, MissingInputIsAnError) {
  ExplainOptions o;
  o.path = "/nonexistent/nvct-explain";
  auto r = explain(o, DriverFacts{});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("/nonexistent/nvct-explain"), std::string::npos);
}

}  // namespace
}  // namespace nvct::compat
