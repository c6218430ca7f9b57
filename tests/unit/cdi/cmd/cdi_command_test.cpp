// `nvidia-ctk cdi list` and `cdi transform root` (cdi.md §7).
#include "cdi_command.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "nvct/base/log.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::cmd::nvidia_ctk {
namespace {

const char* kSpec =
    "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: \"0\"\n  containerEdits:\n"
    "    deviceNodes:\n    - path: /dev/nvidia0\n      hostPath: /driver/dev/nvidia0\n"
    "- name: all\n  containerEdits:\n    deviceNodes:\n    - path: /dev/nvidia0\n"
    "containerEdits:\n  mounts:\n  - hostPath: /driver/lib/libcuda.so.1\n"
    "    containerPath: /driver/lib/libcuda.so.1\n";

class CdiCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    sink_ = std::make_shared<nvct::testing::MemorySink>();
    log::set_sink(sink_);
    log::set_level(log::Level::kDebug);
  }
  void TearDown() override { log::set_sink(nullptr); }
  std::shared_ptr<nvct::testing::MemorySink> sink_;
};

TEST_F(CdiCommand, ListPrintsQualifiedNamesAndLogsTheCount) {
  nvct::testing::TempDir d;
  d.write("etc/nvidia.yaml", kSpec);
  d.write("run/bad.yaml", "cdiVersion: [\n");
  std::string out = run_cdi_list({d / "etc", d / "run"});
  EXPECT_EQ(out, "nvidia.com/gpu=0\nnvidia.com/gpu=all\n");
  EXPECT_TRUE(sink_->contains("Found 2 CDI devices"));
  bool warned = false;
  for (const auto& [level, line] : sink_->lines) {
    if (level == log::Level::kWarn && line.find("bad.yaml") != std::string::npos) warned = true;
  }
  EXPECT_TRUE(warned);
}

TEST_F(CdiCommand, ListOfEmptyDirsPrintsNothing) {
  nvct::testing::TempDir d;
  EXPECT_EQ(run_cdi_list({d / "none"}), "");
  EXPECT_TRUE(sink_->contains("Found 0 CDI devices"));
}

TEST_F(CdiCommand, ListFlagDefaultsAndEnvironment) {
  nvct::testing::TempDir d;
  d.write("a/x.yaml", kSpec);
  CLI::App app;
  GlobalOptions globals;
  add_cdi_command(app, globals);
  CLI::App* list = app.get_subcommand("cdi")->get_subcommand("list");
  EXPECT_EQ(list->get_option("--spec-dir")->get_default_str(), "/etc/cdi,/var/run/cdi");
  EXPECT_EQ(list->get_option("--spec-dir")->get_envname(), "NVIDIA_CTK_CDI_SPEC_DIRS");
}

TEST_F(CdiCommand, TransformRootFromStdinToYaml) {
  TransformRootOptions o;
  o.from = "/driver";
  o.to = "/host";
  auto out = run_cdi_transform_root(o, kSpec);
  ASSERT_TRUE(out) << out.error().message();
  EXPECT_NE(out->find("hostPath: /host/dev/nvidia0"), std::string::npos) << *out;
  EXPECT_NE(out->find("hostPath: /host/lib/libcuda.so.1"), std::string::npos) << *out;
  EXPECT_NE(out->find("containerPath: /driver/lib/libcuda.so.1"), std::string::npos) << *out;
  EXPECT_EQ(out->rfind("---\n", 0), 0u);
}

TEST_F(CdiCommand, TransformRootContainerSideFromFileToJson) {
  nvct::testing::TempDir d;
  TransformRootOptions o;
  o.from = "/driver";
  o.to = "/ctr";
  o.relative_to = "container";
  o.input = d.write("in.yaml", kSpec);
  o.output = d / "out.json";
  auto out = run_cdi_transform_root(o, "");
  ASSERT_TRUE(out) << out.error().message();
  EXPECT_EQ(out->front(), '{');
  EXPECT_NE(out->find(R"("containerPath":"/ctr/lib/libcuda.so.1")"), std::string::npos) << *out;
  EXPECT_NE(out->find(R"("hostPath":"/driver/lib/libcuda.so.1")"), std::string::npos) << *out;
}

TEST_F(CdiCommand, TransformRootRejectsBadRelativeToAndBadInput) {
  TransformRootOptions o;
  o.relative_to = "guest";
  EXPECT_FALSE(run_cdi_transform_root(o, kSpec));
  TransformRootOptions bad;
  EXPECT_FALSE(run_cdi_transform_root(bad, "cdiVersion: [\n"));
  TransformRootOptions missing;
  missing.input = "/nonexistent/spec.yaml";
  EXPECT_FALSE(run_cdi_transform_root(missing, ""));
}

}  // namespace
}  // namespace nvct::cmd::nvidia_ctk
