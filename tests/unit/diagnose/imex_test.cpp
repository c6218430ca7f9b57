// One test per finding id of the imex family (spec/doctor.md §3.8) on a mock host tree.
#include <gtest/gtest.h>

#include "mock_host.hpp"

namespace nvct::diagnose {
namespace {

using testing::evidence_has;
using testing::find;
using testing::problem_ids;
using Ids = std::vector<std::string>;

class ImexCheck : public testing::ReadOnlyTest {
 protected:
  void SetUp() override {
    ReadOnlyTest::SetUp();
    host.options().only = {"imex"};
    host.file("/proc/devices",
              "Character devices:\n195 nvidia-frontend\n234 "
              "nvidia-caps-imex-channels\n238 nvidia-uvm\n\n");
  }
};

TEST_F(ImexCheck, NotInUse) {
  host.file("/proc/devices", "Character devices:\n195 nvidia-frontend\n\n");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  EXPECT_EQ(find(r, "imex.ok")->title, "IMEX not in use");
}

TEST_F(ImexCheck, ChannelsPresent) {
  host.node("/dev/nvidia-caps-imex-channels/channel0", 234, 0, 0666, false);
  host.node("/dev/nvidia-caps-imex-channels/channel1", 234, 1, 0666, false);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  EXPECT_EQ(find(r, "imex.ok")->title, "2 IMEX channels");
}

// Info: a stock driver creates no channel (NVreg_CreateImexChannel0=0, an H200 host with driver
// 580); only IMEX workloads need one.
TEST_F(ImexCheck, ChannelsMissing) {
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  const Finding* f = find(r, "imex.channels-missing");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_TRUE(evidence_has(*f, "/proc/devices: 234 nvidia-caps-imex-channels"));
  EXPECT_EQ(f->fix,
            "mkdir -p /dev/nvidia-caps-imex-channels && mknod "
            "/dev/nvidia-caps-imex-channels/channel0 c 234 0");
}

TEST_F(ImexCheck, AFileWithTheRightNameIsNotAChannel) {
  host.file("/dev/nvidia-caps-imex-channels/channel0", "");
  EXPECT_NE(find(run(), "imex.channels-missing"), nullptr);
}

}  // namespace
}  // namespace nvct::diagnose
