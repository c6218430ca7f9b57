// `runtime configure --remove` for containerd (spec/packaging.md §4.7): the cleanup rows C11-C13 of
// spec/ctk.md §6.4 as configure-then-remove lifecycles, in-place files of versions 1-3, drop-ins
// with foreign runtimes, dry runs and the main file's safety.
#include "nvct/ctk/runtime_remove.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/ctk/containerd_config.hpp"
#include "nvct/ctk/toml_text.hpp"
#include "nvct/testing/temp_dir.hpp"
#include "runtime_remove_fixture.hpp"

namespace nvct::ctk {
namespace {

using nvct::testing::MemorySink;
using nvct::testing::TempDir;

// ---- containerd (§6.4 C11-C13) ----

TEST_F(RuntimeRemove, ContainerdC11_CleanupDeletesTheDropInAndKeepsTheImports) {
  auto config = dir_ / "config.toml";
  auto drop_in = dir_ / "conf.d/99-nvidia.toml";
  configure_three(containerd_options(config, drop_in));
  std::string top = dir_.read("config.toml");
  ASSERT_EQ(top, "imports = [\"" + dir_.path() + "/conf.d/*.toml\"]\nversion = 2\n");
  auto before = identity(config);
  auto r = remove(containerd_options(config, drop_in));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FALSE(std::filesystem::exists(drop_in));
  // Not even the drop-in's lock file is left in the imported directory.
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "conf.d"));
  EXPECT_EQ(dir_.read("config.toml"), top);
  EXPECT_EQ(identity(config), before);
  EXPECT_TRUE(logged(Level::kInfo, "Removed " + drop_in));
  EXPECT_TRUE(logged(Level::kInfo,
                     "It is recommended that containerd daemon be restarted: "
                     "systemctl restart containerd"));
  // A second run finds nothing and creates nothing.
  sink_->lines.clear();
  ASSERT_TRUE(remove(containerd_options(config, drop_in)));
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "conf.d"));
  EXPECT_EQ(identity(config), before);
  EXPECT_TRUE(logged(Level::kInfo, "Nothing to remove: " + drop_in + " does not exist"));
  EXPECT_FALSE(logged(Level::kInfo, "It is recommended"));
}

constexpr std::string_view kRemoveC12Top = R"(version = 2

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]

    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "runc"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
            BinaryName = "/usr/bin/runc"
)";

TEST_F(RuntimeRemove, ContainerdC12_CleanupLeavesTheReserialisedTopLevelWithItsImports) {
  auto config = dir_.write("config.toml", kRemoveC12Top);
  auto drop_in = dir_ / "conf.d/99-nvidia.toml";
  auto o = containerd_options(config, drop_in);
  o.enable_cdi = true;
  o.set_as_default = true;
  configure_three(o);
  std::string top = dir_.read("config.toml");
  ASSERT_EQ(top, "imports = [\"" + dir_.path() + "/conf.d/*.toml\"]\n" + std::string(kRemoveC12Top));
  ASSERT_TRUE(remove(containerd_options(config, drop_in)));
  EXPECT_FALSE(std::filesystem::exists(drop_in));
  EXPECT_EQ(dir_.read("config.toml"), top);
}

constexpr std::string_view kC13 = R"([plugins.cri.containerd]
default_runtime_name = "runc"
[plugins.cri.containerd.runtimes.runc]
runtime_type = "io.containerd.runtime.v1.linux"
[plugins.cri.containerd.runtimes.runc.options]
Runtime = "/usr/bin/runc"
)";

TEST_F(RuntimeRemove, ContainerdC13_Version1CleanupKeepsEnableCdiAndRunc) {
  auto config = dir_.write("config.toml", kC13);
  auto drop_in = dir_ / "conf.d/99-nvidia.toml";
  auto o = containerd_options(config, drop_in);
  o.enable_cdi = true;
  configure_three(o);
  ASSERT_FALSE(std::filesystem::exists(drop_in));
  auto r = remove(containerd_options(config, drop_in));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(logged(Level::kInfo,
                     "config version 1 has no imports; removing from " + config + " in place"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "conf.d"));
  // What is left is the input plus enable_cdi and the version configure wrote, in the writer's
  // layout.
  auto expected = *parse_toml(kC13, "expected");
  expected["plugins"]["cri"]["containerd"].as_table()->insert_or_assign("enable_cdi", true);
  expected.insert_or_assign("version", int64_t{1});
  EXPECT_EQ(dir_.read("config.toml"), write_toml(expected));
}

TEST_F(RuntimeRemove, ContainerdInPlaceDefaultBecomesRuncAndOtherSettingsStay) {
  std::string main_text = R"(version = 2
oom_score = -999
[plugins."io.containerd.grpc.v1.cri"]
sandbox_image = "pause:3.9"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
runtime_type = "io.containerd.runc.v2"
)";
  auto config = dir_.write("config.toml", main_text);
  auto o = containerd_options(config, "");
  o.set_as_default = true;
  o.enable_cdi = true;
  configure_three(o);
  ASSERT_TRUE(remove(containerd_options(config, "")));
  auto edited = ContainerdConfig::parse(dir_.read("config.toml"), "config.toml");
  ASSERT_TRUE(edited);
  for (const char* name : {"nvidia", "nvidia-cdi", "nvidia-legacy"})
    EXPECT_FALSE(edited->has_runtime(name)) << name;
  EXPECT_TRUE(edited->has_runtime("runc"));
  auto t = edited->tree();
  const auto& cri = t["plugins"]["io.containerd.grpc.v1.cri"];
  EXPECT_EQ(cri["containerd"]["default_runtime_name"].value_or(std::string()), "runc");
  EXPECT_EQ(cri["enable_cdi"].value_or(false), true);
  EXPECT_EQ(cri["sandbox_image"].value_or(std::string()), "pause:3.9");
  EXPECT_EQ(t["oom_score"].value_or(int64_t{0}), -999);
}

