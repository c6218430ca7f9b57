#include "nvct/ctk/system_ops.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "nvct/driver/device_nodes.hpp"

namespace nvct::ctk {
namespace {
constexpr const char* kModprobe = "/sbin/modprobe";
}  // namespace

Result<struct stat> RealSystemOps::stat(const driver::DriverRoot& root, const std::string& path) {
  return root.stat(path);
}

Status RealSystemOps::mknod_char(const driver::DriverRoot& root, const std::string& path,
                                 unsigned major, unsigned minor, mode_t mode) {
  driver::DeviceFileParams params;
  params.mode = mode;
  return driver::create_char_device(root, path, major, minor, params);
}

bool RealSystemOps::modprobe_available(const driver::DriverRoot& root) {
  auto st = root.stat(kModprobe);
  return st && S_ISREG(st->st_mode) && (st->st_mode & 0111) != 0;
}

Status RealSystemOps::modprobe(const driver::DriverRoot& root, const std::string& module) {
  // The child only chroots and execs; nothing else crosses the fork.
  std::string root_path = root.path();
  pid_t pid = ::fork();
  if (pid < 0) return fail_errno("fork for modprobe " + module);
  if (pid == 0) {
    if (root_path != "/" && (::chroot(root_path.c_str()) != 0 || ::chdir("/") != 0)) _exit(126);
    const char* argv[] = {"modprobe", module.c_str(), nullptr};
    const char* envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", nullptr};
    ::execve(kModprobe, const_cast<char**>(argv), const_cast<char**>(envp));
    _exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return fail_errno("wait for modprobe " + module);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return ok();
  if (WIFEXITED(status))
    return fail(EIO, fmt::format("modprobe {} in {} exited with status {}", module, root_path,
                                 WEXITSTATUS(status)));
  return fail(EIO, fmt::format("modprobe {} in {} was killed by signal {}", module, root_path,
                               WTERMSIG(status)));
}

bool RealSystemOps::in_user_namespace() { return driver::in_user_namespace(); }

}  // namespace nvct::ctk
