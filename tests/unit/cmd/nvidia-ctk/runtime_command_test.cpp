// `nvidia-ctk runtime configure` flag names, aliases and defaults (spec/ctk.md §4), parsed by the
// real CLI11 wiring and run against temporary files.
#include "runtime_command.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "nvct/base/log.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::cmd::nvidia_ctk {
namespace {

using nvct::testing::TempDir;

// Parses `nvidia-ctk <args...>` with the runtime command; returns the exit code it would have.
int run_cli(std::vector<std::string> args) {
  CLI::App app("test", "nvidia-ctk");
  GlobalOptions globals;
  add_runtime_command(app, globals);
  // CLI11's vector form takes the arguments without argv[0], in reverse order.
  std::vector<std::string> rev(args.rbegin(), args.rend());
  try {
    app.parse(rev);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  log::set_sink(nullptr);
  return globals.exit_code;
}

// An executable file at dir/<rel> (the configured programs must exist).
std::string program(const TempDir& dir, const std::string& rel) {
  auto path = dir.write(rel, "#!/bin/sh\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

// PATH set to `value` for one test (docker's default runtime is looked up in PATH).
class ScopedPath {
 public:
  explicit ScopedPath(const std::string& value) {
    if (const char* old = std::getenv("PATH")) old_ = old;
    ::setenv("PATH", value.c_str(), 1);
  }
  ~ScopedPath() { ::setenv("PATH", old_.c_str(), 1); }
  ScopedPath(const ScopedPath&) = delete;
  ScopedPath& operator=(const ScopedPath&) = delete;

 private:
  std::string old_;
};

TEST(RuntimeCommand, DockerFlagsAndAliasesReachTheFile) {
  TempDir dir;
  auto path = dir.write("daemon.json", "{}");
  auto runtime = program(dir, "opt/nv-runtime");
  ASSERT_EQ(run_cli({"runtime", "configure", "--config", path, "--nvidia-runtime-name", "nv",
                     "--runtime-path", runtime, "--set-as-default", "--enable-cdi"}),
            0);
  auto doc = nlohmann::json::parse(dir.read("daemon.json"));
  EXPECT_EQ(doc["runtimes"]["nv"]["path"], runtime);
  EXPECT_EQ(doc["default-runtime"], "nv");
  EXPECT_EQ(doc["features"]["cdi"], true);
}

TEST(RuntimeCommand, LongFlagNamesAreAccepted) {
  TempDir dir;
  auto path = dir.write("daemon.json", "{}");
  auto runtime = program(dir, "p");
  ScopedPath on_path(dir / "bin");
  program(dir, "bin/nvidia-container-runtime");
  ASSERT_EQ(run_cli({"runtime", "configure", "--runtime=docker", "--config=" + path,
                     "--nvidia-runtime-path=" + runtime, "--nvidia-set-as-default", "--cdi.enabled",
                     "--nvidia-runtime-hook-path=/usr/bin/h", "--config-mode=config-file",
                     "--config-source=file"}),
            0);
  auto doc = nlohmann::json::parse(dir.read("daemon.json"));
  EXPECT_EQ(doc["runtimes"]["nvidia"]["path"], runtime);
  EXPECT_EQ(doc["default-runtime"], "nvidia");
  EXPECT_EQ(doc["features"]["cdi"], true);
  ASSERT_EQ(run_cli({"runtime", "configure", "--config", path, "--cdi.enable"}), 0);
}

TEST(RuntimeCommand, EmptyDropInEditsTheContainerdFileInPlace) {
  TempDir dir;
  auto path = dir.write("config.toml", "version = 2\n");
  auto runtime = program(dir, "bin/nvidia-container-runtime");
  ASSERT_EQ(run_cli({"runtime", "configure", "--runtime", "containerd", "--config", path,
                     "--drop-in-config", "", "--nvidia-runtime-path", runtime}),
            0);
  EXPECT_NE(dir.read("config.toml").find("BinaryName = \"" + runtime + "\""), std::string::npos);
}

TEST(RuntimeCommand, ContainerdDropInFlag) {
  TempDir dir;
  auto path = dir.write("config.toml", "version = 2\n");
  ASSERT_EQ(run_cli({"runtime", "configure", "--runtime", "containerd", "--config", path,
                     "--drop-in-config", dir / "conf.d/99-nvidia.toml", "--nvidia-runtime-path",
                     program(dir, "bin/nvidia-container-runtime")}),
            0);
  EXPECT_EQ(dir.read("config.toml"),
            "imports = [\"" + dir.path() + "/conf.d/*.toml\"]\nversion = 2\n");
}

TEST(RuntimeCommand, ErrorsExitOne) {
  TempDir dir;
  EXPECT_EQ(run_cli({"runtime", "configure", "--runtime", "foo"}), 1);
  EXPECT_EQ(run_cli({"runtime", "configure", "--drop-in-config", dir / "x.json", "--config",
                     dir / "daemon.json"}),
            1);
  EXPECT_EQ(run_cli({"runtime", "configure", "--no-such-flag"}), 1);
}

TEST(RuntimeCommand, RemoveUndoesConfigure) {
  TempDir dir;
  const std::string seed = "{\n    \"log-driver\": \"local\"\n}";
  auto path = dir.write("daemon.json", seed);
  {
    ScopedPath on_path(dir / "bin");
    program(dir, "bin/nvidia-container-runtime");
    ASSERT_EQ(run_cli({"runtime", "configure", "--config", path}), 0);
  }
  ASSERT_NE(dir.read("daemon.json"), seed);
  // The runtime need not exist for --remove (package removal runs it after the binaries went).
  std::filesystem::remove(dir / "bin/nvidia-container-runtime");
  ASSERT_EQ(run_cli({"runtime", "configure", "--remove", "--config", path}), 0);
  EXPECT_EQ(dir.read("daemon.json"), seed);
}

TEST(RuntimeCommand, MissingRuntimeIsAnErrorAndNothingIsWritten) {
  TempDir dir;
  auto daemon = dir.write("daemon.json", "{}");
  auto containerd = dir.write("config.toml", "version = 2\n");
  ScopedPath on_path(dir / "empty-bin");
  // docker: an absolute path, and the default bare name, which is not on PATH.
  EXPECT_EQ(run_cli({"runtime", "configure", "--config", daemon, "--nvidia-runtime-path",
                     dir / "no/nvidia-container-runtime"}),
            1);
  EXPECT_EQ(run_cli({"runtime", "configure", "--config", daemon}), 1);
  EXPECT_EQ(dir.read("daemon.json"), "{}");
  // containerd: the given path, and the default <bindir>/nvidia-container-runtime, when missing.
  EXPECT_EQ(run_cli({"runtime", "configure", "--runtime=containerd", "--config", containerd,
                     "--drop-in-config", dir / "conf.d/99-nvidia.toml", "--nvidia-runtime-path",
                     dir / "no/nvidia-container-runtime"}),
            1);
  EXPECT_EQ(dir.read("config.toml"), "version = 2\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "conf.d"));
  // oci-hook mode names the hook.
  EXPECT_EQ(run_cli({"runtime", "configure", "--runtime=crio", "--config-mode=oci-hook",
                     "--oci-hook-path", dir / "hooks.d/oci-nvidia-hook.json",
                     "--nvidia-runtime-hook-path", dir / "no/nvidia-container-runtime-hook"}),
            1);
  EXPECT_FALSE(std::filesystem::exists(dir / "hooks.d"));
}

TEST(RuntimeCommand, DryRunWithAMissingRuntimeWarnsAndPrints) {
  TempDir dir;
  ScopedPath on_path(dir / "empty-bin");
  ctk::ConfigureOptions o;
  o.config_path = dir / "daemon.json";
  o.dry_run = true;
  ctk::ProcessRunner runner;
  std::ostringstream out;
  ASSERT_TRUE(run_runtime_configure(o, runner, out));
  EXPECT_NE(out.str().find("\"path\": \"nvidia-container-runtime\""), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "daemon.json"));
}

TEST(RuntimeCommand, RemoveTakesTheDropInAndNameFlags) {
  TempDir dir;
  auto config = dir.write("config.toml", "version = 2\n");
  auto drop_in = dir / "conf.d/99-nvidia.toml";
  ASSERT_EQ(run_cli({"runtime", "configure", "--runtime=containerd", "--config", config,
                     "--drop-in-config", drop_in, "--nvidia-runtime-name", "nv",
                     "--nvidia-runtime-path", program(dir, "bin/nvidia-container-runtime")}),
            0);
  ASSERT_TRUE(std::filesystem::exists(drop_in));
  // Another name: not ours to remove.
  ASSERT_EQ(run_cli({"runtime", "configure", "--remove", "--runtime=containerd", "--config", config,
                     "--drop-in-config", drop_in}),
            0);
  EXPECT_TRUE(std::filesystem::exists(drop_in));
  ASSERT_EQ(run_cli({"runtime", "configure", "--remove", "--runtime=containerd", "--config", config,
                     "--drop-in-config=" + drop_in, "--nvidia-runtime-name=nv"}),
            0);
  EXPECT_FALSE(std::filesystem::exists(drop_in));
  EXPECT_EQ(dir.read("config.toml"),
            "imports = [\"" + dir.path() + "/conf.d/*.toml\"]\nversion = 2\n");
}

TEST(RuntimeCommand, RemoveWithSetAsDefaultExitsOne) {
  TempDir dir;
  auto path = dir.write("daemon.json", "{}");
  EXPECT_EQ(run_cli({"runtime", "configure", "--remove", "--set-as-default", "--config", path}), 1);
  EXPECT_EQ(dir.read("daemon.json"), "{}");
}

TEST(RuntimeCommand, HelpDescribesRemove) {
  CLI::App app("test", "nvidia-ctk");
  GlobalOptions globals;
  add_runtime_command(app, globals);
  std::string help = app.get_subcommand("runtime")->get_subcommand("configure")->help();
  EXPECT_NE(help.find("--remove"), std::string::npos) << help;
  EXPECT_NE(help.find("nvidia-container-runtime[.cdi|.legacy]"), std::string::npos) << help;
}

TEST(RuntimeCommand, RunPrintsDryRunOutput) {
  TempDir dir;
  ctk::ConfigureOptions o;
  o.config_path = dir / "daemon.json";
  o.dry_run = true;
  ctk::ProcessRunner runner;
  std::ostringstream out;
  ASSERT_TRUE(run_runtime_configure(o, runner, out));
  EXPECT_EQ(out.str(),
            "{\n    \"runtimes\": {\n        \"nvidia\": {\n            \"args\": [],\n"
            "            \"path\": \"nvidia-container-runtime\"\n        }\n    }\n}\n");
}

}  // namespace
}  // namespace nvct::cmd::nvidia_ctk
