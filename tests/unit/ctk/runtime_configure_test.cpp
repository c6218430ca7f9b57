// `runtime configure` as a whole on temporary files: flag rules of spec/ctk.md §4, the lifecycle
// rows C10-C12 and C15 of §6.4, CRI-O and oci-hook output, and the host-file rules of §2.
#include "nvct/ctk/runtime_configure.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/ctk/containerd_config.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::ctk {
namespace {

using nvct::testing::MemorySink;
using nvct::testing::TempDir;

class FakeRunner : public CommandRunner {
 public:
  Result<CommandOutput> run(const std::vector<std::string>& argv) override {
    std::string line;
    for (const auto& a : argv) line += (line.empty() ? "" : " ") + a;
    calls.push_back(line);
    auto it = outputs.find(line);
    if (it == outputs.end()) return fail(ENOENT, "run " + line + ": not found");
    return it->second;
  }
  std::map<std::string, CommandOutput> outputs;
  std::vector<std::string> calls;
};

class RuntimeConfigure : public ::testing::Test {
 protected:
  void SetUp() override {
    sink_ = std::make_shared<MemorySink>();
    log::set_sink(sink_);
    log::set_level(log::Level::kDebug);
  }
  void TearDown() override { log::set_sink(nullptr); }

  Result<std::string> configure(ConfigureOptions o) {
    NVCT_ASSIGN_OR_RETURN(auto normalized, normalize_options(std::move(o)));
    return configure_runtime(normalized, runner_);
  }

