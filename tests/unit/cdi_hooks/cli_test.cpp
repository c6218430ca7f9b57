#include "nvct/cdi_hooks/cli.hpp"

#include <memory>

#include "hook_fixture.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::cdi_hooks {
namespace {

using nvct::testing::MemorySink;

struct CliRun {
  int parse_code = 0;  // CLI11's exit code for parse errors, 0 when parsing succeeded
  int exit_code = 0;   // the hooks' outcome
};

CliRun run_cli(std::vector<std::string> args) {
  CLI::App app("test", "nvidia-cdi-hook");
  CliRun out;
  add_hook_subcommands(app, out.exit_code);
  std::vector<const char*> argv = {"nvidia-cdi-hook"};
  for (auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    out.parse_code = e.get_exit_code();
  }
  return out;
}

class HookCli : public ::testing::Test {
 protected:
  void SetUp() override {
    sink_ = std::make_shared<MemorySink>();
    log::set_sink(sink_);
    log::set_level(log::Level::kDebug);
  }
  void TearDown() override { log::set_sink(nullptr); }
  // A bundle whose config.json points at the sandbox rootfs, and a state file naming it.
  std::string state_file() {
    sb_.write("bundle/config.json",
              R"({"ociVersion":"1.0.2","root":{"path":")" + sb_.rootfs() +
                  R"("},"process":{"env":["LD_PRELOAD=/proc/self/cwd/poc.so"]},)"
                  R"("linux":{"devices":[{"path":"/dev/nvidia1"}]}})");
    return sb_.write("state.json", R"({"ociVersion":"1.0.2","id":"c","status":"creating",)"
                                   R"("pid":1,"bundle":")" +
                                       sb_.path("bundle") + "\"}");
  }
  std::shared_ptr<MemorySink> sink_;
  mount::testing::Sandbox sb_;
};

TEST_F(HookCli, UnknownHookWarnsAndSucceeds) {
  auto r = run_cli({"future-hook", "--some-flag", "x"});
  EXPECT_EQ(r.parse_code, 0);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(sink_->contains("Unsupported CDI hook: future-hook"));
}

TEST_F(HookCli, NoHookWarnsAndSucceeds) {
  auto r = run_cli({});
  EXPECT_EQ(r.parse_code, 0);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(sink_->contains("No CDI hook specified"));
}

TEST_F(HookCli, NoopAcceptsAnything) {
  auto r = run_cli({"noop", "--whatever"});
  EXPECT_EQ(r.parse_code, 0);
  EXPECT_EQ(r.exit_code, 0);
}

TEST_F(HookCli, ChmodWithoutModeIsAParseError) {
  auto r = run_cli({"chmod", "--path", "/dev/nvidia-caps"});
  EXPECT_NE(r.parse_code, 0);
}

TEST_F(HookCli, CreateSymlinksRunsAgainstTheStatesContainerRoot) {
  auto r = run_cli({"create-symlinks", "--link", "libcuda.so.1::/lib/libcuda.so",
                    "--container-spec", state_file()});
  ASSERT_EQ(r.parse_code, 0);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(testing::readlink_of(sb_.path("rootfs/lib/libcuda.so")), "libcuda.so.1");
}

TEST_F(HookCli, UpdateApplicationProfileReadsTheBundleSpec) {
  auto r = run_cli({"update-application-profile", "--container-spec", state_file()});
  ASSERT_EQ(r.parse_code, 0);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(sb_.exists("rootfs/etc/nvidia/nvidia-application-profiles-rc.d/10-container.conf"));
}

TEST_F(HookCli, AFailingHookLogsTheErrorAndExitsOne) {
  auto r = run_cli({"create-symlinks", "--link", "bad", "--container-spec", state_file()});
  ASSERT_EQ(r.parse_code, 0);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(sink_->contains("invalid symlink specification bad"));
}

TEST_F(HookCli, AStateWithoutAUsableRootFails) {
  std::string state = sb_.write("s.json", R"({"ociVersion":"1","id":"c","status":"creating",)"
                                          R"("bundle":"/nonexistent-bundle"})");
  auto r = run_cli({"update-ldcache", "--folder", "/x", "--container-spec", state});
  EXPECT_EQ(r.exit_code, 1);
}

}  // namespace
}  // namespace nvct::cdi_hooks
