// The native ld.so.cache writer's child (ldcache_writer.hpp): the image's ld.so.conf and ELF
// files are parsed in a forked process that joined the container's mount namespace, reopened
// the rootfs (same inode as the caller's), and holds no capability, the container owner's
// credentials, no_new_privs, rlimits and a seccomp allow-list. It reports "code message" on a
// CLOEXEC pipe. No exec, no pivot: every path is resolved by the kernel relative to the rootfs
// fd (openat2 RESOLVE_IN_ROOT), so nothing outside the rootfs is reachable by name.
#include <fcntl.h>
#include <fmt/format.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "nvct/base/log.hpp"
#include "nvct/mount/ldcache_writer.hpp"
#include "nvct/mount/seccomp_allow_list.hpp"

namespace nvct::mount {
namespace {

scmp_filter_ctx ldcache_filter() {
  static constexpr const char* kAllowed[] = {
      "read",           "write",      "close",      "openat",    "openat2",    "fstat",
      "newfstatat",     "statx",      "getdents64", "lseek",     "mmap",       "munmap",
      "mremap",         "brk",        "madvise",    "unlinkat",  "symlinkat",  "renameat",
      "renameat2",      "fchmod",     "fcntl",      "exit",      "exit_group", "rt_sigreturn",
      "rt_sigprocmask", "futex",      "mprotect",   "getrandom", "getpid",     "gettid",
      "clock_gettime",  "readlinkat", "readlink"};
  scmp_filter_ctx ctx = seccomp_allow_list(kAllowed);
  if (!ctx) return nullptr;
  // kill(pid, 0) only: the stale-temp sweep asks whether the writer named in a temp file's name
  // is still alive (remove_stale_temp_files); no signal can be sent.
  if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1, SCMP_A1(SCMP_CMP_EQ, 0)) != 0) {
    seccomp_release(ctx);
    return nullptr;
  }
  return ctx;
}

struct LdcacheChild {
  int report;   // write end of the report pipe
  int go_read;  // -1: start at once; else wait for one byte (cgroups joined)
  int nsfd;     // -1: stay in this mount namespace
  const char* root_path;
  dev_t root_dev;
  ino_t root_ino;
  uid_t uid;
  gid_t gid;
  scmp_filter_ctx filter;
  const std::vector<std::string>* folders;
  pid_t parent;
};

[[noreturn]] void ldcache_report_exit(int fd, int code, const std::string& message) {
  std::string text = fmt::format("{} {}", code, message);
  ssize_t ignored = ::write(fd, text.data(), text.size());
  (void)ignored;
  ::_exit(code == 0 ? 0 : 1);
}

// The writer dies with the hook (checklist #22/#24): SIGKILL when the parent goes, and an exit
// when it went before the signal was armed.
void ldcache_die_with_parent(pid_t parent) {
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || ::getppid() != parent) ::_exit(125);
}

[[noreturn]] void child_main(const LdcacheChild& c) {
  ldcache_die_with_parent(c.parent);
  auto die = [&](std::string_view step) {
    ldcache_report_exit(c.report, errno ? errno : EIO,
                        fmt::format("ldcache writer: {}: {}", step, std::strerror(errno)));
  };
  if (c.go_read >= 0) {
    char go = 0;
    if (::read(c.go_read, &go, 1) != 1) ::_exit(125);
  }
  if (c.nsfd >= 0 && ::setns(c.nsfd, CLONE_NEWNS) != 0) die("join the container mount namespace");
  auto root = Root::open(c.root_path);
  if (!root) ldcache_report_exit(c.report, root.error().code(), root.error().message());
  struct stat st {};
  if (::fstat(root->fd(), &st) != 0 || st.st_dev != c.root_dev || st.st_ino != c.root_ino) {
    errno = ESTALE;
    die("the rootfs in the container's mount namespace is not the one the hook checked");
  }
  const struct {
    int resource;
    rlim_t value;
  } kLimits[] = {{RLIMIT_CPU, 10}, {RLIMIT_NOFILE, 64}, {RLIMIT_FSIZE, 16ULL << 20}};
  for (auto l : kLimits) {
    struct rlimit r {
      l.value, l.value
    };
    if (::setrlimit(l.resource, &r) != 0) die("set rlimits");
  }
  if (::setgroups(1, &c.gid) != 0 || ::setresgid(c.gid, c.gid, c.gid) != 0 ||
      ::setresuid(c.uid, c.uid, c.uid) != 0)
    die("drop credentials");
  for (int cap = 0; cap <= CAP_LAST_CAP + 8; ++cap)
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) die("drop capabilities");
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    die("drop capabilities");
  struct __user_cap_header_struct hdr {
    _LINUX_CAPABILITY_VERSION_3, 0
  };
  struct __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capset, &hdr, data) != 0) die("drop capabilities");
  ldcache_die_with_parent(c.parent);  // the credential change cleared it
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("set no_new_privs");
  if (seccomp_load(c.filter) != 0) die("install the seccomp filter");
  LdcacheScanOptions scan;
  scan.folders = *c.folders;
  Status done = update_ldcache_in_process(*root, scan);
  if (!done) ldcache_report_exit(c.report, done.error().code(), done.error().message());
  ldcache_report_exit(c.report, 0, "");
}

