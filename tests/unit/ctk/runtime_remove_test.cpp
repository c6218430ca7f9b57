// `runtime configure --remove` on temporary files (spec/packaging.md §4.7): ownership, options,
// the docker cleanup rows of spec/ctk.md §5.4 (D11-D13) as configure-then-remove lifecycles,
// CRI-O and the oci-hook file, foreign entries under NVIDIA names, missing files and second runs.
// containerd's rows are in runtime_remove_containerd_test.cpp.
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
