#include "nvct/mount/seccomp_allow_list.hpp"

#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace nvct::mount {
namespace {

// Runs `body` in a forked child under the filter; the child's exit status is body's return.
int run_filtered(scmp_filter_ctx filter, int (*body)()) {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || seccomp_load(filter) != 0) ::_exit(100);
    ::_exit(body());
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 200 + WTERMSIG(status);
}

TEST(SeccompAllowList, ListedSyscallsRunOthersFailWithEnosys) {
  static constexpr const char* kNames[] = {"getpid", "exit", "exit_group"};
  scmp_filter_ctx filter = seccomp_allow_list(kNames);
  ASSERT_NE(filter, nullptr);
  // getpid is allowed; getppid is not: ENOSYS, and the child lives on to report it.
  EXPECT_EQ(run_filtered(filter,
                         [] {
                           if (::syscall(SYS_getpid) <= 0) return 1;
                           errno = 0;
                           if (::syscall(SYS_getppid) != -1 || errno != ENOSYS) return 2;
                           return 0;
                         }),
            0);
  seccomp_release(filter);
}

TEST(SeccompAllowList, NamesUnknownOnThisArchitectureAreSkipped) {
  static constexpr const char* kNames[] = {"exit", "exit_group", "no_such_syscall_anywhere",
                                           "getpid"};
  scmp_filter_ctx filter = seccomp_allow_list(kNames);
  ASSERT_NE(filter, nullptr);
  EXPECT_EQ(run_filtered(filter, [] { return ::syscall(SYS_getpid) > 0 ? 0 : 1; }), 0);
  seccomp_release(filter);
}

}  // namespace
}  // namespace nvct::mount