Status join_cgroups_of(pid_t pid, const std::vector<std::string>& dirs) {
  std::string text = std::to_string(pid);
  for (const auto& dir : dirs) {
    unique_fd d(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!d) return fail_errno(fmt::format("open cgroup {}", dir));
    unique_fd procs(::openat(d.get(), "cgroup.procs", O_WRONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!procs ||
        ::write(procs.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
      return fail_errno(fmt::format("move the ldcache writer into cgroup {}", dir));
  }
  return ok();
}

void reap(pid_t pid, int* status) {
  while (::waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

Status write_ldcache_native(const Root& rootfs, const LdconfigOptions& options) {
  unique_fd nsfd;
  if (options.container_pid) {
    nsfd.reset(::open(fmt::format("/proc/{}/ns/mnt", *options.container_pid).c_str(),
                      O_RDONLY | O_CLOEXEC));
    if (!nsfd) return fail_errno("open the container's mount namespace");
  }
  struct stat root_st {};
  if (::fstat(rootfs.fd(), &root_st) != 0) return fail_errno("stat rootfs");
  scmp_filter_ctx filter = ldcache_filter();
  if (!filter) return fail(ENOMEM, "build the ldcache writer's seccomp filter");
  int report_pipe[2], go_pipe[2] = {-1, -1};
  if (::pipe2(report_pipe, O_CLOEXEC) != 0) {
    seccomp_release(filter);
    return fail_errno("pipe");
  }
  unique_fd report_r(report_pipe[0]), report_w(report_pipe[1]);
  bool wait_for_go = !options.cgroup_dirs.empty();
  if (wait_for_go && ::pipe2(go_pipe, O_CLOEXEC) != 0) {
    seccomp_release(filter);
    return fail_errno("pipe");
  }
  unique_fd go_r(go_pipe[0]), go_w(go_pipe[1]);
  std::string root_path = rootfs.path();
  LdcacheChild c{report_w.get(),
                 go_r ? go_r.get() : -1,
                 nsfd ? nsfd.get() : -1,
                 root_path.c_str(),
                 root_st.st_dev,
                 root_st.st_ino,
                 options.uid,
                 options.gid,
                 filter,
                 &options.folders,
                 ::getpid()};
  pid_t pid = ::fork();
  if (pid == 0) child_main(c);
  seccomp_release(filter);
  if (pid < 0) return fail_errno("fork the ldcache writer");
  report_w.reset();
  go_r.reset();
  if (wait_for_go) {
    Status joined = join_cgroups_of(pid, options.cgroup_dirs);
    if (joined && ::write(go_w.get(), "g", 1) != 1) joined = fail_errno("start the ldcache writer");
    if (!joined) {
      ::kill(pid, SIGKILL);
      int ignored;
      reap(pid, &ignored);
      return joined;
    }
    go_w.reset();
  }
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + options.timeout;
  bool timed_out = false;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    struct pollfd p {
      report_r.get(), POLLIN, 0
    };
    int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    if (n == 0) continue;
    char buf[4096];
    ssize_t r = ::read(report_r.get(), buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    if (text.size() < 65536) text.append(buf, static_cast<std::size_t>(r));
  }
  int status = 0;
  reap(pid, &status);
  if (timed_out)
    return fail(ETIMEDOUT,
                fmt::format("the ldcache writer timed out after {} ms", options.timeout.count()));
  if (WIFSIGNALED(status))
    return fail(EINTR, fmt::format("the ldcache writer was killed by signal {}", WTERMSIG(status)));
  auto space = text.find(' ');
  int code = space == std::string::npos ? EIO : std::atoi(text.substr(0, space).c_str());
  if (WEXITSTATUS(status) == 0 && code == 0) return ok();
  std::string message = space == std::string::npos ? "no report" : text.substr(space + 1);
  return fail(code ? code : EIO, message);
}

Status write_ldcache(const Root& rootfs, const LdconfigOptions& options, bool exec_ldconfig) {
  if (exec_ldconfig) return run_ldconfig(rootfs, options);
  auto run = [&]() -> Status {
    NVCT_TRY(ensure_ld_so_conf(rootfs));
    Status native = write_ldcache_native(rootfs, options);
    if (!native && native.error().code() == ENOTSUP) {
      log::info("{}; running the host's ldconfig instead", native.error().message());
      return run_ldconfig(rootfs, options);
    }
    NVCT_TRY(native);
    NVCT_ASSIGN_OR_RETURN(unique_fd cache,
                          rootfs.open_in_root("/etc/ld.so.cache", O_PATH | O_NOFOLLOW));
    struct stat cst {};
    if (::fstat(cache.get(), &cst) != 0 || !S_ISREG(cst.st_mode))
      return fail(EINVAL, "/etc/ld.so.cache is not a regular file");
    NVCT_TRY(rootfs.relative_path(cache.get()));
    log::info("wrote ld.so.cache in {} for {}", rootfs.path(), fmt::join(options.folders, ", "));
    return ok();
  };
  return with_context(run(), "ldcache update");
}

}  // namespace nvct::mount
