#include "nvct/ctk/command_runner.hpp"

#include <gtest/gtest.h>

namespace nvct::ctk {
namespace {

TEST(ProcessRunner, CapturesStdoutAndExitStatus) {
  ProcessRunner runner;
  auto r = runner.run({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->exit_status, 3);
}

TEST(ProcessRunner, LooksUpBareNamesInPath) {
  ProcessRunner runner;
  auto r = runner.run({"sh", "-c", "printf ok"});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->out, "ok");
  EXPECT_EQ(r->exit_status, 0);
}

TEST(ProcessRunner, MissingProgramIsAnError) {
  ProcessRunner runner;
  auto r = runner.run({"/nonexistent/nvct-no-such-program", "x"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ENOENT);
  EXPECT_NE(r.error().message().find("nvct-no-such-program"), std::string::npos);
}

TEST(ProcessRunner, SignalledChildReportsSignalStatus) {
  ProcessRunner runner;
  auto r = runner.run({"/bin/sh", "-c", "kill -9 $$"});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->exit_status, 128 + 9);
}

}  // namespace
}  // namespace nvct::ctk
