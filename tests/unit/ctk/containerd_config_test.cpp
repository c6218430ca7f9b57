// One test per row C1-C9 and C13/C14 (engine part) of spec/ctk.md §6.4, the §6.3 example, and the
// version rules of §6.1. The lifecycle rows C10-C12 and C15 are in runtime_configure_test.cpp.
#include "nvct/ctk/containerd_config.hpp"

#include <gtest/gtest.h>

#include "nvct/base/file.hpp"
#include "nvct/ctk/toml_text.hpp"

namespace nvct::ctk {
namespace {

ContainerdConfig parsed_containerd(std::string_view text) {
  auto r = ContainerdConfig::parse(text, "config.toml");
  EXPECT_TRUE(r) << (r ? "" : r.error().message());
  return r ? *r : *ContainerdConfig::parse("", "config.toml");
}

toml::table tree(std::string_view text) { return *parse_toml(text, "expected.toml"); }

constexpr std::string_view kC1 = R"(version = 2

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]

    [plugins."io.containerd.grpc.v1.cri".containerd]

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
          privileged_without_host_devices = false
          runtime_engine = ""
          runtime_root = ""
          runtime_type = "io.containerd.runc.v2"

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.test]
          privileged_without_host_devices = false
          runtime_engine = ""
          runtime_root = ""
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.test.options]
            BinaryName = "/usr/bin/test"
)";

TEST(ContainerdConfig, VersionRules) {
  EXPECT_EQ(parsed_containerd("").version(), 2);
  EXPECT_EQ(parsed_containerd("# only a comment\n").version(), 2);
  EXPECT_EQ(parsed_containerd("root = \"/var/lib/containerd\"\n").version(), 1);
  EXPECT_EQ(parsed_containerd("version = 2\n").version(), 2);
  EXPECT_EQ(parsed_containerd("version = 3\n").version(), 3);
  EXPECT_FALSE(ContainerdConfig::parse("version = \"2\"\n", "config.toml"));
  EXPECT_FALSE(ContainerdConfig::parse("version = 4\n", "config.toml"));
  EXPECT_EQ(containerd_cri_plugin(1), "cri");
  EXPECT_EQ(containerd_cri_plugin(2), "io.containerd.grpc.v1.cri");
  EXPECT_EQ(containerd_cri_plugin(3), "io.containerd.cri.v1.runtime");
}

TEST(ContainerdConfig, C1_EmptyConfigGetsVersion2AndStockRuntime) {
  auto c = parsed_containerd("");
  ASSERT_TRUE(c.add_runtime("test", "/usr/bin/test", false));
  EXPECT_EQ(c.serialize(), kC1);
}

TEST(ContainerdConfig, C2_SetAsDefaultSetsDefaultRuntimeName) {
  auto c = parsed_containerd("");
  ASSERT_TRUE(c.add_runtime("test", "/usr/bin/test", true));
  // runc was containerd's built-in default: its entry stays beside `test` (nvct's CRI rule), so
  // the `runc` handler still exists.
  std::string expected(kC1);
  expected.insert(
      expected.find("\n      [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes]"),
      "      default_runtime_name = \"test\"\n");
  EXPECT_EQ(c.serialize(), expected);
}

constexpr std::string_view kRuncV2 = R"(version = 2
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
privileged_without_host_devices = false
runtime_engine = ""
runtime_root = ""
runtime_type = ""
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
BinaryName = "/usr/bin/runc"
SystemdCgroup = true
)";

TEST(ContainerdConfig, C3_CopiesRuncOptionsAndFillsEmptyRuntimeType) {
  auto c = parsed_containerd(kRuncV2);
  ASSERT_TRUE(c.add_runtime("test", "/usr/bin/test", false));
  auto expected = tree(std::string(kRuncV2) + R"(
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.test]
privileged_without_host_devices = false
runtime_engine = ""
runtime_root = ""
runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.test.options]
BinaryName = "/usr/bin/test"
SystemdCgroup = true
)");
  EXPECT_EQ(write_toml(c.tree()), write_toml(expected));
}

