#include "prestart.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "nvct/base/log.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::hook {
namespace {

using nlohmann::ordered_json;
using nvct::testing::TempDir;

// A bundle with config.json, a fake configure job and a recorded stderr.
class Prestart : public ::testing::Test {
 protected:
  void write_spec(const std::vector<std::string>& env, const std::string& root_path = "rootfs",
                  ordered_json extra = ordered_json::object()) {
    ordered_json spec = {{"ociVersion", "1.0.2"},
                         {"process", {{"args", {"sh"}}, {"env", env}, {"cwd", "/"}}},
                         {"root", {{"path", root_path}}}};
    for (auto& [k, v] : extra.items()) spec[k] = v;
    dir_.write("config.json", spec.dump());
    // The hook resolves the root on disk (a path through a symlink is refused).
    if (!root_path.empty() && root_path.front() != '/')
      std::filesystem::create_directories(std::filesystem::path(dir_.path()) / root_path);
  }
  std::string state(int pid = 4242) const {
    return fmt::format(
        R"({{"ociVersion":"1.0.2","id":"c1","status":"creating","pid":{},"bundle":"{}"}})", pid,
        dir_.path());
  }
  int run(const std::string& state_json, bool debug = false) {
    PrestartEnv env{[this](const mount::ConfigureOptions& o) -> Status {
                      calls_++;
                      options_ = o;
                      if (!configure_error_.empty()) return fail(EINVAL, configure_error_);
                      return ok();
                    },
                    [this](const std::string&) { return platform_; },
                    [this](std::string_view line) { printed_ += std::string(line) + "\n"; }};
    return run_prestart(cfg_, state_json, debug, env);
  }

