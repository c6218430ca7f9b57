#include "nvct/driver/nvml_helper.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <climits>
#include <cstring>
#include <thread>

#include "nvct/base/program_path.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct::driver {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxReply = 4u << 20;
constexpr std::size_t kMaxStderr = 4096;

Result<unsigned> parse_id(std::string_view text, std::string_view what) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return fail(EINVAL, fmt::format("invalid {} in --user: \"{}\"", what, text));
  return value;
}

Result<NvmlUser> parse_user(std::string_view text) {
  auto colon = text.find(':');
  if (colon == std::string_view::npos)
    return fail(EINVAL, fmt::format("--user must be <uid>:<gid>, got \"{}\"", text));
  NVCT_ASSIGN_OR_RETURN(unsigned uid, parse_id(text.substr(0, colon), "uid"));
  NVCT_ASSIGN_OR_RETURN(unsigned gid, parse_id(text.substr(colon + 1), "gid"));
  return NvmlUser{uid, gid};
}

// Why `path` may not be run as the helper, or "" when it may.
std::string refusal(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return errno == ENOENT ? "missing" : std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if ((st.st_mode & S_IXUSR) == 0) return "not executable";
  if (st.st_uid != 0 && st.st_uid != ::geteuid()) return fmt::format("owned by uid {}", st.st_uid);
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) return "writable by group or others";
  return "";
}

// fds 0..2 of the helper: /dev/null, the reply pipe, the stderr pipe; nothing else survives exec.
// Only async-signal-safe calls: the parent may have threads.
[[noreturn]] void exec_child(const char* path, char* const argv[], int null_fd, int out_fd,
                             int err_fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Move the sources above 2 first, so that none of them is overwritten by a dup2 below.
  int src[3] = {::fcntl(null_fd, F_DUPFD, 3), ::fcntl(out_fd, F_DUPFD, 3),
                ::fcntl(err_fd, F_DUPFD, 3)};
  for (int target = 0; target < 3; ++target) {
    if (src[target] < 0 || ::dup2(src[target], target) != target) _exit(127);
  }
  if (::close_range(3, UINT_MAX, 0) != 0) {
    for (int fd = 3; fd < 65536; ++fd) ::close(fd);
  }
  char* const envp[] = {nullptr};
  ::execve(path, argv, envp);
  static const char kMsg[] = "exec of the NVML helper failed\n";
  (void)!::write(2, kMsg, sizeof kMsg - 1);
  _exit(127);
}

// Reads both pipes until EOF on both or the deadline. false: the deadline passed.
Result<bool> drain(int out_fd, int err_fd, Clock::time_point deadline, std::string& out,
                   std::string& err) {
  struct pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    int n = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, INT_MAX)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail_errno("poll the NVML helper");
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[8192];
      ssize_t r = ::read(fds[i].fd, buf, sizeof buf);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return fail_errno("read from the NVML helper");
      if (r == 0) {
        fds[i].fd = -1;
        continue;
      }
      std::string& into = i == 0 ? out : err;
      std::size_t cap = i == 0 ? kMaxReply + 1 : kMaxStderr;
      into.append(buf, std::min(static_cast<std::size_t>(r), cap - std::min(cap, into.size())));
    }
  }
  return true;
}

// Waits for the helper until the deadline, then kills it. nullopt: it had to be killed.
std::optional<int> reap(pid_t pid, Clock::time_point deadline) {
  int wstatus = 0;
  for (;;) {
    pid_t r = ::waitpid(pid, &wstatus, WNOHANG);
    if (r == pid) return wstatus;
    if (r < 0 && errno != EINTR) return wstatus;
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  return std::nullopt;
}

std::string first_line(std::string_view text) {
  auto line = strings::trim(text.substr(0, text.find('\n')));
  return line.empty() ? "no message" : std::string(line);
}

}  // namespace

std::vector<std::string> nvml_helper_argv(const std::string& helper,
                                          const NvmlProcessOptions& options) {
  std::vector<std::string> argv{helper, "--root", options.root, "--library", options.library};
  if (options.user) {
    argv.push_back("--user");
    argv.push_back(fmt::format("{}:{}", options.user->uid, options.user->gid));
  }
  return argv;
}

Result<NvmlProcessOptions> parse_nvml_helper_args(const std::vector<std::string>& args) {
  NvmlProcessOptions o;
  bool have_root = false, have_library = false;
  for (std::size_t i = 0; i < args.size(); i += 2) {
    const std::string& name = args[i];
    if (name != "--root" && name != "--library" && name != "--user")
      return fail(EINVAL, fmt::format("unknown argument \"{}\"", name));
    if (i + 1 >= args.size()) return fail(EINVAL, fmt::format("{} needs a value", name));
    const std::string& value = args[i + 1];
    if (name == "--user") {
      if (o.user) return fail(EINVAL, "--user given twice");
      NVCT_ASSIGN_OR_RETURN(o.user, parse_user(value));
      continue;
    }
    bool& seen = name == "--root" ? have_root : have_library;
    if (seen) return fail(EINVAL, fmt::format("{} given twice", name));
    if (!strings::starts_with(value, "/"))
      return fail(EINVAL, fmt::format("{} must be an absolute path, got \"{}\"", name, value));
    seen = true;
    (name == "--root" ? o.root : o.library) = value;
  }
  if (!have_root) return fail(EINVAL, "--root is required");
  if (!have_library) return fail(EINVAL, "--library is required");
  return o;
}

std::vector<std::string> nvml_helper_search_dirs(const std::string& helper_dir,
                                                 const std::string& self_dir) {
  // No PATH: the helper is internal to the shim, which trusts only its own install.
  return program_search_dirs(self_dir, "", helper_dir);
}

