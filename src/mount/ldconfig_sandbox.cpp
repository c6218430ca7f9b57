// The ldconfig child (mount.md §11.4, order matters). The child reports a failed step through
// a CLOEXEC pipe as {step, errno} and leaves with _exit; a successful exec closes the pipe.
#include <fcntl.h>
#include <fmt/format.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstring>

#include "nvct/base/log.hpp"
#include "nvct/mount/ldconfig.hpp"
#include "nvct/mount/seccomp_allow_list.hpp"

namespace nvct::mount {
namespace {

enum Step : int {
  kSetns = 1,
  kUnshare,
  kPrivate,
  kOpenRoot,
  kRootMoved,
  kSelfBind,
  kChdir,
  kPivot,
  kUmountOld,
  kCwdCheck,
  kHide,
  kCloseRange,
  kRlimit,
  kCreds,
  kCaps,
  kNoNewPrivs,
  kSeccomp,
  kExec,
  kStdio
};

const char* step_name(int step) {
  static const char* kNames[] = {"",
                                 "join the container mount namespace",
                                 "unshare mount namespace",
                                 "make / private",
                                 "open rootfs",
                                 "rootfs changed under us",
                                 "bind rootfs on itself",
                                 "enter rootfs",
                                 "pivot_root",
                                 "detach old root",
                                 "verify cwd",
                                 "hide /proc, /sys and /dev",
                                 "close fds",
                                 "set rlimits",
                                 "drop credentials",
                                 "drop capabilities",
                                 "set no_new_privs",
                                 "install seccomp filter",
                                 "exec ldconfig",
                                 "set up stdio"};
  return step > 0 && step < static_cast<int>(sizeof kNames / sizeof *kNames) ? kNames[step] : "?";
}

[[noreturn]] void die(int pipe_fd, int step) {
  int msg[2] = {step, errno};
  ssize_t ignored = ::write(pipe_fd, msg, sizeof msg);
  (void)ignored;
  ::_exit(126);
}

// Allow-list of mount.md §11.3 plus what current glibc needs (§11.4 step 8). Everything else
// fails with ENOSYS so glibc falls back (statx -> fstatat, faccessat2 -> faccessat).
scmp_filter_ctx build_filter() {
  static constexpr const char* kAllowed[] = {"access",       "arch_prctl",      "brk",
                                             "chdir",        "chmod",           "close",
                                             "execve",       "execveat",        "exit",
                                             "exit_group",   "fcntl",           "fdatasync",
                                             "fstat",        "fsync",           "ftruncate",
                                             "getcwd",       "getdents",        "getdents64",
                                             "getegid",      "geteuid",         "getgid",
                                             "getpgrp",      "getpid",          "gettid",
                                             "gettimeofday", "getuid",          "_llseek",
                                             "lseek",        "lstat",           "mkdir",
                                             "mmap",         "mprotect",        "mremap",
                                             "munmap",       "newfstatat",      "open",
                                             "openat",       "pread64",         "read",
                                             "readlink",     "readv",           "rename",
                                             "rt_sigaction", "rt_sigprocmask",  "rt_sigreturn",
                                             "stat",         "symlink",         "tgkill",
                                             "time",         "uname",           "unlink",
                                             "write",        "writev",          "mkdirat",
                                             "unlinkat",     "readlinkat",      "faccessat",
                                             "symlinkat",    "fchmodat",        "renameat",
                                             "memfd_create", "sendfile",        "clock_gettime",
                                             "rseq",         "set_tid_address", "set_robust_list",
                                             "prlimit64",    "getrandom",       "statx",
                                             "faccessat2",   "renameat2"};
  return seccomp_allow_list(kAllowed);
}

struct ChildArgs {
  int go_read;  // the parent writes one byte once the child sits in its cgroups
  int go_write;
  int err_pipe;
  int log_pipe;
  int memfd;
  int nsfd;  // -1: fresh mount namespace
  const char* root_path;
  dev_t root_dev;
  ino_t root_ino;
  uid_t uid;
  gid_t gid;
  char* const* argv;
  scmp_filter_ctx filter;
};

// The helper dies with the hook (checklist #22/#24): SIGKILL when the parent goes, then a check
// that it has not gone already; the parent holds the go pipe's write end until it reaped us.
void die_with_parent(int go_read) {
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) ::_exit(125);
  struct pollfd p {
    go_read, POLLIN, 0
  };
  if (::poll(&p, 1, 0) < 0 || (p.revents & (POLLHUP | POLLERR)) != 0) ::_exit(125);
}

[[noreturn]] void child(const ChildArgs& a) {
  ::close(a.go_write);
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) ::_exit(125);
  char go = 0;
  if (::read(a.go_read, &go, 1) != 1) ::_exit(125);
  int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull < 0 || ::dup2(devnull, 0) < 0 || ::dup2(a.log_pipe, 1) < 0 ||
      ::dup2(a.log_pipe, 2) < 0)
    die(a.err_pipe, kStdio);
  // setns into a mount namespace needs a single-threaded caller; the clone child is one.
  if (a.nsfd >= 0 && ::setns(a.nsfd, CLONE_NEWNS) != 0) die(a.err_pipe, kSetns);
  if (::unshare(CLONE_NEWNS) != 0) die(a.err_pipe, kUnshare);
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) die(a.err_pipe, kPrivate);
  // Mounts from another namespace cannot be bind sources, so R is opened again here; it must
  // be the directory the parent checked.
  int root = ::open(a.root_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (root < 0) die(a.err_pipe, kOpenRoot);
  struct stat st {};
  if (::fstat(root, &st) != 0 || st.st_dev != a.root_dev || st.st_ino != a.root_ino)
    die(a.err_pipe, kRootMoved);
  if (::mount(a.root_path, a.root_path, nullptr, MS_BIND | MS_REC, nullptr) != 0)
    die(a.err_pipe, kSelfBind);
  int newroot = ::open(a.root_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (newroot < 0 || ::fchdir(newroot) != 0) die(a.err_pipe, kChdir);
  if (::syscall(SYS_pivot_root, ".", ".") != 0) {
    // initramfs cannot pivot: move the tree over / and chroot (no CAP_SYS_CHROOT survives).
    if (errno != EINVAL || ::mount(".", "/", nullptr, MS_MOVE, nullptr) != 0 || ::chroot(".") != 0)
      die(a.err_pipe, kPivot);
  } else {
    // The old root must not propagate the detach anywhere.
    if (::mount(nullptr, ".", nullptr, MS_REC | MS_SLAVE, nullptr) != 0 ||
        ::umount2(".", MNT_DETACH) != 0)
      die(a.err_pipe, kUmountOld);
  }
  char cwd[PATH_MAX];
  if (::chdir("/") != 0 || !::getcwd(cwd, sizeof cwd) || std::strcmp(cwd, "/") != 0)
    die(a.err_pipe, kCwdCheck);
  for (const char* hide : {"/proc", "/sys", "/dev"}) {
    struct stat h {};
    if (::stat(hide, &h) != 0 || !S_ISDIR(h.st_mode)) continue;
    if (::mount("tmpfs", hide, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                "size=4k,mode=0555") != 0)
      die(a.err_pipe, kHide);
  }
  // Every fd but 0-2 goes away at exec (the memfd is exec'd through AT_EMPTY_PATH and the
  // error pipe must close on success).
  if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) die(a.err_pipe, kCloseRange);
  const struct {
    int resource;
    rlim_t value;
  } kLimits[] = {
      {RLIMIT_CPU, 10}, {RLIMIT_AS, 2ULL << 30}, {RLIMIT_NOFILE, 64}, {RLIMIT_FSIZE, 2ULL << 20}};
  for (auto l : kLimits) {
#if defined(__SANITIZE_ADDRESS__)
    // An AddressSanitizer build has terabytes of shadow mapped: under an RLIMIT_AS its runtime
    // cannot map anything more before exec. Sanitized builds are test builds only.
    if (l.resource == RLIMIT_AS) continue;
#endif
    struct rlimit r {
      l.value, l.value
    };
    if (::setrlimit(l.resource, &r) != 0) die(a.err_pipe, kRlimit);
  }
  if (::setgroups(1, &a.gid) != 0 || ::setresgid(a.gid, a.gid, a.gid) != 0 ||
      ::setresuid(a.uid, a.uid, a.uid) != 0)
    die(a.err_pipe, kCreds);
  // An empty bounding set means the exec'd binary gets no capabilities, even as uid 0.
  for (int cap = 0; cap <= CAP_LAST_CAP + 8; ++cap)
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) die(a.err_pipe, kCaps);
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    die(a.err_pipe, kCaps);
  struct __user_cap_header_struct hdr {
    _LINUX_CAPABILITY_VERSION_3, 0
  };
  struct __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capset, &hdr, data) != 0) die(a.err_pipe, kCaps);
  // A change of credentials cleared the parent-death signal: set it again.
  die_with_parent(a.go_read);
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die(a.err_pipe, kNoNewPrivs);
  if (seccomp_load(a.filter) != 0) die(a.err_pipe, kSeccomp);
  char* const empty_env[] = {nullptr};
  ::syscall(SYS_execveat, a.memfd, "", a.argv, empty_env, AT_EMPTY_PATH);
  die(a.err_pipe, kExec);
}