  std::shared_ptr<MemorySink> sink_;
  FakeRunner runner_;
  TempDir dir_;
};

ConfigureOptions docker_options(const std::string& path) {
  ConfigureOptions o;
  o.runtime = "docker";
  o.config_path = path;
  return o;
}

ConfigureOptions containerd_options(const std::string& config, const std::string& drop_in) {
  ConfigureOptions o;
  o.runtime = "containerd";
  o.config_path = config;
  o.drop_in_path = drop_in;
  return o;
}

// ---- flags (§4) ----

TEST_F(RuntimeConfigure, UnknownRuntimeIsAnError) {
  ConfigureOptions o;
  o.runtime = "podman";
  auto r = normalize_options(o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "unrecognized runtime 'podman' (--runtime takes docker, containerd or crio)");
}

TEST_F(RuntimeConfigure, DefaultsPerRuntime) {
  ConfigureOptions o;
  auto docker = normalize_options(o);
  ASSERT_TRUE(docker);
  EXPECT_EQ(docker->config_path, "/etc/docker/daemon.json");
  EXPECT_EQ(docker->runtime_path, "nvidia-container-runtime");
  EXPECT_EQ(docker->runtime_name, "nvidia");
  o.runtime = "containerd";
  auto containerd = normalize_options(o);
  ASSERT_TRUE(containerd);
  EXPECT_EQ(containerd->config_path, "/etc/containerd/config.toml");
  EXPECT_EQ(containerd->drop_in_path, "/etc/containerd/conf.d/99-nvidia.toml");
  EXPECT_EQ(containerd->runtime_path, "/usr/bin/nvidia-container-runtime");
  o.runtime = "crio";
  auto crio = normalize_options(o);
  ASSERT_TRUE(crio);
  EXPECT_EQ(crio->config_path, "/etc/crio/crio.conf");
  EXPECT_EQ(crio->drop_in_path, "/etc/crio/crio.conf.d/99-nvidia.toml");
  EXPECT_EQ(crio->runtime_path, "/usr/bin/nvidia-container-runtime");
}

TEST_F(RuntimeConfigure, ContainerdAndCrioNeedAnAbsoluteRuntimePath) {
  for (const char* runtime : {"containerd", "crio"}) {
    ConfigureOptions o;
    o.runtime = runtime;
    o.runtime_path = "bin/nvidia-container-runtime";
    auto r = normalize_options(o);
    ASSERT_FALSE(r) << runtime;
    EXPECT_EQ(r.error().message(),
              "the NVIDIA runtime path \"bin/nvidia-container-runtime\" is not an absolute path");
  }
  ConfigureOptions docker;
  docker.runtime_path = "my-runtime";
  EXPECT_TRUE(normalize_options(docker));
}

TEST_F(RuntimeConfigure, DockerRejectsAnExplicitDropIn) {
  auto o = docker_options(dir_ / "daemon.json");
  o.drop_in_path = "/etc/docker/daemon.d/x.json";
  auto r = normalize_options(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("does not support drop-in configs"), std::string::npos);
}

TEST_F(RuntimeConfigure, DropInMustBeAbsolute) {
  auto r = normalize_options(containerd_options(dir_ / "config.toml", "conf.d/99-nvidia.toml"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("not an absolute path"), std::string::npos);
}

TEST_F(RuntimeConfigure, DockerIgnoresCommandSource) {
  auto o = docker_options(dir_ / "daemon.json");
  o.config_source = "command";
  auto r = normalize_options(o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->config_source, "file");
}

TEST_F(RuntimeConfigure, UnknownConfigSourceIsAnError) {
  auto o = docker_options(dir_ / "daemon.json");
  o.config_source = "magic";
  EXPECT_FALSE(normalize_options(o));
}

TEST_F(RuntimeConfigure, UnknownConfigModeWarnsAndEditsTheConfigFile) {
  auto o = docker_options(dir_ / "daemon.json");
  o.config_mode = "something";
  auto r = normalize_options(o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->config_mode, "config-file");
  EXPECT_TRUE(sink_->contains("Ignoring unsupported config mode"));
}

TEST_F(RuntimeConfigure, CdiEnabledIsIgnoredForCrioWithAWarning) {
  ConfigureOptions o;
  o.runtime = "crio";
  o.enable_cdi = true;
  auto r = normalize_options(o);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->enable_cdi);
  EXPECT_TRUE(sink_->contains("Ignoring cdi.enabled flag for crio"));
}

// ---- docker ----

TEST_F(RuntimeConfigure, DockerWritesDaemonJsonAndLogs) {
  auto path = dir_.write("daemon.json", R"({"log-driver":"json-file"})");
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  auto o = docker_options(path);
  o.set_as_default = true;
  o.enable_cdi = true;
  auto r = configure(o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, "");
  EXPECT_EQ(
      dir_.read("daemon.json"),
      "{\n    \"default-runtime\": \"nvidia\",\n    \"features\": {\n        \"cdi\": true\n"
      "    },\n    \"log-driver\": \"json-file\",\n    \"runtimes\": {\n        \"nvidia\": {\n"
      "            \"args\": [],\n            \"path\": \"nvidia-container-runtime\"\n"
      "        }\n    }\n}");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_TRUE(sink_->contains("Wrote updated config to " + path));
  EXPECT_TRUE(sink_->contains("It is recommended that docker daemon be restarted."));
}

TEST_F(RuntimeConfigure, DockerDryRunPrintsWithNewlineAndWritesNothing) {
  auto o = docker_options(dir_ / "etc/docker/daemon.json");
  o.dry_run = true;
  auto r = configure(o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r,
            "{\n    \"runtimes\": {\n        \"nvidia\": {\n            \"args\": [],\n"
            "            \"path\": \"nvidia-container-runtime\"\n        }\n    }\n}\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "etc"));
}

TEST_F(RuntimeConfigure, DockerBadInputLeavesTheFileUntouched) {
  for (const char* bad : {R"({"runtimes":[]})", "{\"a\":1,}", "[]", "\xEF\xBB\xBF{}"}) {
    auto path = dir_.write("daemon.json", bad);
    auto r = configure(docker_options(path));
    EXPECT_FALSE(r) << bad;
    EXPECT_EQ(dir_.read("daemon.json"), bad);
  }
}

TEST_F(RuntimeConfigure, DockerSymlinkIsKeptAndItsTargetEdited) {
  dir_.write("real/daemon.json", "{}");
  std::filesystem::create_directories(dir_ / "etc");
  std::filesystem::create_symlink("../real/daemon.json", dir_ / "etc/daemon.json");
  ASSERT_TRUE(configure(docker_options(dir_ / "etc/daemon.json")));
  EXPECT_TRUE(std::filesystem::is_symlink(dir_ / "etc/daemon.json"));
  auto doc = nlohmann::json::parse(dir_.read("real/daemon.json"));
  EXPECT_EQ(doc["runtimes"]["nvidia"]["path"], "nvidia-container-runtime");
}

TEST_F(RuntimeConfigure, DockerConfigThatIsADirectoryIsAnError) {
  std::filesystem::create_directories(dir_ / "daemon.json");
  EXPECT_FALSE(configure(docker_options(dir_ / "daemon.json")));
}

TEST_F(RuntimeConfigure, TwoConcurrentRunsOnOneFileBothLand) {
  auto path = dir_.write("daemon.json", "{}");
  constexpr int kRounds = 20;
  std::vector<std::thread> threads;
  std::vector<int> failures(2, 0);
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      FakeRunner runner;
      for (int i = 0; i < kRounds; ++i) {
        auto o = docker_options(path);
        o.runtime_name = "nvidia-" + std::to_string(t) + "-" + std::to_string(i);
        auto normalized = normalize_options(o);
        if (!normalized || !configure_runtime(*normalized, runner)) ++failures[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures[0] + failures[1], 0);
  auto doc = nlohmann::json::parse(dir_.read("daemon.json"));
  EXPECT_EQ(doc["runtimes"].size(), 2u * kRounds);
}

// ---- containerd (§6.4 C10-C12, C15) ----

TEST_F(RuntimeConfigure, C10_ExistingImportsAreAppendedTo) {
  auto config = dir_.write("config.toml", "version = 2\nimports = [\"/foo/bar/*.toml\"]\n");
  auto drop_in = dir_ / "conf.d/99-nvidia.toml";
  auto r = configure(containerd_options(config, drop_in));
  ASSERT_TRUE(r) << r.error().message();
  // nvct keeps the admin's key order (issue 14); the reference re-serialises the file, giving
  // "imports = [...]\nversion = 2\n".
  EXPECT_EQ(dir_.read("config.toml"), "version = 2\nimports = [\"/foo/bar/*.toml\", \"" +
                                          dir_.path() + "/conf.d/*.toml\"]\n");
  EXPECT_TRUE(std::filesystem::exists(drop_in));
  EXPECT_TRUE(sink_->contains("It is recommended that containerd daemon be restarted."));
}

TEST_F(RuntimeConfigure, C11_MissingTopLevelGetsImportAndVersion) {
  auto config = dir_ / "config.toml";
  auto drop_in = dir_ / "conf.d/99-nvidia.toml";
  auto r = configure(containerd_options(config, drop_in));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(dir_.read("config.toml"),
            "imports = [\"" + dir_.path() + "/conf.d/*.toml\"]\nversion = 2\n");
  auto golden = read_file(NVCT_SOURCE_DIR "/tests/data/ctk/containerd_example_v2_dropin.toml");
  ASSERT_TRUE(golden);
  EXPECT_EQ(dir_.read("conf.d/99-nvidia.toml"), *golden);
}

constexpr std::string_view kC12Top = R"(version = 2

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

TEST_F(RuntimeConfigure, C12_TopLevelKeepsItsSectionsAndGetsImportsFirst) {
  auto config = dir_.write("config.toml", kC12Top);
  auto drop_in = dir_ / "conf.d/99-nvidia.toml";
  auto o = containerd_options(config, drop_in);
  o.enable_cdi = true;
  ASSERT_TRUE(configure(o));
  EXPECT_EQ(dir_.read("config.toml"),
            "imports = [\"" + dir_.path() + "/conf.d/*.toml\"]\n" + std::string(kC12Top));
  auto drop = dir_.read("conf.d/99-nvidia.toml");
  EXPECT_NE(drop.find("  [plugins.\"io.containerd.grpc.v1.cri\"]\n    enable_cdi = true\n"),
            std::string::npos)
      << drop;
  EXPECT_NE(drop.find("      default_runtime_name = \"runc\"\n"), std::string::npos);
  EXPECT_NE(drop.find("[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]"),
            std::string::npos);
}

TEST(ContainerdDropIn, C12_ThreeRuntimesInheritOnlyWhatRuncHas) {
  auto source = ContainerdConfig::parse(kC12Top, "config.toml");
  ASSERT_TRUE(source);
  auto drop = source->drop_in_base();
  ASSERT_TRUE(drop.add_runtime("nvidia", "/usr/bin/nvidia-container-runtime", false));
  ASSERT_TRUE(drop.add_runtime("nvidia-cdi", "/usr/bin/nvidia-container-runtime.cdi", false));
  ASSERT_TRUE(drop.add_runtime("nvidia-legacy", "/usr/bin/nvidia-container-runtime.legacy", false));
  ASSERT_TRUE(drop.enable_cdi());
  std::string runtimes;
  for (auto [name, path] : {std::pair{"nvidia", "/usr/bin/nvidia-container-runtime"},
                            {"nvidia-cdi", "/usr/bin/nvidia-container-runtime.cdi"},
                            {"nvidia-legacy", "/usr/bin/nvidia-container-runtime.legacy"},
                            {"runc", "/usr/bin/runc"}}) {
    runtimes += fmt::format(
        "\n        [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.{0}]\n"
        "          runtime_type = \"io.containerd.runc.v2\"\n\n"
        "          [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.{0}.options]\n"
        "            BinaryName = \"{1}\"\n",
        name, path);
  }
  EXPECT_EQ(drop.serialize(),
            "version = 2\n\n[plugins]\n\n  [plugins.\"io.containerd.grpc.v1.cri\"]\n"
            "    enable_cdi = true\n\n    [plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
            "      default_runtime_name = \"runc\"\n\n"
            "      [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes]\n" +
                runtimes);
}

TEST(ContainerdDropIn, C11_ThreeRuntimesOnAMissingConfigGetStockOptions) {
  auto source = ContainerdConfig::parse("", "config.toml");
  ASSERT_TRUE(source);
  auto drop = source->drop_in_base();
  for (auto [name, path] : {std::pair{"nvidia", "/usr/bin/nvidia-container-runtime"},
                            {"nvidia-cdi", "/usr/bin/nvidia-container-runtime.cdi"},
                            {"nvidia-legacy", "/usr/bin/nvidia-container-runtime.legacy"}}) {
    ASSERT_TRUE(drop.add_runtime(name, path, false));
  }
  std::string runtimes;
  for (auto [name, path] : {std::pair{"nvidia", "/usr/bin/nvidia-container-runtime"},
                            {"nvidia-cdi", "/usr/bin/nvidia-container-runtime.cdi"},
                            {"nvidia-legacy", "/usr/bin/nvidia-container-runtime.legacy"}}) {
    runtimes += fmt::format(
        "\n        [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.{0}]\n"
        "          privileged_without_host_devices = false\n"
        "          runtime_engine = \"\"\n"
        "          runtime_root = \"\"\n"
        "          runtime_type = \"io.containerd.runc.v2\"\n\n"
        "          [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.{0}.options]\n"
        "            BinaryName = \"{1}\"\n",
        name, path);
  }
  // containerd's own runc entry, which the CRI plugin needs as its default runtime.
  runtimes +=
      "\n        [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
      "          privileged_without_host_devices = false\n"
      "          runtime_engine = \"\"\n"
      "          runtime_root = \"\"\n"
      "          runtime_type = \"io.containerd.runc.v2\"\n";
  EXPECT_EQ(drop.serialize(),
            "version = 2\n\n[plugins]\n\n  [plugins.\"io.containerd.grpc.v1.cri\"]\n\n"
            "    [plugins.\"io.containerd.grpc.v1.cri\".containerd]\n\n"
            "      [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes]\n" +
                runtimes);
}

TEST_F(RuntimeConfigure, C13_Version1WithCdiIsEditedInPlace) {
  auto config = dir_.write("config.toml", R"([plugins.cri.containerd]
default_runtime_name = "runc"
[plugins.cri.containerd.runtimes.runc]
runtime_type = "io.containerd.runtime.v1.linux"
[plugins.cri.containerd.runtimes.runc.options]
Runtime = "/usr/bin/runc"
)");
  auto o = containerd_options(config, dir_ / "conf.d/99-nvidia.toml");
  o.enable_cdi = true;
  ASSERT_TRUE(configure(o));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "conf.d"));
  auto edited = ContainerdConfig::parse(dir_.read("config.toml"), "config.toml");
  ASSERT_TRUE(edited);
  const auto& c = *edited->tree()["plugins"]["cri"]["containerd"].as_table();
  EXPECT_EQ(c["enable_cdi"].value_or(false), true);
  EXPECT_EQ(c["default_runtime_name"].value_or(std::string()), "runc");
  EXPECT_EQ(c["runtimes"]["nvidia"]["runtime_type"].value_or(std::string()),
            "io.containerd.runtime.v1.linux");
  EXPECT_EQ(c["runtimes"]["nvidia"]["options"]["BinaryName"].value_or(std::string()),
            "/usr/bin/nvidia-container-runtime");
  EXPECT_EQ(c["runtimes"]["nvidia"]["options"]["Runtime"].value_or(std::string()),
            "/usr/bin/nvidia-container-runtime");
  EXPECT_EQ(c["runtimes"]["runc"]["options"]["Runtime"].value_or(std::string()), "/usr/bin/runc");
}

TEST_F(RuntimeConfigure, DropInKeepsMainFileSettingsForContainerd1x) {
  auto config = dir_.write("config.toml", R"(version = 2
root = "/var/lib/x"
[plugins."io.containerd.grpc.v1.cri"]
sandbox_image = "pause:3.9"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
SystemdCgroup = true
)");
  ASSERT_TRUE(configure(containerd_options(config, dir_ / "conf.d/99-nvidia.toml")));
  auto drop = ContainerdConfig::parse(dir_.read("conf.d/99-nvidia.toml"), "drop-in");
  ASSERT_TRUE(drop);
  const auto& cri = *drop->tree()["plugins"]["io.containerd.grpc.v1.cri"].as_table();
  EXPECT_EQ(cri["sandbox_image"].value_or(std::string()), "pause:3.9");
  EXPECT_TRUE(cri["containerd"]["runtimes"]["runc"].is_table());
  EXPECT_EQ(cri["containerd"]["runtimes"]["nvidia"]["options"]["SystemdCgroup"].value_or(false),
            true);
  EXPECT_EQ(drop->runtime_binary("nvidia"), "/usr/bin/nvidia-container-runtime");
  EXPECT_FALSE(drop->tree().contains("root"));
}

TEST_F(RuntimeConfigure, TopLevelAlreadyImportingIsLeftByteForByte) {
  std::string top =
      "# my comment\nversion = 2\nimports = [\"" + dir_.path() + "/conf.d/*.toml\"]\n";
  auto config = dir_.write("config.toml", top);
  ASSERT_TRUE(configure(containerd_options(config, dir_ / "conf.d/99-nvidia.toml")));
  EXPECT_EQ(dir_.read("config.toml"), top);
}

TEST_F(RuntimeConfigure, DropInStartsFromTheCriTableOfAnImportedFile) {
  dir_.write("mine/10.toml", "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\nx = \"y\"\n");
  auto config = dir_.write("config.toml", "version = 2\nimports = [\"mine/*.toml\"]\n");
  ASSERT_TRUE(configure(containerd_options(config, dir_ / "conf.d/99-nvidia.toml")));
  auto drop = ContainerdConfig::parse(dir_.read("conf.d/99-nvidia.toml"), "drop-in");
  EXPECT_EQ(drop->tree()["plugins"]["io.containerd.grpc.v1.cri"]["x"].value<std::string>(), "y");
}

TEST_F(RuntimeConfigure, C15_DryRunWritesNoFiles) {
  auto config = dir_.write("config.toml", "version = 2\n");
  auto o = containerd_options(config, dir_ / "conf.d/99-nvidia.toml");
  o.dry_run = true;
  auto r = configure(o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->rfind("Drop-in config:\nversion = 2\n", 0), 0u) << *r;
  EXPECT_NE(r->find("\nTop-level config:\nimports = ["), std::string::npos) << *r;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "conf.d"));
  EXPECT_EQ(dir_.read("config.toml"), "version = 2\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ / ".config.toml.lock"));
}

