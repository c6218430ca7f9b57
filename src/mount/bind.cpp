#include "nvct/mount/bind.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>

#include "nvct/base/log.hpp"
#include "nvct/mount/target.hpp"

namespace nvct::mount {
namespace {

std::atomic<bool> g_force_classic{false};
std::atomic<std::uint64_t> g_classic_count{0};

std::uint64_t mount_attrs(const edits::MountFlags& f) {
  std::uint64_t a = 0;
  if (f.read_only) a |= MOUNT_ATTR_RDONLY;
  if (f.nosuid) a |= MOUNT_ATTR_NOSUID;
  if (f.nodev) a |= MOUNT_ATTR_NODEV;
  if (f.noexec) a |= MOUNT_ATTR_NOEXEC;
  return a;
}

unsigned long ms_flags(const edits::MountFlags& f) {
  unsigned long m = 0;
  if (f.read_only) m |= MS_RDONLY;
  if (f.nosuid) m |= MS_NOSUID;
  if (f.nodev) m |= MS_NODEV;
  if (f.noexec) m |= MS_NOEXEC;
  return m;
}

unsigned long st_flags(const edits::MountFlags& f) {
  unsigned long m = 0;
  if (f.read_only) m |= ST_RDONLY;
  if (f.nosuid) m |= ST_NOSUID;
  if (f.nodev) m |= ST_NODEV;
  if (f.noexec) m |= ST_NOEXEC;
  return m;
}

std::string describe(const edits::MountFlags& f) {
  return fmt::format("{}{}{}{}", f.read_only ? "ro" : "rw", f.nosuid ? ",nosuid" : "",
                     f.nodev ? ",nodev" : "", f.noexec ? ",noexec" : "");
}

// A detached private clone of the source with the flags set, or an empty fd when the new
// mount API is unavailable (ENOSYS: old kernel or seccomp).
Result<unique_fd> clone_source(const Source& src, const edits::MountFlags& flags) {
  if (g_force_classic.load()) return unique_fd();
  unique_fd tree(static_cast<int>(
      ::open_tree(src.fd.get(), "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH)));
  if (!tree) {
    if (errno == ENOSYS) return unique_fd();
    return fail_errno(fmt::format("open_tree {}", src.host_path));
  }
  // MS_PRIVATE is mandatory: a clone of a shared mount stays shared and would propagate mount
  // events to the host (crun test_mount_no_leak_to_host; toolkit 1.16.2/1.18.0 leaks).
  struct mount_attr attr {};
  attr.attr_set = mount_attrs(flags);
  attr.propagation = MS_PRIVATE;
  if (::mount_setattr(tree.get(), "", AT_EMPTY_PATH, &attr, sizeof attr) != 0) {
    if (errno == ENOSYS) return unique_fd();
    return fail_errno(fmt::format("mount_setattr {}", src.host_path));
  }
  return tree;
}

Status classic_bind(const Source& src, const Target& target, const edits::MountFlags& flags,
                    Journal& journal, unique_fd& top) {
  g_classic_count.fetch_add(1);
  if (::mount(proc_fd_path(src.fd.get()).c_str(), proc_fd_path(target.fd.get()).c_str(), nullptr,
              MS_BIND, nullptr) != 0)
    return fail_errno(fmt::format("bind {}", src.host_path));
  top.reset(::openat(target.parent.get(), target.name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!top) return fail_errno("reopen mounted target");
  NVCT_TRY(journal.record_mount(top.get(), target.path));
  // runc reopenAfterMount: the object we remount must be the one we mounted on.
  NVCT_ASSIGN_OR_RETURN(std::string before, fd_path(target.fd.get()));
  NVCT_ASSIGN_OR_RETURN(std::string after, fd_path(top.get()));
  if (before != after) return fail(EXDEV, fmt::format("target moved while mounting: {}", after));
  std::string p = proc_fd_path(top.get());
  if (::mount(nullptr, p.c_str(), nullptr, MS_BIND | MS_REMOUNT | ms_flags(flags), nullptr) != 0)
    return fail_errno("remount with flags");
  if (::mount(nullptr, p.c_str(), nullptr, MS_PRIVATE, nullptr) != 0)
    return fail_errno("make mount private");
  return ok();
}

// parent_mount: the id of the mount the target's parent directory was on before the mount.
Status verify_mount(const Source& src, int top, std::uint64_t parent_mount,
                    const edits::MountFlags& flags) {
  NVCT_ASSIGN_OR_RETURN(MountState state, with_context(mount_state(top), "check mounted target"));
  if (state.dev != src.st.st_dev || state.ino != src.st.st_ino)
    return fail(EXDEV, "mounted target is not the source");
  if (state.mnt_attr) {
    std::uint64_t want = mount_attrs(flags);
    if ((*state.mnt_attr & want) != want)
      return fail(EPERM, fmt::format("mount attributes {:#x} lack {:#x}", *state.mnt_attr, want));
  } else {
    struct statvfs vfs {};
    if (::fstatvfs(top, &vfs) != 0) return fail_errno("statvfs mounted target");
    unsigned long want = st_flags(flags);
    if ((vfs.f_flag & want) != want)
      return fail(EPERM, fmt::format("mount flags {:#x} lack {:#x}", vfs.f_flag, want));
  }
  // A new mount, not the parent's: the kernel put our mount there.
  if (state.mount_id == parent_mount) return fail(EXDEV, "target is not a new mount");
  if (!state.is_private) return fail(EPERM, "mount has shared propagation");
  return ok();
}

// MIG capability files under /proc/driver/nvidia and the /dev/nvidia-caps directory are file
// mounts too; their trees are otherwise refused as targets.
PathPolicy policy_for(const std::string& container_path) {
  if (container_path.rfind("/proc/driver/nvidia/", 0) == 0) return PathPolicy::kProcfs;
  if (container_path.rfind("/dev/nvidia", 0) == 0 || container_path.rfind("/dev/dri/", 0) == 0)
    return PathPolicy::kDevice;
  return PathPolicy::kDefault;
}

}  // namespace

Result<OpenedSource> open_host_object(const Root& host_root, const std::string& host_path,
                                      OpenedSources* opened) {
  if (opened) {
    if (auto it = opened->find(host_path); it != opened->end()) {
      OpenedSource o = std::move(it->second);
      opened->erase(it);
      return o;
    }
  }
  OpenedSource o;
  NVCT_ASSIGN_OR_RETURN(o.fd, host_root.open_in_root(host_path, O_PATH | O_NOFOLLOW));
  if (::fstat(o.fd.get(), &o.st) != 0) return fail_errno(fmt::format("stat {}", host_path));
  return o;
}

Result<Source> open_source(const Root& host_root, const std::string& host_path, SourceKind kind,
                           std::optional<dev_t> expected_rdev, OpenedSources* opened) {
  NVCT_ASSIGN_OR_RETURN(OpenedSource o, open_host_object(host_root, host_path, opened));
  return check_source(std::move(o), host_path, kind, expected_rdev);
}

Result<Source> check_source(OpenedSource object, const std::string& host_path, SourceKind kind,
                            std::optional<dev_t> expected_rdev) {
  Source src;
  src.kind = kind;
  src.host_path = host_path;
  src.fd = std::move(object.fd);
  src.st = object.st;
  mode_t m = src.st.st_mode;
  auto bad = [&](std::string_view what) {
    return fail(EINVAL,
                fmt::format("unexpected source file mode {:o} for {}: {}", m, host_path, what));
  };
  switch (kind) {
    case SourceKind::kFile:
      // 1.16.2 (CVE-2024-0132 fix): a symlink or directory as a library source is an error.
      if (!S_ISREG(m)) return bad("not a regular file");
      if (src.st.st_uid != 0) return bad("not owned by root");
      if (m & (S_IWGRP | S_IWOTH)) return bad("group or other writable");
      break;
    case SourceKind::kDirectory:
      if (!S_ISDIR(m)) return bad("not a directory");
      break;
    case SourceKind::kSocket:
      if (!S_ISSOCK(m)) return bad("not a socket");
      break;
    case SourceKind::kCharDevice:
    case SourceKind::kBlockDevice:
      if (kind == SourceKind::kCharDevice ? !S_ISCHR(m) : !S_ISBLK(m))
        return bad("wrong device type");
      // runc CVE-2025-31133 lesson: the node must be the device we meant.
      if (expected_rdev && src.st.st_rdev != *expected_rdev)
        return fail(EINVAL, fmt::format("invalid device node {}: {}:{} instead of {}:{}", host_path,
                                        major(src.st.st_rdev), minor(src.st.st_rdev),
                                        major(*expected_rdev), minor(*expected_rdev)));
      break;
  }
  return src;
}

Status bind_mount(const Root& rootfs, const Source& source, const std::string& container_path,
                  const edits::MountFlags& flags, PathPolicy policy, Journal& journal) {
  auto run = [&]() -> Status {
    // Sources inside the container are never mounted (CVE-2024-0132, CVE-2025-23359).
    if (rootfs.relative_path(source.fd.get()))
      return fail(EPERM, fmt::format("source {} is inside the rootfs", source.host_path));
    NVCT_ASSIGN_OR_RETURN(unique_fd tree, clone_source(source, flags));
    TargetKind kind =
        source.kind == SourceKind::kDirectory ? TargetKind::kDirectory : TargetKind::kFile;
    NVCT_ASSIGN_OR_RETURN(Target target,
                          create_target(rootfs, container_path, kind, policy, &journal,
                                        static_cast<mode_t>(source.st.st_mode & 0777)));
    // A mount attached under a shared mount is copied to every peer of that mount at once,
    // before any flag can be set on it (mount(2) binds read-write and shared; move_mount is
    // copied too): peers may be the host's. The check after mounting would come too late.
    // The parent's mount, as found for an earlier mount into the same directory in this run
    // (the journal forgets it once a directory is mounted on).
    std::string parent_dir = dirname_of(target.path);
    Journal::DirMount parent;
    if (auto known = journal.known_dir_mount(parent_dir)) {
      parent = *known;
    } else {
      NVCT_ASSIGN_OR_RETURN(MountState st, mount_state(target.parent.get()));
      parent = {st.mount_id, st.is_private};
      journal.remember_dir_mount(parent_dir, parent);
    }
    if (!parent.is_private)
      return fail(EPERM, fmt::format("the mount holding {} has shared propagation: mounting "
                                     "there would propagate to other mount namespaces",
                                     target.path));
    unique_fd top;
    int top_fd = -1;  // the mounted target, kept open by the journal
    bool classic = !tree;
    if (!classic) {
      if (::move_mount(tree.get(), "", target.fd.get(), "",
                       MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0) {
        if (errno != ENOSYS) return fail_errno("move_mount");
        classic = true;
      } else {
        top.reset(
            ::openat(target.parent.get(), target.name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
        if (!top) return fail_errno("reopen mounted target");
        top_fd = journal.adopt_mount(std::move(top), target.path, kind == TargetKind::kDirectory);
      }
    }
    if (classic) {
      NVCT_TRY(classic_bind(source, target, flags, journal, top));
      top_fd = top.get();
    }
    NVCT_TRY(verify_mount(source, top_fd, parent.mount_id, flags));
    log::info("mounted {} at {} ({})", source.host_path, target.path, describe(flags));
    return ok();
  };
  return with_context(run(), fmt::format("mount {}", source.host_path));
}

Status mount_file(const Root& host_root, const Root& rootfs, const edits::FileMount& file,
                  Journal& journal, OpenedSources* opened) {
  auto open = [&]() -> Result<Source> {
    NVCT_ASSIGN_OR_RETURN(OpenedSource o, open_host_object(host_root, file.host_path, opened));
    SourceKind kind = SourceKind::kFile;
    if (file.kind == edits::FileKind::kDirectory) kind = SourceKind::kDirectory;
    // IPC is a socket (nvidia-persistenced) or a directory (MPS pipe dir): the object's type
    // says which, and check_source checks that same object.
    if (file.kind == edits::FileKind::kIpc)
      kind = S_ISDIR(o.st.st_mode) ? SourceKind::kDirectory : SourceKind::kSocket;
    return check_source(std::move(o), file.host_path, kind, std::nullopt);
  };
  NVCT_ASSIGN_OR_RETURN(Source src, with_context(open(), fmt::format("mount {}", file.host_path)));
  return bind_mount(rootfs, src, file.container_path, file.flags, policy_for(file.container_path),
                    journal);
}

Status mount_device(const Root& host_root, const Root& rootfs, const edits::DeviceNode& node,
                    Journal& journal, OpenedSources* opened) {
  SourceKind kind =
      node.type == edits::DeviceType::kChar ? SourceKind::kCharDevice : SourceKind::kBlockDevice;
  NVCT_ASSIGN_OR_RETURN(
      Source src,
      with_context(open_source(host_root, node.host_path, kind, node.expected_rdev(), opened),
                   fmt::format("mount {}", node.host_path)));
  return bind_mount(rootfs, src, node.container_path, edits::device_flags(), PathPolicy::kDevice,
                    journal);
}

void force_classic_mount_api(bool on) { g_force_classic.store(on); }
bool classic_mount_api_forced() { return g_force_classic.load(); }
std::uint64_t classic_mount_count() { return g_classic_count.load(); }

}  // namespace nvct::mount
