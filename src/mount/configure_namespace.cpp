#include "nvct/mount/configure_namespace.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/mount/apply.hpp"
#include "nvct/mount/bind.hpp"
#include "nvct/mount/in_root.hpp"
#include "nvct/mount/journal.hpp"

namespace nvct::mount {
namespace {

struct Pin {
  std::string path;
  dev_t dev = 0;
  ino_t ino = 0;
};

std::vector<std::string> source_paths(const edits::Edits& edits,
                                      const std::vector<edits::FileMount>& special) {
  std::vector<std::string> out;
  for (const auto& m : edits.mounts) out.push_back(m.host_path);
  for (const auto& d : edits.device_nodes) out.push_back(d.host_path);
  for (const auto& m : special) out.push_back(m.host_path);
  return out;
}

Result<OpenedSource> open_pinned(const Root& root, const std::string& path) {
  return with_context(open_host_object(root, path), fmt::format("open {}", path));
}

Result<Pin> pin(const Root& root, const std::string& path) {
  NVCT_ASSIGN_OR_RETURN(OpenedSource o, open_pinned(root, path));
  return Pin{path, o.st.st_dev, o.st.st_ino};
}

PathPolicy special_policy(const std::string& container_path) {
  return container_path.rfind("/proc/", 0) == 0 ? PathPolicy::kProcfs : PathPolicy::kDevice;
}

Status mount_special(const Root& host_root, const Root& rootfs, const edits::FileMount& m,
                     Journal& journal, OpenedSources& opened) {
  SourceKind kind =
      m.kind == edits::FileKind::kDirectory ? SourceKind::kDirectory : SourceKind::kFile;
  NVCT_ASSIGN_OR_RETURN(Source src,
                        with_context(open_source(host_root, m.host_path, kind, std::nullopt,
                                                 &opened),
                                     fmt::format("mount {}", m.host_path)));
  return bind_mount(rootfs, src, m.container_path, m.flags, special_policy(m.container_path),
                    journal);
}

// Runs in the forked child: everything here ends with _exit in the caller.
Status child_work(int ns_fd, const std::string& driver_root, const std::string& rootfs_path,
                  const edits::Edits& edits, const std::vector<edits::FileMount>& special) {
  std::vector<Pin> pins;
  {
    NVCT_ASSIGN_OR_RETURN(Root host, Root::open_allow_host_root(driver_root));
    for (const auto& p : source_paths(edits, special)) {
      NVCT_ASSIGN_OR_RETURN(Pin pinned, pin(host, p));
      pins.push_back(std::move(pinned));
    }
  }
  if (::setns(ns_fd, CLONE_NEWNS) != 0) return fail_errno("join the container mount namespace");
  // A clone of a mount in another namespace cannot be attached here (open_tree/bind refuse
  // it), so the sources are opened again in this namespace and must be the pinned objects.
  NVCT_ASSIGN_OR_RETURN(Root host, with_context(Root::open_allow_host_root(driver_root),
                                                "open the driver root in the container namespace"));
  // The objects opened here are the ones mounted: open_source takes them from `opened` rather
  // than opening each path a third time.
  OpenedSources opened;
  for (const auto& p : pins) {
    NVCT_ASSIGN_OR_RETURN(OpenedSource again, open_pinned(host, p.path));
    if (again.st.st_dev != p.dev || again.st.st_ino != p.ino)
      return fail(EXDEV,
                  fmt::format("{} is not the same file in the container mount namespace", p.path));
    opened.try_emplace(p.path, std::move(again));
  }
  NVCT_ASSIGN_OR_RETURN(Root rootfs, with_context(Root::open(rootfs_path),
                                                  fmt::format("open rootfs {}", rootfs_path)));
  Journal journal;
  NVCT_TRY(apply_edits(host, rootfs, edits, journal, &opened));
  for (const auto& m : special) {
    Status s = mount_special(host, rootfs, m, journal, opened);
    if (!s) {
      if (Status undone = journal.rollback(); !undone)
        log::error("rollback after failure: {}", undone.error().message());
      return s;
    }
  }
  journal.commit();
  return ok();
}

[[noreturn]] void report_and_exit(int fd, const Status& s) {
  if (s) ::_exit(0);
  int code = s.error().code();
  std::string msg = s.error().message();
  (void)write_all(fd, std::string_view(reinterpret_cast<const char*>(&code), sizeof code));
  (void)write_all(fd, msg);
  ::_exit(1);
}

}  // namespace

Result<ContainerProcess> open_container_process(pid_t pid, bool standalone,
                                                const char* host_mnt_ns) {
  if (pid <= 0) return fail(EINVAL, fmt::format("invalid pid {}", pid));
  ContainerProcess p;
  p.pid = pid;
  p.pidfd.reset(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!p.pidfd) return fail_errno(fmt::format("open process {}", pid));
  p.proc_dir.reset(::open(fmt::format("/proc/{}", pid).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!p.proc_dir) return fail_errno(fmt::format("open /proc/{}", pid));
  p.mnt_ns.reset(::openat(p.proc_dir.get(), "ns/mnt", O_RDONLY | O_CLOEXEC));
  if (!p.mnt_ns) {
    int err = errno;
    auto failed = fail_errno(fmt::format("open /proc/{}/ns/mnt", pid), err);
    // Entering another process's mount namespace takes CAP_SYS_ADMIN: say so to a plain user.
    if ((err == EACCES || err == EPERM) && ::geteuid() != 0)
      return fail(err, failed.value().message() +
                           " (configuring a container needs root: run it as root, as the hook is)");
    return failed;
  }
  struct stat st {};
  if (::fstat(p.proc_dir.get(), &st) != 0) return fail_errno(fmt::format("stat /proc/{}", pid));
  p.uid = st.st_uid;
  p.gid = st.st_gid;
  // The pidfd was opened first: if the pid is still alive now, the /proc fds are its.
  NVCT_TRY(check_still_running(p));
  struct stat ours {
  }, theirs{};
  if (::stat("/proc/self/ns/mnt", &ours) != 0) return fail_errno("stat /proc/self/ns/mnt");
  if (::fstat(p.mnt_ns.get(), &theirs) != 0) return fail_errno("stat container mount namespace");
  bool shared = ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino;
  if (shared && !standalone)
    return fail(EINVAL, fmt::format("process {} is in our mount namespace: refusing to mount "
                                    "onto the host",
                                    pid));
  if (standalone) {
    struct stat init {};
    if (::stat(host_mnt_ns, &init) != 0) {
      log::warn("standalone mode: cannot read {} ({}), so cannot check that process {} is not "
                "in the host's mount namespace",
                host_mnt_ns, std::strerror(errno), pid);
    } else if (init.st_dev == theirs.st_dev && init.st_ino == theirs.st_ino) {
      return fail(EINVAL, fmt::format("standalone mode: process {} is in the host's mount "
                                      "namespace ({}): refusing to mount onto the host (run it "
                                      "in a private mount namespace, or pass --pid)",
                                      pid, host_mnt_ns));
    }
  }
  return p;
}

Status check_still_running(const ContainerProcess& p) {
  if (::syscall(SYS_pidfd_send_signal, p.pidfd.get(), 0, nullptr, 0) != 0)
    return fail_errno(fmt::format("process {}", p.pid));
  return ok();
}

Status apply_in_container(const ContainerProcess& process, const std::string& driver_root,
                          const std::string& rootfs, const edits::Edits& edits,
                          const std::vector<edits::FileMount>& special_mounts,
                          const std::function<void()>& meanwhile) {
  NVCT_TRY(check_still_running(process));
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return fail_errno("pipe");
  unique_fd rd(fds[0]), wr(fds[1]);
  pid_t child = ::fork();
  if (child < 0) return fail_errno("fork");
  if (child == 0) {
    rd.reset();
    report_and_exit(wr.get(),
                    child_work(process.mnt_ns.get(), driver_root, rootfs, edits, special_mounts));
  }
  wr.reset();
  if (meanwhile) meanwhile();
  auto text = read_fd(rd.get(), 1u << 20);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status))
    return fail(EINTR, fmt::format("mount process terminated with signal {}", WTERMSIG(status)));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return ok();
  if (!text || text->size() < sizeof(int))
    return fail(EIO, fmt::format("mount process failed with exit code {}", WEXITSTATUS(status)));
  int code = 0;
  std::memcpy(&code, text->data(), sizeof code);
  return fail(code, text->substr(sizeof code));
}

}  // namespace nvct::mount
