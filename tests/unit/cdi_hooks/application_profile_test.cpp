#include "nvct/cdi_hooks/application_profile.hpp"

#include "hook_fixture.hpp"
#include "nvct/mount/app_profile.hpp"

namespace nvct::cdi_hooks {
namespace {

using testing::HookTest;

nlohmann::ordered_json spec_with(const std::string& devices) {
  return nlohmann::ordered_json::parse(R"({"linux":{"devices":)" + devices + "}}");
}

TEST(ApplicationProfileMask, GpuMinorsOfTheSpecDevices) {
  struct Row {
    const char* devices;
    std::uint64_t mask;
  } rows[] = {
      {R"([])", 0},
      {R"([{"path":"/dev/nvidiactl","minor":255},{"path":"/dev/nvidia-uvm"}])", 0},
      {R"([{"path":"/dev/nvidia0"},{"path":"/dev/nvidia1"}])", 0x3},
      {R"([{"path":"/dev/nvidia3","minor":5}])", 0x20},
      {R"([{"path":"/dev/nvidia-caps/nvidia-cap1"},{"path":"/dev/nvidia2"}])", 0x4},
  };
  for (const auto& r : rows) {
    auto m = gpu_mask_of_spec(spec_with(r.devices));
    ASSERT_TRUE(m) << r.devices;
    EXPECT_EQ(*m, r.mask) << r.devices;
  }
  EXPECT_FALSE(gpu_mask_of_spec(spec_with(R"([{"path":"/dev/nvidia64"}])")));
  auto none = gpu_mask_of_spec(nlohmann::ordered_json::parse(R"({"process":{}})"));
  ASSERT_TRUE(none);
  EXPECT_EQ(*none, 0u);
}

class ApplicationProfile : public HookTest {};
NVCT_HOOK_TEST_P(ApplicationProfile);

TEST_P(ApplicationProfile, WritesTheMaskOfTheContainersGpus) {
  auto r = update_application_profile(root(), spec_with(R"([{"path":"/dev/nvidia1"}])"));
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ(**r, 0x2u);
  EXPECT_EQ(mount::testing::read_text(
                sb.path("rootfs/etc/nvidia/nvidia-application-profiles-rc.d/10-container.conf")),
            mount::render_profile(0x2));
}

TEST_P(ApplicationProfile, AnExistingMaskIsAccumulated) {
  sb.write("rootfs/etc/nvidia/nvidia-application-profiles-rc.d/10-container.conf",
           mount::render_profile(0x1));
  auto r = update_application_profile(root(), spec_with(R"([{"path":"/dev/nvidia1"}])"));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(**r, 0x3u);
  EXPECT_EQ(mount::testing::read_text(
                sb.path("rootfs/etc/nvidia/nvidia-application-profiles-rc.d/10-container.conf")),
            mount::render_profile(0x3));
}

TEST_P(ApplicationProfile, NoGpuMeansNoFile) {
  auto r = update_application_profile(root(), spec_with(R"([{"path":"/dev/nvidiactl"}])"));
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->has_value());
  EXPECT_FALSE(sb.exists("rootfs/etc"));
}

TEST_P(ApplicationProfile, ASymlinkedProfileFileIsRefused) {
  sb.write("outside", "host file");
  sb.symlink(sb.path("outside"),
             "rootfs/etc/nvidia/nvidia-application-profiles-rc.d/10-container.conf");
  auto r = update_application_profile(root(), spec_with(R"([{"path":"/dev/nvidia0"}])"));
  EXPECT_FALSE(r);
  EXPECT_EQ(mount::testing::read_text(sb.path("outside")), "host file");
}

}  // namespace
}  // namespace nvct::cdi_hooks
