// A process stopped by SIGINT/SIGTERM/SIGHUP/SIGQUIT removes the files it registered (lock and
// temporary files), keeps the others, and still dies of that signal.
#include "nvct/base/signal_cleanup.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "nvct/testing/temp_dir.hpp"

namespace nvct {
namespace {

// Runs `body` in a child with default signal dispositions; returns its wait status.
template <typename F>
int in_child(F body) {
  pid_t pid = ::fork();
  if (pid == 0) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::signal(sig, SIG_DFL);
    body();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(CleanupOnSignal, RegisteredFilesGoAndTheProcessDiesOfTheSignal) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    nvct::testing::TempDir dir;
    std::string lock = dir.write(".daemon.json.lock", "");
    dir.write(".daemon.json.Ab12Cd", "{}");
    dir.write("daemon.json", "{}");
    int status = in_child([&] {
      int dfd = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
      CleanupOnSignal a(AT_FDCWD, lock);
      CleanupOnSignal b(dfd, ".daemon.json.Ab12Cd");
      ::raise(sig);
    });
    ASSERT_TRUE(WIFSIGNALED(status)) << "signal " << sig;
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_FALSE(std::filesystem::exists(lock)) << "signal " << sig;
    EXPECT_FALSE(std::filesystem::exists(dir / ".daemon.json.Ab12Cd")) << "signal " << sig;
    EXPECT_TRUE(std::filesystem::exists(dir / "daemon.json")) << "signal " << sig;
  }
}

TEST(CleanupOnSignal, ReleasedFilesStay) {
  nvct::testing::TempDir dir;
  std::string kept = dir.write("renamed-already", "");
  int status = in_child([&] {
    CleanupOnSignal a(AT_FDCWD, kept);
    a.release();
    ::raise(SIGTERM);
  });
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(std::filesystem::exists(kept));
}

TEST(CleanupOnSignal, AnIgnoredSignalStaysIgnored) {
  nvct::testing::TempDir dir;
  std::string file = dir.write("f", "");
  int status = in_child([&] {
    ::signal(SIGTERM, SIG_IGN);
    CleanupOnSignal a(AT_FDCWD, file);
    ::raise(SIGTERM);  // still ignored: the child goes on and exits 0
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(std::filesystem::exists(file));
}

}  // namespace
}  // namespace nvct
