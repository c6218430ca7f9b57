// cgroup v2 device rules: replace each attached BPF_CGROUP_DEVICE program with ours + its own
// instructions (mount.md §10.4-10.5), built once for all rules of the container.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include "nvct/base/log.hpp"
#include "nvct/base/unique_fd.hpp"
#include "nvct/mount/cgroup.hpp"
#include "nvct/mount/device_program.hpp"

namespace nvct::mount {
namespace {

constexpr int kQueryRetries = 10;

Result<std::vector<std::uint32_t>> query_programs(int cgroup_fd) {
  std::vector<std::uint32_t> ids(64);
  for (int attempt = 0; attempt < kQueryRetries; ++attempt) {
    union bpf_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.query.target_fd = static_cast<std::uint32_t>(cgroup_fd);
    attr.query.attach_type = BPF_CGROUP_DEVICE;
    attr.query.prog_ids = reinterpret_cast<std::uint64_t>(ids.data());
    attr.query.prog_cnt = static_cast<std::uint32_t>(ids.size());
    if (bpf_syscall(BPF_PROG_QUERY, &attr) == 0) {
      ids.resize(attr.query.prog_cnt);
      return ids;
    }
    if (errno != ENOSPC) {
      if (errno == EPERM)
        return fail(EPERM,
                    "bpf_prog_query(BPF_CGROUP_DEVICE): operation not permitted; "
                    "set no-cgroups = true when running rootless");
      return fail_errno("bpf_prog_query(BPF_CGROUP_DEVICE)");
    }
    ids.resize(attr.query.prog_cnt + 64);
  }
  return fail(ENOSPC, "bpf_prog_query: program list kept growing");
}

Result<BpfProgram> program_instructions(int prog_fd) {
  struct bpf_prog_info info {};
  union bpf_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.info.bpf_fd = static_cast<std::uint32_t>(prog_fd);
  attr.info.info_len = sizeof info;
  attr.info.info = reinterpret_cast<std::uint64_t>(&info);
  if (bpf_syscall(BPF_OBJ_GET_INFO_BY_FD, &attr) != 0) return fail_errno("bpf_obj_get_info_by_fd");
  BpfProgram insns(info.xlated_prog_len / sizeof(bpf_insn));
  std::uint32_t len = info.xlated_prog_len;
  info = {};
  info.xlated_prog_len = len;
  info.xlated_prog_insns = reinterpret_cast<std::uint64_t>(insns.data());
  std::memset(&attr, 0, sizeof attr);
  attr.info.bpf_fd = static_cast<std::uint32_t>(prog_fd);
  attr.info.info_len = sizeof info;
  attr.info.info = reinterpret_cast<std::uint64_t>(&info);
  if (bpf_syscall(BPF_OBJ_GET_INFO_BY_FD, &attr) != 0)
    return fail_errno("bpf_obj_get_info_by_fd (instructions)");
  return insns;
}

Status attach(int cgroup_fd, int new_fd, int old_fd) {
  union bpf_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.target_fd = static_cast<std::uint32_t>(cgroup_fd);
  attr.attach_bpf_fd = static_cast<std::uint32_t>(new_fd);
  attr.attach_type = BPF_CGROUP_DEVICE;
  attr.attach_flags = BPF_F_ALLOW_MULTI | BPF_F_REPLACE;
  attr.replace_bpf_fd = static_cast<std::uint32_t>(old_fd);
  if (bpf_syscall(BPF_PROG_ATTACH, &attr) == 0) return ok();
  // Without BPF_F_REPLACE (kernel 5.4, issue #151) or for a program attached without
  // ALLOW_MULTI: attach ours, then detach the old one (not atomic, as the reference).
  attr.attach_flags = BPF_F_ALLOW_MULTI;
  attr.replace_bpf_fd = 0;
  if (bpf_syscall(BPF_PROG_ATTACH, &attr) != 0) {
    attr.attach_flags = 0;  // the cgroup holds a single non-multi program: override it
    if (bpf_syscall(BPF_PROG_ATTACH, &attr) != 0)
      return fail_errno("bpf_prog_attach(BPF_CGROUP_DEVICE)");
    return ok();
  }
  union bpf_attr detach;
  std::memset(&detach, 0, sizeof detach);
  detach.target_fd = static_cast<std::uint32_t>(cgroup_fd);
  detach.attach_bpf_fd = static_cast<std::uint32_t>(old_fd);
  detach.attach_type = BPF_CGROUP_DEVICE;
  if (bpf_syscall(BPF_PROG_DETACH, &detach) != 0)
    return fail_errno("bpf_prog_detach old device program");
  return ok();
}

}  // namespace

Result<int> allow_devices_v2(const std::string& cgroup_dir,
                             const std::vector<edits::CgroupRule>& rules) {
  unique_fd cg(::open(cgroup_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!cg) return fail_errno(fmt::format("open cgroup {}", cgroup_dir));
  NVCT_ASSIGN_OR_RETURN(auto ids, query_programs(cg.get()));
  if (ids.empty()) {
    // No program: the kernel allows every device. Adding a default-deny program would narrow
    // access to our list only (decision in shared/spec/README.md): attach nothing.
    log::info("cgroup {} has no device program; device access is not restricted", cgroup_dir);
    return 0;
  }
  int replaced = 0;
  for (std::uint32_t id : ids) {
    union bpf_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.prog_id = id;
    unique_fd old(static_cast<int>(bpf_syscall(BPF_PROG_GET_FD_BY_ID, &attr)));
    if (!old) {
      if (errno == EPERM || errno == EACCES) continue;  // an LSM hides it: leave it alone
      return fail_errno(fmt::format("bpf_prog_get_fd_by_id {}", id));
    }
    NVCT_ASSIGN_OR_RETURN(BpfProgram previous, program_instructions(old.get()));
    NVCT_ASSIGN_OR_RETURN(BpfProgram ours, build_device_program(rules, &previous));
    NVCT_ASSIGN_OR_RETURN(unique_fd prog, load_device_program(ours));
    NVCT_TRY(attach(cg.get(), prog.get(), old.get()));
    ++replaced;
  }
  log::info("replaced {} device program(s) of {} to allow {} rule(s)", replaced, cgroup_dir,
            rules.size());
  return replaced;
}

}  // namespace nvct::mount