TEST_F(RuntimeConfigure, Version1IsEditedInPlace) {
  auto config =
      dir_.write("config.toml", "[plugins.cri.containerd]\nsnapshotter = \"overlayfs\"\n");
  ASSERT_TRUE(configure(containerd_options(config, dir_ / "conf.d/99-nvidia.toml")));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "conf.d/99-nvidia.toml"));
  auto edited = ContainerdConfig::parse(dir_.read("config.toml"), "config.toml");
  ASSERT_TRUE(edited);
  EXPECT_EQ(edited->version(), 1);
  EXPECT_EQ(edited->runtime_binary("nvidia"), "/usr/bin/nvidia-container-runtime");
}

TEST_F(RuntimeConfigure, EmptyDropInPathEditsTheMainFileKeepingItsLayout) {
  const std::string seed =
      "# admin\nversion = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
      "  default_runtime_name = \"runc\"  # pinned\n";
  auto config = dir_.write("config.toml", seed);
  auto o = containerd_options(config, "");
  o.set_as_default = true;
  ASSERT_TRUE(configure(o));
  const std::string text = dir_.read("config.toml");
  EXPECT_EQ(text.rfind("# admin\nversion = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
                       "  default_runtime_name = \"nvidia\"  # pinned\n\n",
                       0),
            0u)
      << text;
  auto edited = ContainerdConfig::parse(text, "config.toml");
  ASSERT_TRUE(edited);
  EXPECT_EQ(edited->runtime_binary("nvidia"), "/usr/bin/nvidia-container-runtime");
  EXPECT_TRUE(edited->has_runtime("runc"));  // containerd's own, which the file relied on
  EXPECT_FALSE(edited->tree().contains("imports"));
  ASSERT_TRUE(configure(o));
  EXPECT_EQ(dir_.read("config.toml"), text);
}