TEST(ContainerdConfig, C4_CopiesEveryRuncField) {
  constexpr std::string_view runc = R"(version = 2
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
privileged_without_host_devices = true
runtime_engine = "engine"
runtime_root = "root"
runtime_type = "type"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
BinaryName = "/usr/bin/runc"
SystemdCgroup = true
)";
  auto c = parsed_containerd(runc);
  ASSERT_TRUE(c.add_runtime("test", "/usr/bin/test", false));
  auto expected = tree(std::string(runc) + R"(
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.test]
privileged_without_host_devices = true
runtime_engine = "engine"
runtime_root = "root"
runtime_type = "type"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.test.options]
BinaryName = "/usr/bin/test"
SystemdCgroup = true
)");
  EXPECT_EQ(write_toml(c.tree()), write_toml(expected));
}

TEST(ContainerdConfig, C5_DefaultRuntimeTakesPrecedenceOverRunc) {
  constexpr std::string_view base = R"(version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
default_runtime_name = "default"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.default]
privileged_without_host_devices = false
runtime_engine = "defaultengine"
runtime_root = "defaultroot"
runtime_type = "defaulttype"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.default.options]
BinaryName = "/usr/bin/default"
SystemdCgroup = false
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
BinaryName = "/usr/bin/runc"
SystemdCgroup = true
)";
  auto c = parsed_containerd(base);
  ASSERT_TRUE(c.add_runtime("test", "/usr/bin/test", false));
  auto expected = tree(std::string(base) + R"(
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.test]
privileged_without_host_devices = false
runtime_engine = "defaultengine"
runtime_root = "defaultroot"
runtime_type = "defaulttype"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.test.options]
BinaryName = "/usr/bin/test"
SystemdCgroup = false
)");
  EXPECT_EQ(write_toml(c.tree()), write_toml(expected));
}

TEST(ContainerdConfig, C6_Version3UsesTheCriRuntimePluginKey) {
  auto c = parsed_containerd("version = 3\n");
  ASSERT_TRUE(c.add_runtime("test", "/usr/bin/test", false));
  auto expected = tree(R"(version = 3
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.test]
privileged_without_host_devices = false
runtime_engine = ""
runtime_root = ""
runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.test.options]
BinaryName = "/usr/bin/test"
)");
  EXPECT_EQ(write_toml(c.tree()), write_toml(expected));
}

constexpr std::string_view kTestIsDefault = R"(version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
default_runtime_name = "test"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.test]
runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.test.options]
BinaryName = "/usr/bin/test"
)";

TEST(ContainerdConfig, C7_NotDefaultRemovesDefaultNamingTheRuntime) {
  auto c = parsed_containerd(kTestIsDefault);
  ASSERT_TRUE(c.add_runtime("test", "/usr/bin/test", false));
  auto expected = tree(kTestIsDefault);
  expected["plugins"]["io.containerd.grpc.v1.cri"]["containerd"].as_table()->erase(
      "default_runtime_name");
  // runc is the default again and the file has no runc entry: nvct writes containerd's own.
  const toml::table runc = tree(R"(privileged_without_host_devices = false
runtime_engine = ""
runtime_root = ""
runtime_type = "io.containerd.runc.v2"
)");
  expected["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"].as_table()->insert(
      "runc", runc);
  EXPECT_EQ(write_toml(c.tree()), write_toml(expected));
}

TEST(ContainerdConfig, C8_SetAsDefaultAgainIsUnchanged) {
  auto c = parsed_containerd(kTestIsDefault);
  ASSERT_TRUE(c.add_runtime("test", "/usr/bin/test", true));
  EXPECT_EQ(write_toml(c.tree()), write_toml(tree(kTestIsDefault)));
}

TEST(ContainerdConfig, C9_RuntimeBinaryOfNamedRuntimeOrEmpty) {
  auto c = parsed_containerd(R"(version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
default_runtime_name = "runc"
snapshotter = "overlayfs"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
BinaryName = "/usr/bin/runc"
)");
  EXPECT_EQ(c.runtime_binary("runc"), "/usr/bin/runc");
  EXPECT_EQ(c.runtime_binary("other"), "");
}

