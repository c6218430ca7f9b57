// The ldconfig child (mount.md §11.4, order matters). The child reports a failed step through
// a CLOEXEC pipe as {step, errno} and leaves with _exit; a successful exec closes the pipe.
// prepare() may run on a second thread of a multi-threaded process: the child of that clone
// holds a copy of memory whose locks other threads may have held, so until exec it makes raw
// system calls only (no malloc, no glibc set*id broadcast, no libseccomp: the filter is compiled
// to BPF in the parent).
#include <fcntl.h>
#include <fmt/format.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <iterator>
#include <cstdint>
#include <cstring>
#include <utility>

#include "nvct/base/log.hpp"
#include "nvct/mount/ldconfig.hpp"

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
  kStdio,
  kMessage
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
                                 "set up stdio",
                                 "read the start message"};
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
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(ENOSYS));
  if (!ctx) return nullptr;
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
  for (const char* name : kAllowed) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture
    if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0) != 0) {
      seccomp_release(ctx);
      return nullptr;
    }
  }
  return ctx;
}

// The allow-list as the BPF program the kernel takes, so that the child can install it with
// one system call.
Result<std::vector<sock_filter>> compile_filter() {
  scmp_filter_ctx ctx = build_filter();
  if (!ctx) return fail(ENOMEM, "build ldconfig seccomp filter");
  unique_fd out(::memfd_create("nvct-ldconfig-bpf", MFD_CLOEXEC));
  int rc = out ? seccomp_export_bpf(ctx, out.get()) : -errno;
  seccomp_release(ctx);
  if (rc != 0) return fail(-rc, "export ldconfig seccomp filter");
  struct stat st {};
  if (::fstat(out.get(), &st) != 0) return fail_errno("stat exported seccomp filter");
  if (st.st_size <= 0 || st.st_size % static_cast<off_t>(sizeof(sock_filter)) != 0 ||
      st.st_size > static_cast<off_t>(BPF_MAXINSNS * sizeof(sock_filter)))
    return fail(EINVAL, fmt::format("exported seccomp filter has {} bytes", st.st_size));
  std::vector<sock_filter> prog(static_cast<std::size_t>(st.st_size) / sizeof(sock_filter));
  if (::pread(out.get(), prog.data(), static_cast<std::size_t>(st.st_size), 0) != st.st_size)
    return fail_errno("read exported seccomp filter");
  return prog;
}

// The start message, written by run_ldconfig(): u32 length, then u32 uid, u32 gid, u32 argc and
// argc NUL-terminated strings. The child parses it into these (its own copies).
constexpr std::size_t kMaxMessage = 64 * 1024;
constexpr std::size_t kMaxArgs = 1024;
char g_message[kMaxMessage];
char* g_argv[kMaxArgs + 1];

std::string start_message(uid_t uid, gid_t gid, const std::vector<std::string>& argv) {
  auto put32 = [](std::string& out, std::uint32_t v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
  };
  std::string body;
  put32(body, uid);
  put32(body, gid);
  put32(body, static_cast<std::uint32_t>(argv.size()));
  for (const auto& a : argv) body.append(a.c_str(), a.size() + 1);
  std::string msg;
  put32(msg, static_cast<std::uint32_t>(body.size()));
  return msg + body;
}

