// Post-mount checks against the mount table: the mount id of an fd and its propagation.
// Propagation is read with statmount(2) (Linux 6.8) when the kernel has it: one syscall for the
// mount in question, where /proc/thread-self/mountinfo makes the kernel print every mount of the
// namespace (about a millisecond per hook on 45 mounts, bench/hook). mountinfo stays the answer
// on older kernels and whenever statmount's reply does not check out.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstring>

#include "nvct/base/file.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/mount/bind.hpp"

namespace nvct::mount {
namespace {

// Linux uapi values; Debian 12's headers (6.1) predate them.
constexpr long kSysStatmount = 457;
constexpr unsigned kStatxMntIdUnique = 0x4000;
constexpr std::uint64_t kStatmountMntBasic = 0x2;

struct MntIdReq {  // struct mnt_id_req, MNT_ID_REQ_SIZE_VER0
  std::uint32_t size;
  std::uint32_t spare;
  std::uint64_t mnt_id;
  std::uint64_t param;
};
static_assert(sizeof(MntIdReq) == 24);

struct StatmountReply {  // the fixed part of struct statmount
  std::uint32_t size;
  std::uint32_t mnt_opts;
  std::uint64_t mask;
  std::uint32_t sb_dev_major;
  std::uint32_t sb_dev_minor;
  std::uint64_t sb_magic;
  std::uint32_t sb_flags;
  std::uint32_t fs_type;
  std::uint64_t mnt_id;
  std::uint64_t mnt_parent_id;
  std::uint32_t mnt_id_old;
  std::uint32_t mnt_parent_id_old;
  std::uint64_t mnt_attr;
  std::uint64_t mnt_propagation;
  std::uint64_t mnt_peer_group;
  std::uint64_t mnt_master;
  std::uint64_t propagate_from;
  std::uint32_t mnt_root;
  std::uint32_t mnt_point;
  std::uint64_t spare2[50];
};
static_assert(sizeof(StatmountReply) == 512);

// Propagation by statmount for the mount whose old-style id is `old_id` (the one `fd` is on).
std::optional<bool> private_by_statmount(int fd, std::uint64_t old_id) {
  struct statx unique_id {};
  if (::statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, kStatxMntIdUnique, &unique_id) != 0 ||
      !(unique_id.stx_mask & kStatxMntIdUnique))
    return std::nullopt;
  MntIdReq req{sizeof(MntIdReq), 0, unique_id.stx_mnt_id, kStatmountMntBasic};
  alignas(8) unsigned char buf[1024] = {};
  if (::syscall(kSysStatmount, &req, buf, sizeof buf, 0) != 0) return std::nullopt;
  StatmountReply reply;
  std::memcpy(&reply, buf, sizeof reply);
  // The reply must be about the mount we asked for, in the layout we expect: its old-style id
  // is the one statx gave.
  if (!(reply.mask & kStatmountMntBasic) || reply.mnt_id != unique_id.stx_mnt_id ||
      reply.mnt_id_old != old_id)
    return std::nullopt;
  return (reply.mnt_propagation & MS_SHARED) == 0;
}

Result<bool> private_by_mountinfo(std::uint64_t id) {
  NVCT_ASSIGN_OR_RETURN(std::string info, read_file("/proc/thread-self/mountinfo", 64u << 20));
  std::string want = fmt::format("{}", id);
  for (auto& line : strings::split(info, '\n')) {
    auto fields = strings::split(line, ' ');
    if (fields.size() < 7 || fields[0] != want) continue;
    // Optional fields sit between field 6 and the "-" separator.
    for (std::size_t i = 6; i < fields.size() && fields[i] != "-"; ++i)
      if (fields[i].rfind("shared:", 0) == 0) return false;
    return true;
  }
  return fail(ENOENT, fmt::format("mount {} not in mountinfo", id));
}

}  // namespace

Result<MountState> mount_state(int fd) {
  // One statx for the object and its unique mount id, then statmount for that mount: its old
  // style id, propagation and attributes. Kernels before 6.8 (no unique ids or statmount) take
  // a second statx for the old id, and mountinfo.
  struct statx stx {};
  if (::statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | kStatxMntIdUnique,
              &stx) != 0)
    return fail_errno("statx mount id");
  if (!(stx.stx_mask & STATX_INO)) return fail(ENOTSUP, "statx did not report the inode");
  MountState state;
  state.dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
  state.ino = static_cast<ino_t>(stx.stx_ino);
  if (stx.stx_mask & kStatxMntIdUnique) {
    MntIdReq req{sizeof(MntIdReq), 0, stx.stx_mnt_id, kStatmountMntBasic};
    alignas(8) unsigned char buf[1024] = {};
    if (::syscall(kSysStatmount, &req, buf, sizeof buf, 0) == 0) {
      StatmountReply reply;
      std::memcpy(&reply, buf, sizeof reply);
      // The reply must be about the mount we asked for, in the layout we expect.
      if ((reply.mask & kStatmountMntBasic) && reply.mnt_id == stx.stx_mnt_id &&
          reply.mnt_id_old != 0) {
        state.mount_id = reply.mnt_id_old;
        state.is_private = (reply.mnt_propagation & MS_SHARED) == 0;
        state.mnt_attr = reply.mnt_attr;
        return state;
      }
    }
  }
  NVCT_ASSIGN_OR_RETURN(state.mount_id, mount_id_of(fd));
  if (auto answer = private_by_statmount(fd, state.mount_id)) {
    state.is_private = *answer;
  } else {
    NVCT_ASSIGN_OR_RETURN(state.is_private, private_by_mountinfo(state.mount_id));
  }
  return state;
}

Result<std::uint64_t> mount_id_of(int fd) {
  struct statx stx {};
  if (::statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) != 0)
    return fail_errno("statx mount id");
  if (!(stx.stx_mask & STATX_MNT_ID)) return fail(ENOTSUP, "kernel does not report mount ids");
  return static_cast<std::uint64_t>(stx.stx_mnt_id);
}

std::optional<bool> mount_is_private_statmount(int fd) {
  auto id = mount_id_of(fd);
  if (!id) return std::nullopt;
  return private_by_statmount(fd, *id);
}

Result<bool> mount_is_private_mountinfo(int fd) {
  NVCT_ASSIGN_OR_RETURN(std::uint64_t id, mount_id_of(fd));
  return private_by_mountinfo(id);
}

Result<bool> mount_is_private(int fd) {
  NVCT_ASSIGN_OR_RETURN(MountState state, mount_state(fd));
  return state.is_private;
}

}  // namespace nvct::mount