Status join_cgroups(pid_t pid, const std::vector<std::string>& dirs) {
  std::string text = std::to_string(pid);
  for (const auto& dir : dirs) {
    unique_fd d(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!d) return fail_errno(fmt::format("open cgroup {}", dir));
    unique_fd procs(::openat(d.get(), "cgroup.procs", O_WRONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!procs ||
        ::write(procs.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
      return fail_errno(fmt::format("move ldconfig into cgroup {}", dir));
  }
  return ok();
}

std::string drain(int fd, std::string& out) {
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0)
    if (out.size() < 65536) out.append(buf, static_cast<std::size_t>(n));
  return out;
}

}  // namespace

Status run_ldconfig(const Root& rootfs, const LdconfigOptions& options) {
  auto run = [&]() -> Status {
    // Host-side preparation first: nothing in the container changes before all of it worked.
    // An image without a glibc loader (busybox, musl, distroless) still gets its ld.so.cache, as
    // with the reference: the host's ldconfig is static and runs from the sealed copy.
    NVCT_ASSIGN_OR_RETURN(unique_fd memfd, sealed_copy(options.host_ldconfig));
    unique_fd nsfd;
    if (options.container_pid) {
      nsfd.reset(::open(fmt::format("/proc/{}/ns/mnt", *options.container_pid).c_str(),
                        O_RDONLY | O_CLOEXEC));
      if (!nsfd) return fail_errno("open container mount namespace");
    }
    struct stat root_st {};
    if (::fstat(rootfs.fd(), &root_st) != 0) return fail_errno("stat rootfs");
    NVCT_TRY(ensure_ld_so_conf(rootfs));

    std::vector<std::string> args = ldconfig_argv(options.folders);
    std::vector<char*> argv;
    for (auto& s : args) argv.push_back(s.data());
    argv.push_back(nullptr);
    scmp_filter_ctx filter = build_filter();
    if (!filter) return fail(ENOMEM, "build ldconfig seccomp filter");
    int err_pipe[2], log_pipe[2], go_pipe[2];
    if (::pipe2(go_pipe, O_CLOEXEC) != 0) return fail_errno("pipe");
    unique_fd go_r(go_pipe[0]), go_w(go_pipe[1]);
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) return fail_errno("pipe");
    unique_fd err_r(err_pipe[0]), err_w(err_pipe[1]);
    if (::pipe2(log_pipe, O_CLOEXEC) != 0) return fail_errno("pipe");
    unique_fd log_r(log_pipe[0]), log_w(log_pipe[1]);
    std::string root_path = rootfs.path();
    ChildArgs a{go_r.get(),
                go_w.get(),
                err_w.get(),
                log_w.get(),
                memfd.get(),
                nsfd ? nsfd.get() : -1,
                root_path.c_str(),
                root_st.st_dev,
                root_st.st_ino,
                options.uid,
                options.gid,
                argv.data(),
                filter};

    // A new net ns removes the CVE-2024-0137 class; the pid ns lets one SIGKILL end it all.
    long pid =
        ::syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET | SIGCHLD,
                  nullptr, nullptr, nullptr, nullptr);
    if (pid == 0) child(a);
    seccomp_release(filter);
    if (pid < 0) return fail_errno("clone ldconfig sandbox");
    err_w.reset();
    log_w.reset();
    go_r.reset();
    Status joined = join_cgroups(static_cast<pid_t>(pid), options.cgroup_dirs);
    if (!joined) {
      ::kill(static_cast<pid_t>(pid), SIGKILL);
      while (::waitpid(static_cast<pid_t>(pid), nullptr, 0) < 0 && errno == EINTR) {
      }
      return tl::unexpected(std::move(joined).error());
    }
    if (::write(go_w.get(), "g", 1) != 1) return fail_errno("start ldconfig sandbox");
    // go_w stays open until the child is reaped: the child's parent-death check polls it.

    std::string output;
    int report[2] = {0, 0};
    std::size_t got = 0;
    bool timed_out = false;
    auto deadline = std::chrono::steady_clock::now() + options.timeout;
    bool err_open = true, log_open = true;
    while (err_open || log_open) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        timed_out = true;
        ::kill(static_cast<pid_t>(pid), SIGKILL);  // init of the pid ns: everything in it dies
        break;
      }
      struct pollfd fds[2] = {{err_open ? err_r.get() : -1, POLLIN, 0},
                              {log_open ? log_r.get() : -1, POLLIN, 0}};
      int n = ::poll(fds, 2, static_cast<int>(left.count()));
      if (n < 0 && errno != EINTR) break;
      if (fds[0].revents) {
        ssize_t r = ::read(err_r.get(), reinterpret_cast<char*>(report) + got, sizeof report - got);
        if (r > 0)
          got += static_cast<std::size_t>(r);
        else
          err_open = false;
      }
      if (fds[1].revents) {
        char buf[4096];
        ssize_t r = ::read(log_r.get(), buf, sizeof buf);
        if (r > 0 && output.size() < 65536) output.append(buf, static_cast<std::size_t>(r));
        if (r <= 0) log_open = false;
      }
    }
    int status = 0;
    while (::waitpid(static_cast<pid_t>(pid), &status, 0) < 0 && errno == EINTR) {
    }
    if (log_open) drain(log_r.get(), output);
    if (!output.empty()) log::debug("ldconfig: {}", output);
    if (timed_out)
      return fail(ETIMEDOUT,
                  fmt::format("ldconfig timed out after {} ms", options.timeout.count()));
    if (got == sizeof report)
      return fail(report[1], fmt::format("ldconfig sandbox: {}: {}", step_name(report[0]),
                                         std::strerror(report[1])));
    if (WIFSIGNALED(status))
      return fail(EINTR,
                  fmt::format("process ldconfig terminated with signal {}", WTERMSIG(status)));
    if (WEXITSTATUS(status) != 0)
      return fail(EIO, fmt::format("process ldconfig failed with error code: {}: {}",
                                   WEXITSTATUS(status), output));

    // The cache must be a regular file inside R (ldconfig writes temp + rename).
    NVCT_ASSIGN_OR_RETURN(unique_fd cache,
                          rootfs.open_in_root("/etc/ld.so.cache", O_PATH | O_NOFOLLOW));
    struct stat cst {};
    if (::fstat(cache.get(), &cst) != 0 || !S_ISREG(cst.st_mode))
      return fail(EINVAL, "/etc/ld.so.cache is not a regular file");
    NVCT_TRY(rootfs.relative_path(cache.get()));
    log::info("ran ldconfig in {} for {}", rootfs.path(), fmt::join(options.folders, ", "));
    return ok();
  };
  return with_context(run(), "ldcache update");
}

}  // namespace nvct::mount
