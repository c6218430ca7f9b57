#include "nvct/ctk/command_runner.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvct/base/file.hpp"
#include "nvct/base/unique_fd.hpp"

extern char** environ;

namespace nvct::ctk {

Result<CommandOutput> ProcessRunner::run(const std::vector<std::string>& argv) {
  if (argv.empty()) return fail(EINVAL, "run: empty command line");
  const std::string what = fmt::format("run {}", fmt::join(argv, " "));
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return fail_errno(fmt::format("{}: pipe", what));
  unique_fd read_end(fds[0]);
  unique_fd write_end(fds[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return fail_errno(what, rc);
  write_end.reset();

  auto out = read_fd(read_end.get());
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return fail_errno(fmt::format("{}: wait", what));
  }
  if (!out) return tl::unexpected(out.error().context(what));
  CommandOutput result;
  result.out = std::move(*out);
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  // posix_spawnp reports a missing program as exit 127 from the child on glibc.
  if (result.exit_status == 127 && result.out.empty())
    return fail(ENOENT, fmt::format("{}: program not found or not executable", what));
  return result;
}

}  // namespace nvct::ctk