TEST_F(RuntimeConfigure, Version3IsRefusedForAnInstalledContainerd1x) {
  auto config = dir_.write("config.toml", "version = 3\n");
  runner_.outputs["containerd --version"] = {
      0, "containerd github.com/containerd/containerd 1.6.20~ds1 1.6.20~ds1-1+b1\n"};
  auto r = configure(containerd_options(config, dir_ / "conf.d/99-nvidia.toml"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("silently ignores version-3 files"), std::string::npos)
      << r.error().message();
  EXPECT_FALSE(std::filesystem::exists(dir_ / "conf.d/99-nvidia.toml"));
  EXPECT_EQ(dir_.read("config.toml"), "version = 3\n");
}

TEST_F(RuntimeConfigure, Version3IsWrittenForContainerd2) {
  auto config = dir_.write("config.toml", "version = 3\n");
  runner_.outputs["containerd --version"] = {
      0, "containerd github.com/containerd/containerd/v2 v2.1.4 75cb2b7193e4\n"};
  ASSERT_TRUE(configure(containerd_options(config, dir_ / "conf.d/99-nvidia.toml")));
  auto drop = ContainerdConfig::parse(dir_.read("conf.d/99-nvidia.toml"), "drop-in");
  ASSERT_TRUE(drop);
  EXPECT_EQ(drop->version(), 3);
  EXPECT_EQ(drop->runtime_binary("nvidia"), "/usr/bin/nvidia-container-runtime");
}

TEST_F(RuntimeConfigure, CommandSourceReadsContainerdConfigDump) {
  auto config = dir_.write("config.toml", "version = 2\n");
  runner_.outputs["/opt/bin/containerd config dump"] = {
      0, "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\nsandbox_image = \"pause:3.6\"\n"};
  auto o = containerd_options(config, dir_ / "conf.d/99-nvidia.toml");
  o.config_source = "command";
  o.executable_path = "/opt/bin/containerd";
  ASSERT_TRUE(configure(o));
  EXPECT_NE(dir_.read("conf.d/99-nvidia.toml").find("sandbox_image = \"pause:3.6\""),
            std::string::npos);
}

TEST_F(RuntimeConfigure, CommandSourceFailureIsAnError) {
  auto o = containerd_options(dir_ / "config.toml", dir_ / "conf.d/99-nvidia.toml");
  o.config_source = "command";
  auto r = configure(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("containerd config dump"), std::string::npos);
}

TEST_F(RuntimeConfigure, ContainerdBadTomlLeavesFilesUntouched) {
  auto config = dir_.write("config.toml", "version = 2\n[plugins\n");
  EXPECT_FALSE(configure(containerd_options(config, dir_ / "conf.d/99-nvidia.toml")));
  EXPECT_EQ(dir_.read("config.toml"), "version = 2\n[plugins\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "conf.d/99-nvidia.toml"));
}

// ---- CRI-O and oci-hook (§7) ----

TEST_F(RuntimeConfigure, CrioWritesTheDropInAndLeavesTheMainFileByteIdentical) {
  std::string main_text =
      "# CRI-O\n[crio.runtime]\ndefault_runtime = \"crun\"\n[crio.runtime.runtimes.crun]\n"
      "runtime_root = \"/run/crun\"\n";
  auto config = dir_.write("crio.conf", main_text);
  ConfigureOptions o;
  o.runtime = "crio";
  o.config_path = config;
  o.drop_in_path = dir_ / "crio.conf.d/99-nvidia.toml";
  ASSERT_TRUE(configure(o));
  EXPECT_EQ(dir_.read("crio.conf"), main_text);
  EXPECT_EQ(dir_.read("crio.conf.d/99-nvidia.toml"),
            "\n[crio]\n\n  [crio.runtime]\n\n    [crio.runtime.runtimes]\n\n"
            "      [crio.runtime.runtimes.nvidia]\n"
            "        runtime_path = \"/usr/bin/nvidia-container-runtime\"\n"
            "        runtime_root = \"/run/crun\"\n        runtime_type = \"oci\"\n");
}

TEST_F(RuntimeConfigure, OciHookModeWritesTheHookFile) {
  ConfigureOptions o;
  o.runtime = "crio";
  o.config_mode = "hook";
  o.oci_hook_path = dir_ / "hooks.d/oci-nvidia-hook.json";
  ASSERT_TRUE(configure(o));
  auto golden = read_file(NVCT_SOURCE_DIR "/tests/data/ctk/oci_nvidia_hook.json");
  ASSERT_TRUE(golden);
  EXPECT_EQ(dir_.read("hooks.d/oci-nvidia-hook.json"), *golden);
}

TEST_F(RuntimeConfigure, OciHookModeWithoutPathPrintsTheHook) {
  ConfigureOptions o;
  o.runtime = "crio";
  o.config_mode = "oci-hook";
  auto r = configure(o);
  ASSERT_TRUE(r) << r.error().message();
  auto golden = read_file(NVCT_SOURCE_DIR "/tests/data/ctk/oci_nvidia_hook.json");
  EXPECT_EQ(*r, *golden);
}

TEST_F(RuntimeConfigure, OciHookModeNeedsAnAbsoluteHookPathAndCrio) {
  ConfigureOptions o;
  o.runtime = "crio";
  o.config_mode = "oci-hook";
  o.hook_path = "nvidia-container-runtime-hook";
  EXPECT_FALSE(normalize_options(o));
  ConfigureOptions docker;
  docker.config_mode = "oci-hook";
  auto r = configure(docker);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("does not support the 'oci-hook' config mode"),
            std::string::npos);
}

TEST(ContainerdVersion, ParsesMajorFromVersionOutput) {
  EXPECT_EQ(parse_containerd_major("containerd github.com/containerd/containerd 1.6.20~ds1 x\n"),
            1);
  EXPECT_EQ(parse_containerd_major("containerd containerd.io 1.7.27 05044ec0a9a7"), 1);
  EXPECT_EQ(parse_containerd_major("containerd github.com/containerd/containerd/v2 v2.1.4 abc"), 2);
  EXPECT_EQ(parse_containerd_major("garbage"), std::nullopt);
}

}  // namespace
}  // namespace nvct::ctk
