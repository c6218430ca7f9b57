// `runtime configure --remove` on temporary files (spec/packaging.md §4.7): the cleanup rows of
// spec/ctk.md §5.4 (D11-D13) and §6.4 (C11-C13) as configure-then-remove lifecycles, CRI-O and
// the oci-hook file, foreign entries under NVIDIA names, missing files and second runs.
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

namespace nvct::ctk {
namespace {

using nvct::testing::MemorySink;
using nvct::testing::TempDir;

// No engine is installed here: every command fails, and the calls are counted (--remove runs
// none; configure asks `containerd --version` for version-3 files).
class CountingRunner : public CommandRunner {
 public:
  Result<CommandOutput> run(const std::vector<std::string>& argv) override {
    ++calls;
    return fail(ENOENT, "run " + argv.front() + ": not in this test");
  }
  int calls = 0;
};

// (inode, mtime) of a file: equal before and after means it was not rewritten.
std::pair<ino_t, long> identity(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return {st.st_ino, st.st_mtim.tv_sec * 1000000000L + st.st_mtim.tv_nsec};
}

class RuntimeRemove : public ::testing::Test {
 protected:
  using Level = log::Level;

  void SetUp() override {
    sink_ = std::make_shared<MemorySink>();
    log::set_sink(sink_);
    log::set_level(log::Level::kDebug);
  }
  void TearDown() override { log::set_sink(nullptr); }

  Result<std::string> run(ConfigureOptions o) {
    NVCT_ASSIGN_OR_RETURN(auto normalized, normalize_options(std::move(o)));
    return configure_runtime(normalized, runner_);
  }
  Result<std::string> configure(ConfigureOptions o) {
    o.remove = false;
    return run(std::move(o));
  }
  Result<std::string> remove(ConfigureOptions o) {
    o.remove = true;
    o.set_as_default = false;
    o.enable_cdi = false;
    int calls = runner_.calls;
    auto r = run(std::move(o));
    EXPECT_EQ(runner_.calls, calls) << "--remove ran a command";
    return r;
  }
  // An executable stand-in for a binary under the temp dir (configure may check that an explicit
  // path exists; --remove never does).
  std::string executable(const std::string& rel) {
    auto path = dir_.write(rel, "#!/bin/sh\n");
    EXPECT_EQ(::chmod(path.c_str(), 0755), 0);
    return path;
  }
  // Configures nvidia, nvidia-cdi and nvidia-legacy as the reference installer does (C11), with
  // the runtimes in <temp>/bin.
  void configure_three(ConfigureOptions o) {
    for (auto [name, exe] : {std::pair{"nvidia", "nvidia-container-runtime"},
                             {"nvidia-cdi", "nvidia-container-runtime.cdi"},
                             {"nvidia-legacy", "nvidia-container-runtime.legacy"}}) {
      o.runtime_name = name;
      o.runtime_path = executable(std::string("bin/") + exe);
      auto r = configure(o);
      ASSERT_TRUE(r) << r.error().message();
    }
  }
  bool logged(Level level, std::string_view needle) const {
    for (const auto& [l, line] : sink_->lines)
      if (l == level && line.find(needle) != std::string::npos) return true;
    return false;
  }

