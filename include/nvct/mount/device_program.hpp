// The cgroup v2 device program (mount.md §10.4-10.5) built as raw eBPF instructions:
// a prologue that loads type/access/major/minor from struct bpf_cgroup_dev_ctx, one block per
// rule, then either an existing program's instructions (its rules keep their meaning for
// everything our rules do not match) or an explicit "mov r0, 0; exit". The reference's bare
// `exit` with r0 unset is rejected by the verifier (libnvidia-container issue #209).
#pragma once

#include <linux/bpf.h>

#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/base/unique_fd.hpp"
#include "nvct/edits/edits.hpp"

namespace nvct::mount {

using BpfProgram = std::vector<struct bpf_insn>;

// Instructions of the prologue, exposed for layout tests.
inline constexpr std::size_t kDeviceProgramPrologue = 5;

// Fails on a rule with an unknown type or access letters.
Result<BpfProgram> build_device_program(const std::vector<edits::CgroupRule>& rules,
                                        const BpfProgram* previous = nullptr);

// bpf(BPF_PROG_LOAD) as BPF_PROG_TYPE_CGROUP_DEVICE; returns the program fd. The verifier log
// is part of the error.
Result<unique_fd> load_device_program(const BpfProgram& program);

// bpf(2) with `attr` (glibc has no wrapper): the program load here and the cgroup attach,
// query and detach of cgroup_bpf.cpp.
long bpf_syscall(int cmd, union bpf_attr* attr);

}  // namespace nvct::mount