TEST(ContainerdConfig, SpecExampleDropInIsByteExact) {
  auto c = parsed_containerd("").drop_in_base();
  ASSERT_TRUE(c.add_runtime("nvidia", "/usr/bin/nvidia-container-runtime", false));
  auto golden = read_file(NVCT_SOURCE_DIR "/tests/data/ctk/containerd_example_v2_dropin.toml");
  ASSERT_TRUE(golden) << golden.error().message();
  EXPECT_EQ(c.serialize(), *golden);
}

TEST(ContainerdConfig, C13_Version1SetsRuntimeOptionAndCdiUnderContainerd) {
  constexpr std::string_view v1 = R"([plugins.cri.containerd]
default_runtime_name = "runc"
[plugins.cri.containerd.runtimes.runc]
runtime_type = "io.containerd.runtime.v1.linux"
[plugins.cri.containerd.runtimes.runc.options]
Runtime = "/usr/bin/runc"
)";
  auto c = parsed_containerd(v1);
  EXPECT_EQ(c.version(), 1);
  ASSERT_TRUE(c.add_runtime("nvidia", "/usr/bin/nvidia-container-runtime", false));
  ASSERT_TRUE(c.enable_cdi());
  auto out = tree(c.serialize());
  auto expected = tree(R"(version = 1
[plugins.cri.containerd]
default_runtime_name = "runc"
enable_cdi = true
[plugins.cri.containerd.runtimes.runc]
runtime_type = "io.containerd.runtime.v1.linux"
[plugins.cri.containerd.runtimes.runc.options]
Runtime = "/usr/bin/runc"
[plugins.cri.containerd.runtimes.nvidia]
runtime_type = "io.containerd.runtime.v1.linux"
[plugins.cri.containerd.runtimes.nvidia.options]
BinaryName = "/usr/bin/nvidia-container-runtime"
Runtime = "/usr/bin/nvidia-container-runtime"
)");
  EXPECT_EQ(write_toml(out), write_toml(expected));
}

TEST(ContainerdConfig, C14_Version3DropInCarriesTheCriSectionAndRunc) {
  constexpr std::string_view v3 = R"(version = 3
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
BinaryName = "/usr/bin/runc"
SystemdCgroup = true
[plugins."io.containerd.grpc.v1.cri-other"]
x = 1
)";
  auto drop = parsed_containerd(v3).drop_in_base();
  ASSERT_TRUE(drop.add_runtime("nvidia", "/usr/bin/nvidia-container-runtime", false));
  auto expected = tree(R"(version = 3
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
BinaryName = "/usr/bin/runc"
SystemdCgroup = true
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia]
runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia.options]
BinaryName = "/usr/bin/nvidia-container-runtime"
SystemdCgroup = true
)");
  EXPECT_EQ(write_toml(tree(drop.serialize())), write_toml(expected));
}

TEST(ContainerdConfig, EnableCdiOnVersion2GoesOnThePlugin) {
  auto c = parsed_containerd("version = 2\n");
  ASSERT_TRUE(c.enable_cdi());
  EXPECT_EQ(c.serialize(),
            "version = 2\n\n[plugins]\n\n  [plugins.\"io.containerd.grpc.v1.cri\"]\n"
            "    enable_cdi = true\n");
}

TEST(ContainerdConfig, NvidiaDefaultIsNotCopiedFrom) {
  auto c = parsed_containerd(R"(version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
default_runtime_name = "nvidia-old"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia-old]
runtime_type = "nvidia-type"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
runtime_type = "runc-type"
)");
  ASSERT_TRUE(c.add_runtime("nvidia", "/usr/bin/nvidia-container-runtime", false));
  auto t = c.tree();
  EXPECT_EQ(
      t["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]["nvidia"]["runtime_type"]
          .value_or(std::string()),
      "runc-type");
}

TEST(ContainerdConfig, WrongTableTypesAreErrors) {
  for (const char* text :
       {"version = 2\nplugins = 1\n",
        "version = 2\n[plugins]\n\"io.containerd.grpc.v1.cri\" = \"x\"\n",
        "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\ncontainerd = []\n",
        "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
        "default_runtime_name = 5\n"}) {
    EXPECT_FALSE(ContainerdConfig::parse(text, "config.toml")) << text;
  }
}