  std::shared_ptr<MemorySink> sink_;
  CountingRunner runner_;
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

ConfigureOptions crio_options(const std::string& config, const std::string& drop_in) {
  ConfigureOptions o;
  o.runtime = "crio";
  o.config_path = config;
  o.drop_in_path = drop_in;
  return o;
}

// ---- ownership ----

TEST(RuntimeOwnership, OnlyTheNvidiaRuntimeExecutablesAreOurs) {
  for (const char* path :
       {"nvidia-container-runtime", "/usr/bin/nvidia-container-runtime",
        "/opt/nvct/bin/nvidia-container-runtime.cdi", "/usr/bin/nvidia-container-runtime.legacy",
        "/usr/local/nvidia/toolkit/nvidia-container-runtime"})
    EXPECT_TRUE(is_own_runtime_path(path, "/usr/bin/nvidia-container-runtime")) << path;
  for (const char* path :
       {"/opt/other/runtime", "", "/usr/bin/runc", "nvidia-container-runtime-hook",
        "/usr/bin/nvidia-container-runtime.experimental", "/usr/bin/nvidia-container-runtime/"})
    EXPECT_FALSE(is_own_runtime_path(path, "/usr/bin/nvidia-container-runtime")) << path;
  EXPECT_TRUE(is_own_runtime_path("/opt/nv-runtime", "/opt/nv-runtime"));
  EXPECT_TRUE(is_own_runtime_path("/opt/nv-runtime.cdi", "/opt/nv-runtime"));
  EXPECT_FALSE(is_own_runtime_path("/opt/nv-runtime.x", "/opt/nv-runtime"));
  EXPECT_FALSE(is_own_runtime_path("", ""));
}

TEST(RuntimeOwnership, HookPaths) {
  EXPECT_TRUE(is_own_hook_path("/usr/bin/nvidia-container-runtime-hook", "/x/hook"));
  EXPECT_TRUE(is_own_hook_path("/opt/nvct/bin/nvidia-container-runtime-hook", "/x/hook"));
  EXPECT_TRUE(is_own_hook_path("/x/hook", "/x/hook"));
  EXPECT_FALSE(is_own_hook_path("/usr/libexec/oci/hooks.d/other-hook", "/x/hook"));
  EXPECT_FALSE(is_own_hook_path("", ""));
}

TEST(RuntimeOwnership, ManagedNames) {
  EXPECT_EQ(managed_runtime_names("nv"), (std::vector<std::string>{"nv", "nv-cdi", "nv-legacy"}));
}

// ---- options ----

TEST_F(RuntimeRemove, CannotBeCombinedWithSetAsDefaultOrCdi) {
  auto path = dir_.write("daemon.json", "{}");
  for (bool cdi : {false, true}) {
    auto o = docker_options(path);
    o.remove = true;
    o.set_as_default = !cdi;
    o.enable_cdi = cdi;
    auto r = run(o);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("--remove cannot be combined"), std::string::npos);
  }
  EXPECT_EQ(dir_.read("daemon.json"), "{}");
}

TEST_F(RuntimeRemove, TheRuntimePathNeedNotExist) {
  auto path =
      dir_.write("daemon.json", R"({"runtimes":{"nvidia":{"args":[],"path":"/gone/nv-runtime"}}})");
  auto o = docker_options(path);
  o.runtime_path = "/gone/nv-runtime";
  auto r = remove(o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(dir_.read("daemon.json"), "{}");
}

// ---- docker (§5.4 D11-D13) ----

// The writer's layout of {"log-driver":"local"}: configure reformats any daemon.json into it.
constexpr std::string_view kDockerSeed = "{\n    \"log-driver\": \"local\"\n}";

TEST_F(RuntimeRemove, DockerConfigureThenRemoveGivesTheSeedBackByteForByte) {
  auto path = dir_.write("daemon.json", kDockerSeed);
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  ASSERT_TRUE(configure(docker_options(path)));
  ASSERT_NE(dir_.read("daemon.json"), kDockerSeed);
  auto r = remove(docker_options(path));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, "");
  EXPECT_EQ(dir_.read("daemon.json"), kDockerSeed);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_TRUE(logged(Level::kInfo, "Removed runtime nvidia from " + path));
  EXPECT_TRUE(logged(Level::kInfo, "Wrote updated config to " + path));
  EXPECT_TRUE(logged(
      Level::kInfo, "It is recommended that docker daemon be restarted: systemctl restart docker"));
}

TEST_F(RuntimeRemove, DockerD12D13_AllThreeGoAndTheDefaultBecomesRunc) {
  auto path = dir_.write("daemon.json", R"({"log-driver":"local","default-runtime":"nvidia",
    "runtimes":{"nvidia":{"args":[],"path":"nvidia-container-runtime"},
    "nvidia-cdi":{"args":[],"path":"/usr/bin/nvidia-container-runtime.cdi"},
    "nvidia-legacy":{"path":"/usr/bin/nvidia-container-runtime.legacy","runtimeArgs":["--x"]}},
    "features":{"buildkit":true}})");
  ASSERT_TRUE(remove(docker_options(path)));
  EXPECT_EQ(dir_.read("daemon.json"),
            "{\n    \"default-runtime\": \"runc\",\n    \"features\": {\n"
            "        \"buildkit\": true\n    },\n    \"log-driver\": \"local\"\n}");
  EXPECT_TRUE(
      logged(Level::kInfo, "Removed runtimes nvidia, nvidia-cdi, nvidia-legacy from " + path));
}

TEST_F(RuntimeRemove, DockerForeignEntryUnderTheNvidiaNameIsKeptWithAWarning) {
  auto path = dir_.write("daemon.json", R"({"default-runtime":"nvidia","runtimes":{
    "nvidia":{"path":"/opt/other/runtime"},
    "nvidia-cdi":{"path":"/usr/bin/nvidia-container-runtime.cdi"},
    "runc-x":{"path":"/usr/bin/nvidia-container-runtime"}}})");
  ASSERT_TRUE(remove(docker_options(path)));
  auto doc = nlohmann::json::parse(dir_.read("daemon.json"));
  EXPECT_EQ(doc["runtimes"]["nvidia"]["path"], "/opt/other/runtime");
  EXPECT_FALSE(doc["runtimes"].contains("nvidia-cdi"));
  EXPECT_TRUE(doc["runtimes"].contains("runc-x"));  // not a managed name
  EXPECT_EQ(doc["default-runtime"], "nvidia");
  EXPECT_TRUE(logged(Level::kWarn, "Keeping runtime nvidia in " + path +
                                       ": its executable \"/opt/other/runtime\" is not the "
                                       "NVIDIA Container Runtime"));
}

