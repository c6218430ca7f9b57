#include "nvct/mount/device_program.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

namespace nvct::mount {
namespace {

bpf_insn insn(std::uint8_t code, std::uint8_t dst, std::uint8_t src, std::int16_t off,
              std::int32_t imm) {
  bpf_insn i{};
  i.code = code;
  i.dst_reg = dst & 0xf;
  i.src_reg = src & 0xf;
  i.off = off;
  i.imm = imm;
  return i;
}

bpf_insn ldx_w(std::uint8_t dst, std::int16_t off) {
  return insn(BPF_LDX | BPF_MEM | BPF_W, dst, BPF_REG_1, off, 0);
}
bpf_insn ldx_h(std::uint8_t dst, std::int16_t off) {
  return insn(BPF_LDX | BPF_MEM | BPF_H, dst, BPF_REG_1, off, 0);
}
bpf_insn mov32_imm(std::uint8_t dst, std::int32_t imm) {
  return insn(BPF_ALU | BPF_MOV | BPF_K, dst, 0, 0, imm);
}
bpf_insn mov32_reg(std::uint8_t dst, std::uint8_t src) {
  return insn(BPF_ALU | BPF_MOV | BPF_X, dst, src, 0, 0);
}
bpf_insn and32_imm(std::uint8_t dst, std::int32_t imm) {
  return insn(BPF_ALU | BPF_AND | BPF_K, dst, 0, 0, imm);
}
bpf_insn rsh32_imm(std::uint8_t dst, std::int32_t imm) {
  return insn(BPF_ALU | BPF_RSH | BPF_K, dst, 0, 0, imm);
}
bpf_insn jne_imm(std::uint8_t dst, std::int32_t imm) {
  return insn(BPF_JMP | BPF_JNE | BPF_K, dst, 0, 0, imm);
}
bpf_insn jne_reg(std::uint8_t dst, std::uint8_t src) {
  return insn(BPF_JMP | BPF_JNE | BPF_X, dst, src, 0, 0);
}
bpf_insn exit_insn() { return insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0); }

Result<std::int32_t> access_mask(const std::string& access) {
  std::int32_t mask = 0;
  for (char c : access) {
    switch (c) {
      case 'r':
        mask |= BPF_DEVCG_ACC_READ;
        break;
      case 'w':
        mask |= BPF_DEVCG_ACC_WRITE;
        break;
      case 'm':
        mask |= BPF_DEVCG_ACC_MKNOD;
        break;
      default:
        return fail(EINVAL, fmt::format("invalid access '{}' in device rule", access));
    }
  }
  return mask;
}

// One rule: every check jumps to the end of the block when it does not match.
Result<BpfProgram> rule_block(const edits::CgroupRule& rule) {
  BpfProgram block;
  if (rule.type == 'c' || rule.type == 'b') {
    block.push_back(
        jne_imm(BPF_REG_2, rule.type == 'c' ? BPF_DEVCG_DEV_CHAR : BPF_DEVCG_DEV_BLOCK));
  } else if (rule.type != 'a') {
    return fail(EINVAL, fmt::format("invalid device rule type '{}'", rule.type));
  }
  NVCT_ASSIGN_OR_RETURN(std::int32_t mask, access_mask(rule.access));
  constexpr std::int32_t kAll = BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE | BPF_DEVCG_ACC_MKNOD;
  if (mask != kAll) {
    // The requested access must be a subset of the rule's (libnvidia-container issue #227).
    block.push_back(mov32_reg(BPF_REG_6, BPF_REG_3));
    block.push_back(and32_imm(BPF_REG_6, mask));
    block.push_back(jne_reg(BPF_REG_6, BPF_REG_3));
  }
  if (rule.major) block.push_back(jne_imm(BPF_REG_4, static_cast<std::int32_t>(*rule.major)));
  if (rule.minor) block.push_back(jne_imm(BPF_REG_5, static_cast<std::int32_t>(*rule.minor)));
  block.push_back(mov32_imm(BPF_REG_0, rule.allow ? 1 : 0));
  block.push_back(exit_insn());
  const auto n = static_cast<std::int16_t>(block.size());
  for (std::int16_t i = 0; i < n; ++i)
    if (BPF_CLASS(block[static_cast<std::size_t>(i)].code) == BPF_JMP &&
        BPF_OP(block[static_cast<std::size_t>(i)].code) == BPF_JNE)
      block[static_cast<std::size_t>(i)].off = static_cast<std::int16_t>(n - i - 1);
  return block;
}

}  // namespace

long bpf_syscall(int cmd, union bpf_attr* attr) {
  return ::syscall(SYS_bpf, cmd, attr, sizeof *attr);
}

Result<BpfProgram> build_device_program(const std::vector<edits::CgroupRule>& rules,
                                        const BpfProgram* previous) {
  BpfProgram prog = {
      ldx_h(BPF_REG_2, 0),                            // type: low 16 bits of access_type
      ldx_w(BPF_REG_3, 0),                            // access_type
      rsh32_imm(BPF_REG_3, 16), ldx_w(BPF_REG_4, 4),  // major
      ldx_w(BPF_REG_5, 8),                            // minor
  };
  for (const auto& rule : rules) {
    NVCT_ASSIGN_OR_RETURN(BpfProgram block, rule_block(rule));
    prog.insert(prog.end(), block.begin(), block.end());
    // A block without checks matches everything: later rules could never run.
    if (rule.type == 'a' && !rule.major && !rule.minor && block.size() == 2) break;
  }
  if (previous && !previous->empty()) {
    prog.insert(prog.end(), previous->begin(), previous->end());
  } else {
    prog.push_back(mov32_imm(BPF_REG_0, 0));
    prog.push_back(exit_insn());
  }
  return prog;
}

Result<unique_fd> load_device_program(const BpfProgram& program) {
  // Kernels before 5.11 charge BPF memory to RLIMIT_MEMLOCK.
  struct rlimit unlimited {
    RLIM_INFINITY, RLIM_INFINITY
  };
  ::setrlimit(RLIMIT_MEMLOCK, &unlimited);
  static const char kLicense[] = "Apache";
  static char log_buf[65536];
  union bpf_attr attr;
  auto load = [&](bool with_log) {
    std::memset(&attr, 0, sizeof attr);
    attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
    attr.insns = reinterpret_cast<std::uint64_t>(program.data());
    attr.insn_cnt = static_cast<std::uint32_t>(program.size());
    attr.license = reinterpret_cast<std::uint64_t>(kLicense);
    if (with_log) {
      log_buf[0] = '\0';
      attr.log_buf = reinterpret_cast<std::uint64_t>(log_buf);
      attr.log_size = sizeof log_buf;
      attr.log_level = 1;
    }
    return bpf_syscall(BPF_PROG_LOAD, &attr);
  };
  long fd = load(false);
  if (fd >= 0) return unique_fd(static_cast<int>(fd));
  int err = errno;
  // Load again with the verifier log, only to explain the failure.
  fd = load(true);
  if (fd >= 0) ::close(static_cast<int>(fd));
  return fail(err, fmt::format("load device program: {}: {}", std::strerror(err), log_buf));
}

}  // namespace nvct::mount
