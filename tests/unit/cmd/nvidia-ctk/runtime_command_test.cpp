// `nvidia-ctk runtime configure` flag names, aliases and defaults (spec/ctk.md §4), parsed by the
// real CLI11 wiring and run against temporary files.
#include "runtime_command.hpp"

#include <gtest/gtest.h>

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

TEST(RuntimeCommand, DockerFlagsAndAliasesReachTheFile) {
  TempDir dir;
  auto path = dir.write("daemon.json", "{}");
  ASSERT_EQ(run_cli({"runtime", "configure", "--config", path, "--nvidia-runtime-name", "nv",
                     "--runtime-path", "/opt/nv-runtime", "--set-as-default", "--enable-cdi"}),
            0);
  auto doc = nlohmann::json::parse(dir.read("daemon.json"));
  EXPECT_EQ(doc["runtimes"]["nv"]["path"], "/opt/nv-runtime");
  EXPECT_EQ(doc["default-runtime"], "nv");
  EXPECT_EQ(doc["features"]["cdi"], true);
}

TEST(RuntimeCommand, LongFlagNamesAreAccepted) {
  TempDir dir;
  auto path = dir.write("daemon.json", "{}");
  ASSERT_EQ(run_cli({"runtime", "configure", "--runtime=docker", "--config=" + path,
                     "--nvidia-runtime-path=/p", "--nvidia-set-as-default", "--cdi.enabled",
                     "--nvidia-runtime-hook-path=/usr/bin/h", "--config-mode=config-file",
                     "--config-source=file"}),
            0);
  auto doc = nlohmann::json::parse(dir.read("daemon.json"));
  EXPECT_EQ(doc["runtimes"]["nvidia"]["path"], "/p");
  EXPECT_EQ(doc["default-runtime"], "nvidia");
  EXPECT_EQ(doc["features"]["cdi"], true);
  ASSERT_EQ(run_cli({"runtime", "configure", "--config", path, "--cdi.enable"}), 0);
}

TEST(RuntimeCommand, EmptyDropInEditsTheContainerdFileInPlace) {
  TempDir dir;
  auto path = dir.write("config.toml", "version = 2\n");
  ASSERT_EQ(run_cli({"runtime", "configure", "--runtime", "containerd", "--config", path,
                     "--drop-in-config", ""}),
            0);
  EXPECT_NE(dir.read("config.toml").find("BinaryName = \"/usr/bin/nvidia-container-runtime\""),
            std::string::npos);
}

TEST(RuntimeCommand, ContainerdDropInFlag) {
  TempDir dir;
  auto path = dir.write("config.toml", "version = 2\n");
  ASSERT_EQ(run_cli({"runtime", "configure", "--runtime", "containerd", "--config", path,
                     "--drop-in-config", dir / "conf.d/99-nvidia.toml"}),
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
  ASSERT_EQ(run_cli({"runtime", "configure", "--config", path}), 0);
  ASSERT_NE(dir.read("daemon.json"), seed);
  ASSERT_EQ(run_cli({"runtime", "configure", "--remove", "--config", path}), 0);
  EXPECT_EQ(dir.read("daemon.json"), seed);
}

TEST(RuntimeCommand, RemoveTakesTheDropInAndNameFlags) {
  TempDir dir;
  auto config = dir.write("config.toml", "version = 2\n");
  auto drop_in = dir / "conf.d/99-nvidia.toml";
  ASSERT_EQ(run_cli({"runtime", "configure", "--runtime=containerd", "--config", config,
                     "--drop-in-config", drop_in, "--nvidia-runtime-name", "nv"}),
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