bool read_exactly(int fd, char* buf, std::size_t n) {
  while (n > 0) {
    ssize_t r = ::read(fd, buf, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    buf += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

// Parses the message in g_message (len bytes) into uid, gid and g_argv; false if malformed.
bool parse_start_message(std::size_t len, uid_t& uid, gid_t& gid) {
  if (len < 12) return false;
  std::uint32_t v[3];
  std::memcpy(v, g_message, sizeof v);
  uid = v[0];
  gid = v[1];
  if (v[2] == 0 || v[2] > kMaxArgs) return false;
  std::size_t pos = sizeof v;
  for (std::uint32_t i = 0; i < v[2]; ++i) {
    if (pos >= len) return false;
    g_argv[i] = g_message + pos;
    const void* nul = std::memchr(g_message + pos, '\0', len - pos);
    if (!nul) return false;
    pos = static_cast<std::size_t>(static_cast<const char*>(nul) - g_message) + 1;
  }
  g_argv[v[2]] = nullptr;
  return pos == len;
}

struct ChildArgs {
  int go_read;  // the start message arrives here once the parent is done with the container
  int err_pipe;
  int log_pipe;
  int memfd;
  int nsfd;  // -1: fresh mount namespace
  const char* root_path;
  dev_t root_dev;
  ino_t root_ino;
  const sock_fprog* filter;
};

// Closes every fd but the ones in keep (sorted, -1 entries ignored). The clone copied the whole
// fd table, including pipes the caller's other threads have open at that moment: a child that
// waits holding the write end of another child's reply pipe would keep its reader from ever
// seeing EOF.
void close_all_but(const int* keep, std::size_t n) {
  unsigned next = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (keep[i] < 0 || static_cast<unsigned>(keep[i]) < next) continue;
    if (static_cast<unsigned>(keep[i]) > next)
      ::syscall(SYS_close_range, next, static_cast<unsigned>(keep[i]) - 1, 0U);
    next = static_cast<unsigned>(keep[i]) + 1;
  }
  ::syscall(SYS_close_range, next, ~0U, 0U);
}

[[noreturn]] void child(const ChildArgs& a) {
  int keep[] = {0, 1, 2, a.go_read, a.err_pipe, a.log_pipe, a.memfd, a.nsfd};
  std::sort(std::begin(keep), std::end(keep));
  close_all_but(keep, std::size(keep));
  std::uint32_t len = 0;
  if (!read_exactly(a.go_read, reinterpret_cast<char*>(&len), sizeof len)) ::_exit(125);
  uid_t uid = 0;
  gid_t gid = 0;
  if (len > kMaxMessage || !read_exactly(a.go_read, g_message, len) ||
      !parse_start_message(len, uid, gid)) {
    errno = EPROTO;
    die(a.err_pipe, kMessage);
  }
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
  if (::chdir("/") != 0 || ::syscall(SYS_getcwd, cwd, sizeof cwd) < 0 ||
      std::strcmp(cwd, "/") != 0)
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
    struct rlimit r {
      l.value, l.value
    };
    if (::setrlimit(l.resource, &r) != 0) die(a.err_pipe, kRlimit);
  }
  // Raw calls: glibc's wrappers would try to change the ids of the parent's other threads too.
  if (::syscall(SYS_setgroups, 1, &gid) != 0 || ::syscall(SYS_setresgid, gid, gid, gid) != 0 ||
      ::syscall(SYS_setresuid, uid, uid, uid) != 0)
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
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die(a.err_pipe, kNoNewPrivs);
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, a.filter) != 0)
    die(a.err_pipe, kSeccomp);
  char* const empty_env[] = {nullptr};
  ::syscall(SYS_execveat, a.memfd, "", g_argv, empty_env, AT_EMPTY_PATH);
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

