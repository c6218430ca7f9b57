#include "nvct/cdi_hooks/device_node_modification.hpp"

#include <sys/statvfs.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iterator>
#include <thread>

#include "hook_fixture.hpp"

namespace nvct::cdi_hooks {
namespace {

using testing::HookTest;

constexpr const char* kHostParams = "ResmanDebugLevel: 4294967295\nModifyDeviceFiles: 1\n";

class DisableDeviceNodeModification : public HookTest {
 protected:
  mount::Root host() const {
    auto r = mount::Root::open(sb.host());
    EXPECT_TRUE(r);
    return std::move(*r);
  }
  std::vector<std::string> staging_dirs() const {
    std::vector<std::string> out;
    for (auto& e : std::filesystem::directory_iterator("/tmp"))
      if (e.path().filename().string().rfind("nvct-params-", 0) == 0) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
  }
  // /tmp is shared with the other runs of this suite (ctest -j runs its variants in parallel),
  // whose own staging directories come and go; one of ours left behind would stay.
  // Staging directories present now that were not there before, after giving other runs' own
  // directories up to 2 s to go away.
  std::vector<std::string> new_staging_dirs(const std::vector<std::string>& before) const {
    std::vector<std::string> added;
    for (int i = 0; i < 100; ++i) {
      auto now = staging_dirs();
      added.clear();
      std::set_difference(now.begin(), now.end(), before.begin(), before.end(),
                          std::back_inserter(added));
      if (added.empty()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return added;
  }
};
NVCT_HOOK_TEST_P(DisableDeviceNodeModification);

TEST_P(DisableDeviceNodeModification, MountsAReadOnlyPrivateCopyWithModifyDeviceFilesOff) {
  sb.write("host/proc/driver/nvidia/params", kHostParams);
  sb.write("rootfs/proc/driver/nvidia/params", kHostParams);
  auto before = staging_dirs();
  auto r = disable_device_node_modification(host(), kParamsPath, root());
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, ParamsOutcome::kMounted);
  std::string p = sb.path("rootfs/proc/driver/nvidia/params");
  EXPECT_EQ(mount::testing::read_text(p), "ResmanDebugLevel: 4294967295\nModifyDeviceFiles: 0\n");
  EXPECT_EQ(mount::testing::mounts_under(p).size(), 1u);
  struct statvfs vfs {};
  ASSERT_EQ(::statvfs(p.c_str(), &vfs), 0);
  EXPECT_TRUE(vfs.f_flag & ST_RDONLY);
  EXPECT_TRUE(vfs.f_flag & ST_NOSUID);
  EXPECT_TRUE(vfs.f_flag & ST_NODEV);
  EXPECT_TRUE(vfs.f_flag & ST_NOEXEC);
  unique_fd fd(::open(p.c_str(), O_PATH | O_CLOEXEC));
  auto priv = mount::mount_is_private(fd.get());
  ASSERT_TRUE(priv);
  EXPECT_TRUE(*priv);
  // The host file is untouched and no staging directory is left behind.
  EXPECT_EQ(mount::testing::read_text(sb.path("host/proc/driver/nvidia/params")), kHostParams);
  EXPECT_EQ(new_staging_dirs(before), std::vector<std::string>{});
}

TEST_P(DisableDeviceNodeModification, SourceIsTheHostFileNotTheContainersProc) {
  sb.write("host/proc/driver/nvidia/params", "ModifyDeviceFiles: 1\nHostOnly: 7\n");
  // An image that ships its own /proc/driver/nvidia/params (checklist #13).
  sb.write("rootfs/proc/driver/nvidia/params", "ModifyDeviceFiles: 1\nFromImage: 1\n");
  auto r = disable_device_node_modification(host(), kParamsPath, root());
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(mount::testing::read_text(sb.path("rootfs/proc/driver/nvidia/params")),
            "ModifyDeviceFiles: 0\nHostOnly: 7\n");
}

TEST_P(DisableDeviceNodeModification, MissingHostParamsIsANoOp) {
  sb.write("rootfs/proc/driver/nvidia/params", kHostParams);
  auto r = disable_device_node_modification(host(), kParamsPath, root());
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, ParamsOutcome::kNoHostParams);
  EXPECT_TRUE(mount::testing::mounts_under(sb.rootfs()).empty());
}

TEST_P(DisableDeviceNodeModification, AlreadyDisabledIsANoOp) {
  sb.write("host/proc/driver/nvidia/params", "ModifyDeviceFiles: 0\n");
  sb.write("rootfs/proc/driver/nvidia/params", kHostParams);
  auto r = disable_device_node_modification(host(), kParamsPath, root());
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, ParamsOutcome::kAlreadyDisabled);
  EXPECT_TRUE(mount::testing::mounts_under(sb.rootfs()).empty());
}

TEST_P(DisableDeviceNodeModification, ASymlinkedContainerProcIsRefused) {
  sb.write("host/proc/driver/nvidia/params", kHostParams);
  sb.mkdir("rootfs/elsewhere");
  sb.symlink("/elsewhere", "rootfs/proc");
  auto r = disable_device_node_modification(host(), kParamsPath, root());
  EXPECT_FALSE(r);
  EXPECT_TRUE(mount::testing::mounts_under(sb.rootfs()).empty());
}

}  // namespace
}  // namespace nvct::cdi_hooks