TEST_F(RuntimeRemove, DockerOnlyForeignEntriesLeaveTheFileUnwritten) {
  std::string text = R"({"runtimes":{"nvidia":{"path":"/opt/other/runtime"}}})";
  auto path = dir_.write("daemon.json", text);
  auto before = identity(path);
  auto r = remove(docker_options(path));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(dir_.read("daemon.json"), text);
  EXPECT_EQ(identity(path), before);
  EXPECT_TRUE(logged(Level::kInfo, "Nothing to remove from " + path));
  EXPECT_FALSE(logged(Level::kInfo, "It is recommended"));
}

TEST_F(RuntimeRemove, DockerShimV2FormIsRecognisedByItsBinaryName) {
  auto path = dir_.write("daemon.json", R"({"runtimes":{"nvidia":{
    "runtimeType":"io.containerd.runc.v2",
    "options":{"BinaryName":"/usr/bin/nvidia-container-runtime"}}}})");
  ASSERT_TRUE(remove(docker_options(path)));
  EXPECT_EQ(dir_.read("daemon.json"), "{}");
}

TEST_F(RuntimeRemove, DockerMissingFileIsANoOpThatCreatesNothing) {
  auto o = docker_options(dir_ / "etc/docker/daemon.json");
  auto r = remove(o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, "");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "etc"));
  EXPECT_TRUE(logged(Level::kInfo, "Nothing to remove: " + (dir_ / "etc/docker/daemon.json") +
                                       " does "
                                       "not exist"));
  EXPECT_FALSE(logged(Level::kInfo, "It is recommended"));
}

TEST_F(RuntimeRemove, DockerSecondRunChangesNothing) {
  auto path = dir_.write("daemon.json", kDockerSeed);
  ASSERT_TRUE(configure(docker_options(path)));
  ASSERT_TRUE(remove(docker_options(path)));
  auto before = identity(path);
  ASSERT_TRUE(remove(docker_options(path)));
  EXPECT_EQ(identity(path), before);
  EXPECT_EQ(dir_.read("daemon.json"), kDockerSeed);
}

TEST_F(RuntimeRemove, DockerDryRunPrintsTheResultAndWritesNothing) {
  std::string text =
      R"({"log-driver":"local","runtimes":{"nvidia":{"path":"nvidia-container-runtime"}}})";
  auto path = dir_.write("daemon.json", text);
  auto o = docker_options(path);
  o.dry_run = true;
  auto r = remove(o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, "{\n    \"log-driver\": \"local\"\n}\n");
  EXPECT_EQ(dir_.read("daemon.json"), text);
  EXPECT_FALSE(std::filesystem::exists(dir_ / ".daemon.json.lock"));
  // Nothing to remove: the file as it is.
  auto unchanged = dir_.write("other.json", "{\"a\": 1}");
  auto u = remove([&] {
    auto d = docker_options(unchanged);
    d.dry_run = true;
    return d;
  }());
  ASSERT_TRUE(u);
  EXPECT_EQ(*u, "{\"a\": 1}\n");
}