void reap(pid_t pid, int* status) {
  while (::waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

Result<LdconfigSandbox> LdconfigSandbox::prepare(const Root& rootfs,
                                                 const LdconfigOptions& options) {
  NVCT_ASSIGN_OR_RETURN(unique_fd memfd, sealed_copy(options.host_ldconfig));
  unique_fd nsfd;
  if (options.container_pid) {
    nsfd.reset(::open(fmt::format("/proc/{}/ns/mnt", *options.container_pid).c_str(),
                      O_RDONLY | O_CLOEXEC));
    if (!nsfd) return fail_errno("open container mount namespace");
  }
  struct stat root_st {};
  if (::fstat(rootfs.fd(), &root_st) != 0) return fail_errno("stat rootfs");
  NVCT_ASSIGN_OR_RETURN(std::vector<sock_filter> prog, compile_filter());
  sock_fprog fprog{static_cast<unsigned short>(prog.size()), prog.data()};
  int err_pipe[2], log_pipe[2], go_pipe[2];
  if (::pipe2(go_pipe, O_CLOEXEC) != 0) return fail_errno("pipe");
  unique_fd go_r(go_pipe[0]), go_w(go_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return fail_errno("pipe");
  unique_fd err_r(err_pipe[0]), err_w(err_pipe[1]);
  if (::pipe2(log_pipe, O_CLOEXEC) != 0) return fail_errno("pipe");
  unique_fd log_r(log_pipe[0]), log_w(log_pipe[1]);
  std::string root_path = rootfs.path();
  ChildArgs a{go_r.get(),     err_w.get(),    log_w.get(), memfd.get(), nsfd ? nsfd.get() : -1,
              root_path.c_str(), root_st.st_dev, root_st.st_ino, &fprog};

  // A new net ns removes the CVE-2024-0137 class; the pid ns lets one SIGKILL end it all.
  long pid =
      ::syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET | SIGCHLD,
                nullptr, nullptr, nullptr, nullptr);
  if (pid == 0) child(a);
  if (pid < 0) return fail_errno("clone ldconfig sandbox");
  LdconfigSandbox box;
  box.pid_ = static_cast<pid_t>(pid);
  box.go_ = std::move(go_w);
  box.err_ = std::move(err_r);
  box.log_ = std::move(log_r);
  return box;
}

LdconfigSandbox::LdconfigSandbox(LdconfigSandbox&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      go_(std::move(other.go_)),
      err_(std::move(other.err_)),
      log_(std::move(other.log_)) {}

LdconfigSandbox& LdconfigSandbox::operator=(LdconfigSandbox&& other) noexcept {
  if (this != &other) {
    cancel();
    pid_ = std::exchange(other.pid_, -1);
    go_ = std::move(other.go_);
    err_ = std::move(other.err_);
    log_ = std::move(other.log_);
  }
  return *this;
}

LdconfigSandbox::~LdconfigSandbox() { cancel(); }

void LdconfigSandbox::cancel() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);  // init of its pid ns: nothing in it survives
  reap(pid_, nullptr);
  pid_ = -1;
}

Result<LdconfigOutcome> run_ldconfig(const Root& rootfs, const LdconfigOptions& options,
                                     Result<LdconfigSandbox> prepared) {
  auto run = [&]() -> Result<LdconfigOutcome> {
    // Host-side checks first: nothing in the container changes before all of them worked.
    NVCT_ASSIGN_OR_RETURN(bool glibc, has_glibc_layout(rootfs));
    if (!glibc) {
      log::info("rootfs {} has no glibc loader; skipping ldconfig", rootfs.path());
      return LdconfigOutcome::kSkipped;
    }
    if (!prepared) return tl::unexpected(std::move(prepared).error());
    LdconfigSandbox& box = *prepared;
    std::vector<std::string> argv = ldconfig_argv(options.folders);
    std::string message = start_message(options.uid, options.gid, argv);
    if (argv.size() > kMaxArgs || message.size() - sizeof(std::uint32_t) > kMaxMessage)
      return fail(E2BIG, fmt::format("{} ldconfig folders are too many", options.folders.size()));
    NVCT_TRY(ensure_ld_so_conf(rootfs));
    NVCT_TRY(join_cgroups(box.pid_, options.cgroup_dirs));
    if (::write(box.go_.get(), message.data(), message.size()) !=
        static_cast<ssize_t>(message.size()))
      return fail_errno("start ldconfig sandbox");
    box.go_.reset();
    pid_t pid = std::exchange(box.pid_, -1);  // reaped below, whatever happens

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
        ::kill(pid, SIGKILL);  // init of the pid ns: everything in it dies
        break;
      }
      struct pollfd fds[2] = {{err_open ? box.err_.get() : -1, POLLIN, 0},
                              {log_open ? box.log_.get() : -1, POLLIN, 0}};
      int n = ::poll(fds, 2, static_cast<int>(left.count()));
      if (n < 0 && errno != EINTR) break;
      if (fds[0].revents) {
        ssize_t r =
            ::read(box.err_.get(), reinterpret_cast<char*>(report) + got, sizeof report - got);
        if (r > 0)
          got += static_cast<std::size_t>(r);
        else
          err_open = false;
      }
      if (fds[1].revents) {
        char buf[4096];
        ssize_t r = ::read(box.log_.get(), buf, sizeof buf);
        if (r > 0 && output.size() < 65536) output.append(buf, static_cast<std::size_t>(r));
        if (r <= 0) log_open = false;
      }
    }
    int status = 0;
    reap(pid, &status);
    if (log_open) drain(box.log_.get(), output);
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
    return LdconfigOutcome::kRan;
  };
  return with_context(run(), "ldcache update");
}

Result<LdconfigOutcome> run_ldconfig(const Root& rootfs, const LdconfigOptions& options) {
  // Nothing is copied or cloned for an image that has no use for ldconfig.
  auto glibc = has_glibc_layout(rootfs);
  if (glibc && !*glibc) return run_ldconfig(rootfs, options, fail(ENOENT, "not prepared"));
  return run_ldconfig(rootfs, options, LdconfigSandbox::prepare(rootfs, options));
}

}  // namespace nvct::mount