TEST_F(RuntimeRemove, ContainerdVersion3InPlace) {
  auto config = dir_.write("config.toml", "version = 3\n");
  configure_three(containerd_options(config, ""));
  ASSERT_TRUE(remove(containerd_options(config, "")));
  EXPECT_EQ(dir_.read("config.toml"), "");  // kept, never deleted
  EXPECT_TRUE(std::filesystem::exists(config));
}

TEST_F(RuntimeRemove, ContainerdDropInWithAForeignRuntimeIsRewrittenNotDeleted) {
  auto config = dir_ / "config.toml";
  auto drop_in = dir_.write("conf.d/99-nvidia.toml", R"(version = 2
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
BinaryName = "/opt/other/runtime"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia-cdi.options]
BinaryName = "/usr/bin/nvidia-container-runtime.cdi"
)");
  ASSERT_TRUE(remove(containerd_options(config, drop_in)));
  auto left = ContainerdConfig::parse(dir_.read("conf.d/99-nvidia.toml"), "drop-in");
  ASSERT_TRUE(left);
  EXPECT_EQ(left->runtime_binary("nvidia"), "/opt/other/runtime");
  EXPECT_FALSE(left->has_runtime("nvidia-cdi"));
  EXPECT_TRUE(logged(Level::kWarn, "Keeping runtime nvidia in " + drop_in));
  EXPECT_FALSE(std::filesystem::exists(config));  // the main file is never created
}

TEST_F(RuntimeRemove, ContainerdDropInWithoutOurRuntimesIsLeftAlone) {
  std::string text = "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\nx = 1\n";
  auto drop_in = dir_.write("conf.d/99-nvidia.toml", text);
  auto before = identity(drop_in);
  ASSERT_TRUE(remove(containerd_options(dir_ / "config.toml", drop_in)));
  EXPECT_EQ(dir_.read("conf.d/99-nvidia.toml"), text);
  EXPECT_EQ(identity(drop_in), before);
}

TEST_F(RuntimeRemove, ContainerdDryRunNamesTheDropInAndKeepsIt) {
  auto config = dir_ / "config.toml";
  auto drop_in = dir_ / "conf.d/99-nvidia.toml";
  ASSERT_TRUE(configure(containerd_options(config, drop_in)));
  std::string before = dir_.read("conf.d/99-nvidia.toml");
  auto o = containerd_options(config, drop_in);
  o.dry_run = true;
  auto r = remove(o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, "Would remove " + drop_in + "\n");
  EXPECT_EQ(dir_.read("conf.d/99-nvidia.toml"), before);
}

TEST_F(RuntimeRemove, ContainerdNeverDeletesTheMainFileNamedAsTheDropIn) {
  auto config = dir_.write("config.toml", R"(version = 2
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
BinaryName = "/usr/bin/nvidia-container-runtime"
)");
  std::filesystem::create_symlink(config, dir_ / "link.toml");
  for (const std::string& drop_in : {config, dir_ / "link.toml"}) {
    auto r = remove(containerd_options(config, drop_in));
    ASSERT_FALSE(r) << drop_in;
    EXPECT_NE(r.error().message().find("refusing to delete it"), std::string::npos);
    EXPECT_TRUE(std::filesystem::exists(config));
  }
}

TEST_F(RuntimeRemove, ContainerdDropInModeNamesEntriesLeftInTheMainFile) {
  std::string main_text = R"(version = 2
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
BinaryName = "/usr/bin/nvidia-container-runtime"
)";
  auto config = dir_.write("config.toml", main_text);
  ASSERT_TRUE(remove(containerd_options(config, dir_ / "conf.d/99-nvidia.toml")));
  EXPECT_EQ(dir_.read("config.toml"), main_text);
  EXPECT_TRUE(logged(Level::kWarn, config + " also has runtime nvidia"));
  EXPECT_TRUE(logged(Level::kWarn, "--drop-in-config=\"\""));
}

TEST_F(RuntimeRemove, ContainerdBrokenMainFileDoesNotBlockTheDropIn) {
  auto config = dir_.write("config.toml", "version = 2\n[plugins\n");
  auto drop_in = dir_ / "conf.d/99-nvidia.toml";
  dir_.write("conf.d/99-nvidia.toml", R"(version = 2
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
BinaryName = "/usr/bin/nvidia-container-runtime"
)");
  ASSERT_TRUE(remove(containerd_options(config, drop_in)));
  EXPECT_FALSE(std::filesystem::exists(drop_in));
  EXPECT_EQ(dir_.read("config.toml"), "version = 2\n[plugins\n");
  // In place there is nothing to work on: an error, the file untouched.
  EXPECT_FALSE(remove(containerd_options(config, "")));
  EXPECT_EQ(dir_.read("config.toml"), "version = 2\n[plugins\n");
}

TEST_F(RuntimeRemove, ContainerdCommandSourceIsIgnored) {
  auto o = containerd_options(dir_ / "config.toml", dir_ / "conf.d/99-nvidia.toml");
  o.config_source = "command";
  ASSERT_TRUE(remove(o));  // remove() fails the test if a command ran
  EXPECT_TRUE(logged(Level::kWarn, "Ignoring --config-source=command with --remove"));
}

}  // namespace
}  // namespace nvct::ctk