TEST_F(RuntimeRemove, DockerBadInputIsAnErrorAndLeavesTheFile) {
  for (const char* bad : {R"({"runtimes":[]})", "{\"a\":1,}", "[]"}) {
    auto path = dir_.write("daemon.json", bad);
    auto r = remove(docker_options(path));
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message().find("unable to remove the NVIDIA runtime from docker"),
              std::string::npos);
    EXPECT_EQ(dir_.read("daemon.json"), bad);
  }
}

TEST_F(RuntimeRemove, DockerSymlinkIsKeptAndItsTargetEdited) {
  dir_.write("real/daemon.json", R"({"runtimes":{"nvidia":{"path":"nvidia-container-runtime"}}})");
  std::filesystem::create_directories(dir_ / "etc");
  std::filesystem::create_symlink("../real/daemon.json", dir_ / "etc/daemon.json");
  ASSERT_TRUE(remove(docker_options(dir_ / "etc/daemon.json")));
  EXPECT_TRUE(std::filesystem::is_symlink(dir_ / "etc/daemon.json"));
  EXPECT_EQ(dir_.read("real/daemon.json"), "{}");
}

TEST_F(RuntimeRemove, DockerCustomNameAndPath) {
  auto path = dir_.write("daemon.json", R"({"runtimes":{"nv":{"path":"/opt/nv-runtime"},
    "nv-cdi":{"path":"/opt/nv-runtime.cdi"},"nvidia":{"path":"nvidia-container-runtime"}}})");
  auto o = docker_options(path);
  o.runtime_name = "nv";
  o.runtime_path = "/opt/nv-runtime";
  ASSERT_TRUE(remove(o));
  auto doc = nlohmann::json::parse(dir_.read("daemon.json"));
  EXPECT_EQ(doc["runtimes"].size(), 1u);
  EXPECT_TRUE(doc["runtimes"].contains("nvidia"));
}

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