TEST(ContainerdConfig, RemoveRuntimePrunesEmptiedTables) {
  auto c = parsed_containerd("");
  ASSERT_TRUE(c.add_runtime("nvidia", "/usr/bin/nvidia-container-runtime", false));
  ASSERT_TRUE(c.remove_runtime("nvidia"));
  EXPECT_EQ(c.serialize(), "");
}

// A user's own runc entry (not containerd's stock one) stays when nvidia goes.
TEST(ContainerdConfig, RemoveKeepsAUsersRuncEntry) {
  auto c = parsed_containerd(R"(version = 2
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
SystemdCgroup = true
)");
  ASSERT_TRUE(c.add_runtime("nvidia", "/usr/bin/nvidia-container-runtime", false));
  ASSERT_TRUE(c.remove_runtime("nvidia"));
  EXPECT_TRUE(c.has_runtime("runc"));
  EXPECT_FALSE(c.has_runtime("nvidia"));
}

TEST(ContainerdConfig, RemovingTheDefaultRuntimeMakesRuncTheDefault) {
  auto c = parsed_containerd("");
  ASSERT_TRUE(c.add_runtime("nvidia", "/usr/bin/nvidia-container-runtime", true));
  ASSERT_TRUE(c.remove_runtime("nvidia"));
  EXPECT_EQ(c.serialize(),
            "version = 2\n\n[plugins]\n\n  [plugins.\"io.containerd.grpc.v1.cri\"]\n\n"
            "    [plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
            "      default_runtime_name = \"runc\"\n");
}

TEST(ContainerdConfig, RemovingKeepsEnableCdiAndOtherRuntimes) {
  auto c = parsed_containerd(R"(
[plugins.cri.containerd]
default_runtime_name = "nvidia"
enable_cdi = true
[plugins.cri.containerd.runtimes.runc]
runtime_type = "io.containerd.runtime.v1.linux"
[plugins.cri.containerd.runtimes.nvidia]
runtime_type = "io.containerd.runtime.v1.linux"
[plugins.cri.containerd.runtimes.nvidia.options]
Runtime = "/usr/bin/nvidia-container-runtime"
)");
  ASSERT_TRUE(c.remove_runtime("nvidia"));
  auto t = c.tree();
  auto containerd = t["plugins"]["cri"]["containerd"];
  EXPECT_EQ(containerd["enable_cdi"].value_or(false), true);
  EXPECT_EQ(containerd["default_runtime_name"].value_or(std::string()), "runc");
  EXPECT_TRUE(c.has_runtime("runc"));
  EXPECT_FALSE(c.has_runtime("nvidia"));
}

TEST(ContainerdConfig, RuntimeBinaryFallsBackToTheVersion1RuntimeOption) {
  auto c = parsed_containerd(R"(
[plugins.cri.containerd.runtimes.nvidia.options]
Runtime = "/usr/bin/nvidia-container-runtime"
[plugins.cri.containerd.runtimes.both.options]
BinaryName = "/b"
Runtime = "/r"
)");
  EXPECT_EQ(c.runtime_binary("nvidia"), "/usr/bin/nvidia-container-runtime");
  EXPECT_EQ(c.runtime_binary("both"), "/b");
  EXPECT_TRUE(c.has_runtime("both"));
  EXPECT_FALSE(c.has_runtime("runc"));
}

TEST(ContainerdConfig, AddImportAppendsAndKeepsExisting) {
  auto top = tree("version = 2\nimports = [\"/foo/bar/*.toml\"]\n");
  ASSERT_TRUE(ContainerdConfig::add_import(top, "/etc/containerd/conf.d/*.toml", 2));
  ASSERT_TRUE(ContainerdConfig::add_import(top, "/etc/containerd/conf.d/*.toml", 2));
  EXPECT_EQ(write_toml(top),
            "imports = [\"/foo/bar/*.toml\", \"/etc/containerd/conf.d/*.toml\"]\nversion = 2\n");
  auto bad = tree("imports = \"x\"\n");
  EXPECT_FALSE(ContainerdConfig::add_import(bad, "/a/*.toml", 2));
}

}  // namespace
}  // namespace nvct::ctk
