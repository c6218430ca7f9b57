#include "nvct/mount/device_program.hpp"

#include <gtest/gtest.h>

namespace nvct::mount {
namespace {

using edits::CgroupRule;

bool is(const bpf_insn& i, std::uint8_t code, std::uint8_t dst, std::int16_t off,
        std::int32_t imm) {
  return i.code == code && i.dst_reg == dst && i.off == off && i.imm == imm;
}

TEST(DeviceProgram, PrologueLoadsTypeAccessMajorMinor) {
  auto p = build_device_program({});
  ASSERT_TRUE(p);
  ASSERT_EQ(p->size(), kDeviceProgramPrologue + 2);
  EXPECT_TRUE(is((*p)[0], BPF_LDX | BPF_MEM | BPF_H, BPF_REG_2, 0, 0));
  EXPECT_TRUE(is((*p)[1], BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, 0, 0));
  EXPECT_TRUE(is((*p)[2], BPF_ALU | BPF_RSH | BPF_K, BPF_REG_3, 0, 16));
  EXPECT_TRUE(is((*p)[3], BPF_LDX | BPF_MEM | BPF_W, BPF_REG_4, 4, 0));
  EXPECT_TRUE(is((*p)[4], BPF_LDX | BPF_MEM | BPF_W, BPF_REG_5, 8, 0));
}

TEST(DeviceProgram, FromScratchEndsWithExplicitDenyNotBareExit) {
  auto p = build_device_program({CgroupRule{'c', 195, 255, "rw", true}});
  ASSERT_TRUE(p);
  ASSERT_GE(p->size(), 2u);
  EXPECT_TRUE(is((*p)[p->size() - 2], BPF_ALU | BPF_MOV | BPF_K, BPF_REG_0, 0, 0));
  EXPECT_EQ((*p)[p->size() - 1].code, BPF_JMP | BPF_EXIT);
}

TEST(DeviceProgram, RuleBlockChecksTypeAccessMajorMinorAndJumpsPastItself) {
  auto p = build_device_program({CgroupRule{'c', 195, 0, "rw", true}});
  ASSERT_TRUE(p);
  const std::size_t b = kDeviceProgramPrologue;
  // jne r2,2 ; mov32 r6,r3 ; and32 r6,6 ; jne r6,r3 ; jne r4,195 ; jne r5,0 ; mov32 r0,1 ; exit
  ASSERT_EQ(p->size(), b + 8 + 2);
  EXPECT_TRUE(is((*p)[b + 0], BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 7, BPF_DEVCG_DEV_CHAR));
  EXPECT_TRUE(is((*p)[b + 1], BPF_ALU | BPF_MOV | BPF_X, BPF_REG_6, 0, 0));
  EXPECT_EQ((*p)[b + 1].src_reg, BPF_REG_3);
  EXPECT_TRUE(is((*p)[b + 2], BPF_ALU | BPF_AND | BPF_K, BPF_REG_6, 0,
                 BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE));
  EXPECT_TRUE(is((*p)[b + 3], BPF_JMP | BPF_JNE | BPF_X, BPF_REG_6, 4, 0));
  EXPECT_EQ((*p)[b + 3].src_reg, BPF_REG_3);
  EXPECT_TRUE(is((*p)[b + 4], BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 3, 195));
  EXPECT_TRUE(is((*p)[b + 5], BPF_JMP | BPF_JNE | BPF_K, BPF_REG_5, 2, 0));
  EXPECT_TRUE(is((*p)[b + 6], BPF_ALU | BPF_MOV | BPF_K, BPF_REG_0, 0, 1));
  EXPECT_EQ((*p)[b + 7].code, BPF_JMP | BPF_EXIT);
}

TEST(DeviceProgram, WildcardsSkipTheirChecks) {
  auto p = build_device_program({CgroupRule{'c', 508, std::nullopt, "rwm", true}});
  ASSERT_TRUE(p);
  const std::size_t b = kDeviceProgramPrologue;
  // jne r2,2 ; jne r4,508 ; mov32 r0,1 ; exit
  ASSERT_EQ(p->size(), b + 4 + 2);
  EXPECT_TRUE(is((*p)[b + 0], BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 3, BPF_DEVCG_DEV_CHAR));
  EXPECT_TRUE(is((*p)[b + 1], BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 2, 508));
}

TEST(DeviceProgram, CatchAllRuleDropsLaterRules) {
  auto p = build_device_program({CgroupRule{'a', std::nullopt, std::nullopt, "rwm", false},
                                 CgroupRule{'c', 1, 3, "rw", true}});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->size(), kDeviceProgramPrologue + 2 + 2);
}

TEST(DeviceProgram, PreviousProgramFollowsOurRules) {
  BpfProgram previous = *build_device_program({CgroupRule{'c', 1, 3, "rw", true}});
  auto p = build_device_program({CgroupRule{'c', 195, 0, "rw", true}}, &previous);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->size(), kDeviceProgramPrologue + 8 + previous.size());
  for (std::size_t i = 0; i < previous.size(); ++i)
    EXPECT_EQ(std::memcmp(&(*p)[kDeviceProgramPrologue + 8 + i], &previous[i], sizeof(bpf_insn)),
              0);
}

TEST(DeviceProgram, InvalidRulesAreRejected) {
  EXPECT_FALSE(build_device_program({CgroupRule{'x', 1, 3, "rw", true}}));
  EXPECT_FALSE(build_device_program({CgroupRule{'c', 1, 3, "rwz", true}}));
}

// The runc devicefilter fixture of mount.md §10.4: default deny, allow c 1:3,1:5,1:8,1:9,5:0,
// 5:1,5:2,136:0 and deny c 10:229; the kernel verifier must accept it, alone and stacked.
TEST(DeviceProgram, KernelVerifierAcceptsGeneratedPrograms) {
  std::vector<CgroupRule> rules;
  for (auto [maj, min] : std::vector<std::pair<int, int>>{
           {1, 3}, {1, 5}, {1, 8}, {1, 9}, {5, 0}, {5, 1}, {5, 2}, {136, 0}})
    rules.push_back(CgroupRule{'c', static_cast<std::uint32_t>(maj),
                               static_cast<std::uint32_t>(min), "rwm", true});
  rules.push_back(CgroupRule{'c', 10, 229, "rwm", false});
  auto base = build_device_program(rules);
  ASSERT_TRUE(base);
  auto fd = load_device_program(*base);
  ASSERT_TRUE(fd) << fd.error().message();
  auto stacked = build_device_program({CgroupRule{'c', 195, std::nullopt, "rw", true}}, &*base);
  ASSERT_TRUE(stacked);
  auto fd2 = load_device_program(*stacked);
  ASSERT_TRUE(fd2) << fd2.error().message();
}

TEST(DeviceProgram, BareExitLikeTheReferenceIsRejectedByTheKernel) {
  BpfProgram bare = {bpf_insn{BPF_JMP | BPF_EXIT, 0, 0, 0, 0}};
  auto fd = load_device_program(bare);
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().code(), EACCES) << fd.error().message();
}

}  // namespace
}  // namespace nvct::mount