TEST_F(RuntimeRemove, ContainerdC12_CleanupLeavesTheReserialisedTopLevelWithItsImports) {
  auto config = dir_.write("config.toml", kC12Top);
  auto drop_in = dir_ / "conf.d/99-nvidia.toml";
  auto o = containerd_options(config, drop_in);
  o.enable_cdi = true;
  o.set_as_default = true;
  configure_three(o);
  std::string top = dir_.read("config.toml");
  ASSERT_EQ(top, "imports = [\"" + dir_.path() + "/conf.d/*.toml\"]\n" + std::string(kC12Top));
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

// ---- CRI-O (§7.1) ----

TEST_F(RuntimeRemove, CrioDropInIsDeletedAndTheMainFileStaysByteIdentical) {
  std::string main_text =
      "# CRI-O\n[crio.runtime]\ndefault_runtime = \"crun\"\n[crio.runtime.runtimes.crun]\n"
      "runtime_root = \"/run/crun\"\n";
  auto config = dir_.write("crio.conf", main_text);
  auto drop_in = dir_ / "crio.conf.d/99-nvidia.toml";
  configure_three(crio_options(config, drop_in));
  ASSERT_TRUE(std::filesystem::exists(drop_in));
  auto r = remove(crio_options(config, drop_in));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FALSE(std::filesystem::exists(drop_in));
  EXPECT_EQ(dir_.read("crio.conf"), main_text);
  EXPECT_TRUE(logged(Level::kInfo,
                     "It is recommended that crio daemon be restarted: systemctl restart crio"));
  ASSERT_TRUE(remove(crio_options(config, drop_in)));
  EXPECT_TRUE(logged(Level::kInfo, "Nothing to remove: " + drop_in + " does not exist"));
}

TEST_F(RuntimeRemove, CrioInPlaceRemovesTheHandlersAndResetsTheDefault) {
  std::string main_text =
      "[crio.runtime]\ndefault_runtime = \"runc\"\nlog_level = \"info\"\n"
      "[crio.runtime.runtimes.runc]\nruntime_path = \"/usr/bin/runc\"\n";
  auto config = dir_.write("crio.conf", main_text);
  auto o = crio_options(config, "");
  o.set_as_default = true;
  configure_three(o);
  ASSERT_NE(dir_.read("crio.conf").find("default_runtime = \"nvidia-legacy\""), std::string::npos);
  ASSERT_TRUE(remove(crio_options(config, "")));
  auto expected = *parse_toml(main_text, "expected");
  EXPECT_EQ(dir_.read("crio.conf"), write_toml(expected));
}

TEST_F(RuntimeRemove, CrioDropInWithAForeignHandlerKeepsIt) {
  auto drop_in =
      dir_.write("crio.conf.d/99-nvidia.toml",
                 "[crio.runtime.runtimes.nvidia]\nruntime_path = \"/opt/other/runtime\"\n"
                 "[crio.runtime.runtimes.nvidia-legacy]\n"
                 "runtime_path = \"/usr/bin/nvidia-container-runtime.legacy\"\n");
  ASSERT_TRUE(remove(crio_options(dir_ / "crio.conf", drop_in)));
  EXPECT_EQ(dir_.read("crio.conf.d/99-nvidia.toml"),
            "\n[crio]\n\n  [crio.runtime]\n\n    [crio.runtime.runtimes]\n\n"
            "      [crio.runtime.runtimes.nvidia]\n"
            "        runtime_path = \"/opt/other/runtime\"\n");
  EXPECT_TRUE(logged(Level::kWarn, "Keeping runtime nvidia in " + drop_in));
}

// ---- oci-hook (§7.2) ----

ConfigureOptions hook_options(const std::string& path) {
  ConfigureOptions o;
  o.runtime = "crio";
  o.config_mode = "oci-hook";
  o.oci_hook_path = path;
  return o;
}

TEST_F(RuntimeRemove, OciHookFileOfOurHookIsDeleted) {
  auto path = dir_ / "hooks.d/oci-nvidia-hook.json";
  ASSERT_TRUE(configure(hook_options(path)));
  auto o = hook_options(path);
  o.dry_run = true;
  auto dry = remove(o);
  ASSERT_TRUE(dry) << dry.error().message();
  EXPECT_EQ(*dry, "Would remove " + path + "\n");
  ASSERT_TRUE(std::filesystem::exists(path));
  auto r = remove(hook_options(path));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "hooks.d"));
  EXPECT_FALSE(logged(Level::kInfo, "It is recommended"));  // hooks are read per container
  ASSERT_TRUE(remove(hook_options(path)));
  EXPECT_TRUE(logged(Level::kInfo, "Nothing to remove: " + path + " does not exist"));
}

TEST_F(RuntimeRemove, OciHookFileOfAnotherHookIsKept) {
  auto other = hook_options(dir_ / "hooks.d/oci-nvidia-hook.json");
  other.hook_path = executable("libexec/other-hook");
  ASSERT_TRUE(configure(other));
  std::string text = dir_.read("hooks.d/oci-nvidia-hook.json");
  ASSERT_TRUE(remove(hook_options(dir_ / "hooks.d/oci-nvidia-hook.json")));
  EXPECT_EQ(dir_.read("hooks.d/oci-nvidia-hook.json"), text);
  EXPECT_TRUE(
      logged(Level::kWarn, other.hook_path + "\" is not the NVIDIA Container Runtime hook"));
  // Named explicitly, it is ours.
  ASSERT_TRUE(remove(other));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "hooks.d/oci-nvidia-hook.json"));
}

TEST_F(RuntimeRemove, OciHookNeedsAPathAndCrio) {
  auto r = remove(hook_options(""));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("needs --oci-hook-path"), std::string::npos);
  auto docker = hook_options(dir_ / "hook.json");
  docker.runtime = "docker";
  EXPECT_FALSE(remove(docker));
  dir_.write("bad.json", "{not json");
  EXPECT_FALSE(remove(hook_options(dir_ / "bad.json")));
  EXPECT_EQ(dir_.read("bad.json"), "{not json");
}

}  // namespace
}  // namespace nvct::ctk