  TempDir dir_;
  config::Config cfg_;
  PlatformFacts platform_{false, true};
  mount::ConfigureOptions options_;
  int calls_ = 0;
  std::string configure_error_;
  std::string printed_;
};

// hook.md §5, first observed example (v1.20.0 adds --cuda-compat-mode=ldconfig).
TEST_F(Prestart, ObservedExampleWithRelativeRootAndRequirement) {
  write_spec({"NVIDIA_VISIBLE_DEVICES=0,GPU-abc",
              "NVIDIA_DRIVER_CAPABILITIES=compute,utility,video",
              "NVIDIA_REQUIRE_CUDA=cuda>=11.0 brand=tesla", "CUDA_VERSION=11.0.3"});
  ASSERT_EQ(run(state(4242)), 0) << printed_;
  ASSERT_EQ(calls_, 1);
  EXPECT_EQ(options_.root, "/");
  EXPECT_TRUE(options_.load_kmods);
  EXPECT_EQ(options_.cuda_compat_mode, "ldconfig");
  EXPECT_EQ(options_.ldconfig, "@/sbin/ldconfig");
  EXPECT_EQ(options_.devices, std::vector<std::string>{"0,GPU-abc"});
  EXPECT_TRUE(options_.compute && options_.utility && options_.video);
  EXPECT_FALSE(options_.compat32 || options_.display || options_.graphics || options_.ngx);
  // One element, space included.
  EXPECT_EQ(options_.requirements, std::vector<std::string>{"cuda>=11.0 brand=tesla"});
  EXPECT_EQ(options_.pid, 4242);
  EXPECT_EQ(options_.rootfs, dir_.path() + "/rootfs");
  EXPECT_FALSE(options_.no_cgroups || options_.no_pivot || options_.no_create_imex_channels);
  EXPECT_FALSE(options_.user);
  EXPECT_EQ(printed_, "Auto-detected mode as 'legacy'\n");
}

// hook.md §5, second observed example: the duplicate quirk and all capabilities.
TEST_F(Prestart, ObservedExampleWithDuplicatesAndAllCapabilities) {
  std::string abs_root = dir_.path() + "/abs/rootfs";
  std::filesystem::create_directories(abs_root);
  write_spec({"NVIDIA_VISIBLE_DEVICES=0,1,0", "NVIDIA_DRIVER_CAPABILITIES=all"}, abs_root);
  ASSERT_EQ(run(state(7)), 0) << printed_;
  EXPECT_EQ(options_.devices, std::vector<std::string>{",1,0"});
  EXPECT_TRUE(options_.compat32 && options_.compute && options_.display && options_.graphics &&
              options_.ngx && options_.utility && options_.video);
  EXPECT_TRUE(options_.requirements.empty());
  EXPECT_EQ(options_.pid, 7);
  EXPECT_EQ(options_.rootfs, abs_root);
}

TEST_F(Prestart, NoGpuRequestedExitsZeroWithoutConfiguring) {
  for (const char* env : {"NVIDIA_VISIBLE_DEVICES=void", "NVIDIA_VISIBLE_DEVICES=", "PATH=/bin"}) {
    write_spec({env});
    EXPECT_EQ(run(state()), 0) << env;
  }
  EXPECT_EQ(calls_, 0);
  EXPECT_EQ(printed_, "");
}

TEST_F(Prestart, NoneIsAGpuContainerWithoutDevices) {
  write_spec({"NVIDIA_VISIBLE_DEVICES=none"});
  ASSERT_EQ(run(state()), 0) << printed_;
  EXPECT_EQ(calls_, 1);
  EXPECT_TRUE(options_.devices.empty());
  EXPECT_TRUE(options_.compute && options_.utility);
}

TEST_F(Prestart, LegacyCudaImageRequestsAllGpusAndItsCudaVersion) {
  write_spec({"CUDA_VERSION=9.0"});
  ASSERT_EQ(run(state()), 0) << printed_;
  EXPECT_EQ(options_.devices, std::vector<std::string>{"all"});
  EXPECT_EQ(options_.requirements, std::vector<std::string>{"cuda>=9.0"});
  EXPECT_TRUE(options_.compat32 && options_.video && options_.graphics);
}

TEST_F(Prestart, ConfigureFailureIsPrintedWithTheCliPrefix) {
  write_spec({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_REQUIRE_CUDA=cuda>=99.0"});
  configure_error_ =
      "requirement error: unsatisfied condition: cuda>=99.0, please update your driver to a "
      "newer version, or use an earlier cuda container";
  EXPECT_EQ(run(state()), 1);
  EXPECT_EQ(printed_,
            "Auto-detected mode as 'legacy'\nnvidia-container-cli: " + configure_error_ + "\n");
}

// issue 16: the line runc passes on to the engine is also in the hook's log, with the container.
TEST_F(Prestart, FailureIsLoggedWithTheContainerIdAndBundle) {
  auto sink = std::make_shared<nvct::testing::MemorySink>();
  log::set_sink(sink);
  log::set_level(log::Level::kDebug);
  write_spec({"NVIDIA_VISIBLE_DEVICES=7"});
  configure_error_ = "device error: 7: unknown device (from NVIDIA_VISIBLE_DEVICES)";
  EXPECT_EQ(run(state()), 1);
  log::set_sink(nullptr);
  log::set_level(log::Level::kInfo);
  std::string line = "nvidia-container-cli: " + configure_error_;
  EXPECT_EQ(printed_, "Auto-detected mode as 'legacy'\n" + line + "\n");
  EXPECT_TRUE(
      sink->contains("prestart of container c1 (bundle " + dir_.path() + ") failed: " + line));
  EXPECT_EQ(options_.devices_source, "NVIDIA_VISIBLE_DEVICES");
}

TEST_F(Prestart, MultiLineErrorsReachStderrAsOneLine) {
  write_spec({"NVIDIA_VISIBLE_DEVICES=0"});
  configure_error_ = "mount error: a\nb";
  EXPECT_EQ(run(state()), 1);
  EXPECT_EQ(printed_, "Auto-detected mode as 'legacy'\nnvidia-container-cli: mount error: a b\n");
}

TEST_F(Prestart, NonLegacyModeIsRefusedBeforeConfiguring) {
  cfg_.runtime.mode = "cdi";
  write_spec({"NVIDIA_VISIBLE_DEVICES=all"});
  EXPECT_EQ(run(state()), 1);
  EXPECT_EQ(calls_, 0);
  EXPECT_EQ(printed_, std::string("Using requested mode 'cdi'\n") + kDirectInvocationError + "\n");
}

TEST_F(Prestart, ModeIsNotCheckedForAContainerWithoutGpu) {
  cfg_.runtime.mode = "cdi";
  write_spec({"NVIDIA_VISIBLE_DEVICES=void"});
  EXPECT_EQ(run(state()), 0);
  EXPECT_EQ(printed_, "");
}

TEST_F(Prestart, SkipModeDetectionAllowsOtherModes) {
  cfg_.runtime.mode = "csv";
  cfg_.hook.skip_mode_detection = true;
  write_spec({"NVIDIA_VISIBLE_DEVICES=0"});
  EXPECT_EQ(run(state()), 0) << printed_;
  EXPECT_EQ(calls_, 1);
  EXPECT_EQ(printed_, "");
}

TEST_F(Prestart, DebugFlagSendsMountLibraryLogToStderr) {
  write_spec({"NVIDIA_VISIBLE_DEVICES=0"});
  ASSERT_EQ(run(state(), true), 0);
  EXPECT_EQ(options_.debug_file, "/dev/stderr");
}

TEST_F(Prestart, UnprivilegedMigConfigFails) {
  write_spec({"NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_MIG_CONFIG_DEVICES=all"});
  EXPECT_EQ(run(state()), 1);
  EXPECT_EQ(calls_, 0);
  EXPECT_EQ(printed_,
            "nvidia-container-runtime-hook: cannot set MIG_CONFIG_DEVICES in non privileged "
            "container: NVIDIA_MIG_CONFIG_DEVICES=all needs a privileged container (docker run "
            "--privileged); unset it otherwise\n");
}

TEST_F(Prestart, UnsupportedCapabilityFails) {
  write_spec({"NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_DRIVER_CAPABILITIES=compute,bogus"});
  EXPECT_EQ(run(state()), 1);
  EXPECT_EQ(calls_, 0);
  EXPECT_NE(printed_.find("unsupported capabilities found"), std::string::npos) << printed_;
}

TEST_F(Prestart, ImexChannelsReachConfigure) {
  write_spec({"NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_IMEX_CHANNELS=3,4"});
  ASSERT_EQ(run(state()), 0) << printed_;
  EXPECT_EQ(options_.imex_channels, (std::vector<std::string>{"3", "4"}));
}

TEST_F(Prestart, PidMustBePositive) {
  write_spec({"NVIDIA_VISIBLE_DEVICES=0"});
  EXPECT_EQ(run(state(0)), 1);
  EXPECT_EQ(calls_, 0);
  EXPECT_EQ(
      printed_,
      "nvidia-container-runtime-hook: read OCI state from stdin: invalid pid 0 (must be > 0)\n");
}

TEST_F(Prestart, BundleMustBeAbsolute) {
  EXPECT_EQ(run(R"({"ociVersion":"1.0.2","id":"c","status":"creating","pid":5,"bundle":"rel"})"),
            1);
  EXPECT_NE(printed_.find("read OCI state from stdin"), std::string::npos) << printed_;
  EXPECT_EQ(calls_, 0);
}

TEST_F(Prestart, LegacyBundlePathKeyIsAccepted) {
  write_spec({"NVIDIA_VISIBLE_DEVICES=0"});
  auto json = fmt::format(
      R"({{"ociVersion":"1.0.2","id":"c","status":"creating","pid":9,"bundlePath":"{}"}})",
      dir_.path());
  ASSERT_EQ(run(json), 0) << printed_;
  EXPECT_EQ(options_.rootfs, dir_.path() + "/rootfs");
}

TEST_F(Prestart, MalformedStateFails) {
  EXPECT_EQ(run("{not json"), 1);
  EXPECT_EQ(printed_.rfind("nvidia-container-runtime-hook: read OCI state from stdin: ", 0), 0u)
      << printed_;
  EXPECT_EQ(printed_.find('\n'), printed_.size() - 1) << "one line only";
}

TEST_F(Prestart, MissingConfigJsonFails) {
  EXPECT_EQ(run(state()), 1);
  EXPECT_NE(printed_.find("config.json"), std::string::npos) << printed_;
}

TEST_F(Prestart, SpecWithoutProcessOrRootFails) {
  dir_.write("config.json", R"({"ociVersion":"1.0.2","root":{"path":"rootfs"}})");
  EXPECT_EQ(run(state()), 1);
  EXPECT_NE(printed_.find("OCI spec field \"process\" is missing"), std::string::npos) << printed_;
  printed_.clear();
  dir_.write("config.json",
             R"({"ociVersion":"1.0.2","process":{"env":["NVIDIA_VISIBLE_DEVICES=0"]}})");
  EXPECT_EQ(run(state()), 1);
  EXPECT_NE(printed_.find("OCI spec field \"root\" is missing"), std::string::npos) << printed_;
  printed_.clear();
  dir_.write("config.json", R"({"process":{"env":[]},"root":{"path":"r"}})");
  EXPECT_EQ(run(state()), 1);
  EXPECT_NE(printed_.find("OCI spec field \"ociVersion\" is missing"), std::string::npos)
      << printed_;
  EXPECT_EQ(calls_, 0);
}

TEST(ContainerRootfs, ResolvesAgainstTheBundleAndCleans) {
  auto spec = [](const std::string& p) { return ordered_json{{"root", {{"path", p}}}}; };
  EXPECT_EQ(container_rootfs(spec("rootfs"), "/b"), "/b/rootfs");
  EXPECT_EQ(container_rootfs(spec("./rootfs/"), "/b"), "/b/rootfs");
  EXPECT_EQ(container_rootfs(spec("/abs/r//x/.."), "/b"), "/abs/r");
  EXPECT_EQ(container_rootfs(spec("../other"), "/b/c"), "/b/other");
  EXPECT_EQ(container_rootfs(spec("."), "/b"), "/b");
}

TEST(ContainerRootfs, RealPathOfTheBundleAndNoSymlinkInRootPath) {
  namespace fs = std::filesystem;
  TempDir tmp;
  fs::path dir = tmp.path();
  auto spec = [](const std::string& p) { return ordered_json{{"root", {{"path", p}}}}; };
  fs::create_directories(dir / "real-bundle/rootfs");
  fs::create_directories(dir / "host-dir");
  // A symlinked bundle is fine (runc works from the bundle's real path, as getcwd gives it).
  fs::create_directory_symlink(dir / "real-bundle", dir / "bundle-link");
  std::string real = fs::canonical(dir / "real-bundle").string();
  EXPECT_EQ(real_container_rootfs(spec("rootfs"), (dir / "bundle-link").string()),
            real + "/rootfs");
  // root.path through a link, relative or absolute, is refused.
  fs::create_directory_symlink(dir / "host-dir", dir / "real-bundle/linked");
  auto linked = real_container_rootfs(spec("linked"), (dir / "real-bundle").string());
  ASSERT_FALSE(linked);
  EXPECT_EQ(linked.error().code(), ELOOP);
  EXPECT_NE(linked.error().message().find("must not go through a symbolic link"),
            std::string::npos)
      << linked.error().message();
  EXPECT_FALSE(real_container_rootfs(spec((dir / "bundle-link/rootfs").string()),
                                     (dir / "real-bundle").string()));
  EXPECT_EQ(real_container_rootfs(spec(real + "/rootfs"), "/"), real + "/rootfs");
  // A missing root is an error naming it.
  auto missing = real_container_rootfs(spec("nope"), (dir / "real-bundle").string());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("nope"), std::string::npos);
}

TEST(ContainerRootfs, HostRootAndEmptyPathAreRefused) {
  auto spec = [](const std::string& p) { return ordered_json{{"root", {{"path", p}}}}; };
  EXPECT_FALSE(container_rootfs(spec("/"), "/b"));
  EXPECT_FALSE(container_rootfs(spec("../.."), "/b"));
  EXPECT_FALSE(container_rootfs(spec(""), "/b"));
  EXPECT_FALSE(container_rootfs(ordered_json{{"root", ordered_json::object()}}, "/b"));
}

TEST(HookConfig, ExplicitConfigMustExist) {
  TempDir dir;
  auto cfg = load_hook_config(dir / "missing.toml");
  ASSERT_FALSE(cfg);
  EXPECT_NE(cfg.error().message().find("load config"), std::string::npos);
}

TEST(HookConfig, ExplicitConfigIsRead) {
  TempDir dir;
  auto path = dir.write("c.toml", "[nvidia-container-cli]\nroot = \"/driver\"\n");
  auto cfg = load_hook_config(path);
  ASSERT_TRUE(cfg) << cfg.error().message();
  EXPECT_EQ(cfg->cli.root, "/driver");
}

TEST(HookConfig, SupportedCapabilitiesAreValidated) {
  TempDir dir;
  auto bad =
      dir.write("bad.toml", "supported-driver-capabilities = \"compute,utility,not-compute\"\n");
  EXPECT_FALSE(load_hook_config(bad));
  auto empty = dir.write("empty.toml", "supported-driver-capabilities = \"\"\n");
  EXPECT_TRUE(load_hook_config(empty));
  auto all = dir.write("all.toml", "supported-driver-capabilities = \"all\"\n");
  EXPECT_TRUE(load_hook_config(all));
}

}  // namespace
}  // namespace nvct::hook
