#include "nvct/driver/device_selection.hpp"

#include <gtest/gtest.h>

namespace nvct::driver {
namespace {

// GPU0 (bus 17) has MIG devices 0 (gi1/ci0) and 1 (gi2/ci0); GPU1 (bus 2a) has none.
std::vector<Gpu> gpus() {
  Gpu g0;
  g0.index = 0;
  g0.uuid = "GPU-11111111-2222-3333-4444-555555555550";
  g0.bus_id = "00000000:17:00.0";
  g0.mig_capable = g0.mig_enabled = true;
  g0.migs = {{0, "MIG-11111111-2222-3333-4444-000000000000", 1, 0, "", "", {}, {}},
             {1, "MIG-11111111-2222-3333-4444-000000000001", 2, 0, "", "", {}, {}}};
  Gpu g1;
  g1.index = 1;
  g1.minor = 1;
  g1.uuid = "GPU-11111111-2222-3333-4444-555555555551";
  g1.bus_id = "00000000:2a:00.0";
  return {g0, g1};
}

using Gpus = std::vector<std::size_t>;
using Migs = std::vector<std::pair<std::size_t, std::size_t>>;

void expect_selects(std::string_view list, Gpus want_gpus, Migs want_migs = {}) {
  auto s = select_devices(gpus(), list);
  ASSERT_TRUE(s) << list << ": " << s.error().message();
  EXPECT_EQ(s->gpus, want_gpus) << list;
  EXPECT_EQ(s->migs, want_migs) << list;
}

constexpr const char* kValid =
    "valid devices: 0 (GPU-11111111-2222-3333-4444-555555555550), "
    "1 (GPU-11111111-2222-3333-4444-555555555551), 0:0 (MIG-11111111-2222-3333-4444-000000000000), "
    "0:1 (MIG-11111111-2222-3333-4444-000000000001), or all";

// The reference's text first, then the devices that would have been valid.
void expect_unknown(std::string_view list, std::string_view item) {
  auto s = select_devices(gpus(), list);
  ASSERT_FALSE(s) << list;
  EXPECT_EQ(s.error().code(), ENODEV);
  EXPECT_EQ(s.error().message(), std::string(item) + ": unknown device; " + kValid);
}

TEST(DeviceSelection, AllSelectsEveryGpuAndMigDeviceAndIgnoresTheRest) {
  expect_selects("all", {0, 1}, {{0, 0}, {0, 1}});
  expect_selects("ALL", {0, 1}, {{0, 0}, {0, 1}});
  // What was asked before `all` keeps its place, as libnvidia-container lists it.
  expect_selects("1,all,garbage", {1, 0}, {{0, 0}, {0, 1}});
  EXPECT_TRUE(select_devices(gpus(), "all")->all);
}

TEST(DeviceSelection, IndexAndEmptyItems) {
  expect_selects("1", {1});
  expect_selects(",1,,", {1});
  expect_selects("", {});
  expect_selects("1,0,1", {1, 0});  // duplicates ignored, the order asked for
}

// The reference's order: first mention wins, a MIG device brings its parent in at its place.
TEST(DeviceSelection, MigDevicesAndParentsInTheOrderAskedFor) {
  expect_selects("1,0:1,0:0", {1, 0}, {{0, 1}, {0, 0}});
  expect_selects("0:1,1,0:0", {0, 1}, {{0, 1}, {0, 0}});
}

TEST(DeviceSelection, GpuUuidIsCaseInsensitiveAndExact) {
  expect_selects("GPU-11111111-2222-3333-4444-555555555551", {1});
  expect_selects("gpu-11111111-2222-3333-4444-555555555551", {1});
  expect_unknown("GPU-1111", "GPU-1111");
  expect_unknown("GPU-11111111-2222-3333-4444-5555555555511",
                 "GPU-11111111-2222-3333-4444-5555555555511");
}

TEST(DeviceSelection, PciBusIdForms) {
  for (const char* id : {"0000:2a:00.0", "0:2a:0.0", "00000000:2a:00.0", "00000000:2A:00.0"})
    expect_selects(id, {1});
  expect_unknown("2a:00.0", "2a:00.0");
  expect_unknown("0000:99:00.0", "0000:99:00.0");
}

TEST(DeviceSelection, MigByUuidAndByGpuColonMigSelectTheParent) {
  expect_selects("0:1", {0}, {{0, 1}});
  expect_selects("MIG-11111111-2222-3333-4444-000000000001", {0}, {{0, 1}});
  expect_selects("0:0,0:1", {0}, {{0, 0}, {0, 1}});
  expect_unknown("0:2", "0:2");
  expect_unknown("1:0", "1:0");  // GPU1 has no MIG
  expect_unknown("2:0", "2:0");
}

TEST(DeviceSelection, UnknownIdsFailClosedWithTheReferenceText) {
  for (const char* bad : {"5", "99", "-1", "GPU-nope", "../../sda", "MIG-", "MIG-garbage", "0x1",
                          "1.0", " 1", "0:", ":0", "0:1:2"})
    expect_unknown(bad, bad);
  expect_unknown("0,1,nope", "nope");  // nothing is selected when one item is bad
}

TEST(DeviceSelection, TenThousandItems) {
  std::string list;
  for (int i = 0; i < 10000; ++i) list += "1,";
  expect_selects(list, {1});
  expect_unknown(list + "x", "x");
}

TEST(DeviceSelection, UnknownDeviceNamesWhereTheListCameFrom) {
  auto s = select_devices(gpus(), "0,7", "NVIDIA_VISIBLE_DEVICES");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(),
            std::string("7: unknown device (from NVIDIA_VISIBLE_DEVICES); ") + kValid);
}

TEST(DeviceSelection, UnknownDeviceOnAHostWithoutGpus) {
  auto s = select_devices({}, "0", "--device");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(),
            "0: unknown device (from --device); valid devices: none: the driver reports no GPU");
}

TEST(DeviceSelection, ValidDeviceListIsCappedOnLargeHosts) {
  std::vector<Gpu> many(40);
  for (unsigned i = 0; i < many.size(); ++i) {
    many[i].index = i;
    many[i].uuid = "GPU-" + std::to_string(i);
  }
  std::string text = describe_valid_devices(many);
  EXPECT_NE(text.find("31 (GPU-31), and 8 more, or all"), std::string::npos) << text;
  EXPECT_EQ(text.find("32 (GPU-32)"), std::string::npos) << text;
}

}  // namespace
}  // namespace nvct::driver
