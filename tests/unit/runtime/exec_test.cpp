#include "nvct/runtime/exec.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace nvct::runtime {
namespace {

TEST(RuntimeArgv, ReplacesArgvZeroAndKeepsTheRestVerbatim) {
  const char* argv[] = {"nvidia-container-runtime",
                        "--root",
                        "/run/x",
                        "create",
                        "--bundle",
                        "/b",
                        "--pid-file",
                        "rel.pid",
                        "id"};
  auto out = runtime_argv("/usr/bin/runc", 9, argv);
  std::vector<std::string> want = {"/usr/bin/runc", "--root",  "/run/x", "create", "--bundle", "/b",
                                   "--pid-file",    "rel.pid", "id"};
  EXPECT_EQ(out, want);
}

TEST(RuntimeArgv, NoArgumentsGivesOnlyTheRuntime) {
  const char* argv[] = {"shim"};
  EXPECT_EQ(runtime_argv("/usr/bin/runc", 1, argv), std::vector<std::string>{"/usr/bin/runc"});
}

TEST(ExecRuntime, MissingBinaryReturnsAnErrorNamingIt) {
  auto r = exec_runtime("/nonexistent/runc", {"/nonexistent/runc"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ENOENT);
  EXPECT_NE(r.error().message().find("/nonexistent/runc"), std::string::npos);
}

TEST(ExecRuntime, ReplacesTheProcessKeepingThePid) {
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::dup2(pipefd[1], 1);
    // The shell prints its own pid ($$), which must be the pid fork() returned.
    (void)exec_runtime("/bin/sh", {"/bin/sh", "-c", "echo $$"});
    ::_exit(127);
  }
  ::close(pipefd[1]);
  char buf[64] = {};
  ssize_t n = ::read(pipefd[0], buf, sizeof buf - 1);
  ::close(pipefd[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::atoi(buf), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace nvct::runtime