Result<std::string> find_nvml_helper(const std::vector<std::string>& dirs) {
  std::vector<std::string> tried;
  for (const auto& dir : dirs) {
    std::string path = (dir == "/" ? "" : dir) + "/" + std::string(kNvmlHelperName);
    std::string why = refusal(path);
    if (why.empty()) return path;
    tried.push_back(fmt::format("{} ({})", path, why));
  }
  return fail(ENOENT,
              fmt::format("no usable NVML helper {}: {}", kNvmlHelperName,
                          tried.empty() ? "no directory to search" : strings::join(tried, ", ")));
}

namespace {

struct HelperReply {
  int exit_code = 0;
  std::string text;
};

// Runs the helper with `args` (args[0] = helper) and collects its reply: a kill, a timeout or an
// exit status other than ok/query-failed is an error naming the helper.
Result<HelperReply> run_helper(const std::string& helper, std::vector<std::string> args,
                               int timeout_ms) {
  if (!strings::starts_with(helper, "/"))
    return fail(EINVAL, fmt::format("NVML helper path \"{}\" is not absolute", helper));
  // Everything the child needs is built before fork.
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  unique_fd null_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null_fd) return fail_errno("open /dev/null for the NVML helper");
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return fail_errno("create pipe for the NVML helper");
  unique_fd out_rd(out[0]), out_wr(out[1]);
  if (::pipe2(err, O_CLOEXEC) != 0) return fail_errno("create pipe for the NVML helper");
  unique_fd err_rd(err[0]), err_wr(err[1]);

  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  pid_t pid = ::fork();
  if (pid < 0) return fail_errno("fork the NVML helper");
  if (pid == 0) exec_child(helper.c_str(), argv.data(), null_fd.get(), out_wr.get(), err_wr.get());
  out_wr.reset();
  err_wr.reset();

  HelperReply reply;
  std::string diag;
  auto drained = drain(out_rd.get(), err_rd.get(), deadline, reply.text, diag);
  // A read error or the deadline: nothing more is waited for.
  auto status = reap(pid, drained && *drained ? deadline : Clock::now());
  if (!drained) return tl::unexpected(drained.error());
  if (!*drained || !status)
    return fail(ETIMEDOUT, fmt::format("nvml error: the NVML helper {} timed out after {} ms",
                                       helper, timeout_ms));
  if (reply.text.size() > kMaxReply)
    return fail(EFBIG, fmt::format("reply of the NVML helper {} is too large", helper));
  int ws = *status;
  if (WIFSIGNALED(ws))
    return fail(EIO, fmt::format("the NVML helper {} was killed by signal {}: {}", helper,
                                 WTERMSIG(ws), first_line(diag)));
  reply.exit_code = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
  if (reply.exit_code != kNvmlHelperOk && reply.exit_code != kNvmlHelperQueryFailed)
    return fail(EIO, fmt::format("the NVML helper {} exited with status {}: {}", helper,
                                 reply.exit_code, first_line(diag)));
  return reply;
}

}  // namespace

Result<NvmlFacts> query_nvml_through_helper(const std::string& helper,
                                            const NvmlProcessOptions& options) {
  NVCT_ASSIGN_OR_RETURN(auto reply,
                        run_helper(helper, nvml_helper_argv(helper, options), options.timeout_ms));
  auto facts = decode_nvml_result(reply.text);
  if (!facts && facts.error().code() == EPROTO)
    return fail(EPROTO, fmt::format("malformed reply from the NVML helper {} (exit status {})",
                                    helper, reply.exit_code));
  return facts;
}

std::vector<std::string> cuda_helper_argv(const std::string& helper,
                                          const NvmlProcessOptions& options) {
  auto argv = nvml_helper_argv(helper, options);
  argv.insert(argv.begin() + 1, {"--query", "cuda"});
  return argv;
}

Result<HelperRequest> parse_helper_request(const std::vector<std::string>& args) {
  HelperRequest request;
  std::vector<std::string> rest;
  bool have_query = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    // Option values are never "--query": every option takes one, so pairs stay aligned.
    if (args[i] != "--query" || i % 2 != 0) {
      rest.push_back(args[i]);
      continue;
    }
    if (have_query) return fail(EINVAL, "--query given twice");
    if (i + 1 >= args.size()) return fail(EINVAL, "--query needs a value");
    const std::string& value = args[++i];
    if (value == "nvml") {
      request.query = HelperQuery::kNvml;
    } else if (value == "cuda") {
      request.query = HelperQuery::kCuda;
    } else {
      return fail(EINVAL, fmt::format("--query must be nvml or cuda, got \"{}\"", value));
    }
    have_query = true;
  }
  NVCT_ASSIGN_OR_RETURN(request.options, parse_nvml_helper_args(rest));
  return request;
}

Result<CudaDriverFacts> query_cuda_through_helper(const std::string& helper,
                                                  const NvmlProcessOptions& options) {
  NVCT_ASSIGN_OR_RETURN(auto reply,
                        run_helper(helper, cuda_helper_argv(helper, options), options.timeout_ms));
  auto facts = decode_cuda_result(reply.text);
  if (!facts && facts.error().code() == EPROTO)
    return fail(EPROTO, fmt::format("malformed CUDA reply from the NVML helper {} (exit status {})",
                                    helper, reply.exit_code));
  return facts;
}

NvmlProcessRunner nvml_helper_runner(std::vector<std::string> search_dirs) {
  return [dirs = std::move(search_dirs)](const NvmlProcessOptions& o) -> Result<NvmlFacts> {
    NVCT_ASSIGN_OR_RETURN(std::string helper, find_nvml_helper(dirs));
    return query_nvml_through_helper(helper, o);
  };
}

}  // namespace nvct::driver
