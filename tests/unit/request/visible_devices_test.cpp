// Device list parsing and variable selection: spec/request.md §2 and §7 (IMEX).
#include "nvct/request/visible_devices.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace nvct::request {
namespace {

using Devices = std::optional<std::vector<std::string>>;
using Strings = std::vector<std::string>;

struct DevicesRow {
  const char* name;
  std::optional<std::string> value;
  bool legacy;
  Devices expected;
};

class DeviceList : public ::testing::TestWithParam<DevicesRow> {};

TEST_P(DeviceList, ParsesPerSpec) {
  EXPECT_EQ(parse_device_list(GetParam().value, GetParam().legacy), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, DeviceList,
    ::testing::Values(
        DevicesRow{"UnsetModernIsNil", std::nullopt, false, std::nullopt},
        DevicesRow{"UnsetLegacyIsAll", std::nullopt, true, Strings{"all"}},
        DevicesRow{"EmptyLegacyIsNil", std::string(""), true, std::nullopt},
        DevicesRow{"OnlySeparatorsIsNil", std::string(" , ,"), false, std::nullopt},
        DevicesRow{"VoidAnywhereIsNil", std::string("0,void,1"), false, std::nullopt},
        DevicesRow{"VoidBeatsAll", std::string("all,void"), false, std::nullopt},
        DevicesRow{"ZeroNoneIsNone", std::string("0,none"), false, Strings{""}},
        DevicesRow{"AllNoneIsAll", std::string("all,none"), false, Strings{"all"}},
        DevicesRow{"NoneAllIsNone", std::string("none,all"), false, Strings{""}},
        DevicesRow{"ItemsAreTrimmedEmptiesDropped", std::string(" 0 ,, GPU-1 ,"), false,
                Strings{"0", "GPU-1"}},
        DevicesRow{"OrderPreserved", std::string("3,1,MIG-x,0:1,nvidia.com/gpu=2"), false,
                Strings{"3", "1", "MIG-x", "0:1", "nvidia.com/gpu=2"}},
        DevicesRow{"DuplicatePairLeavesEmptyFirstSlot", std::string("0,0"), false, Strings{"", "0"}},
        DevicesRow{"DuplicateKeepsLastSlot", std::string("0,1,0"), false, Strings{"", "1", "0"}},
        DevicesRow{"ValuesAreCaseSensitive", std::string("ALL"), false, Strings{"ALL"}}),
    [](const ::testing::TestParamInfo<DevicesRow>& p) { return std::string(p.param.name); });

TEST(DeviceListValue, SwarmNamesAreTrimmedAndOnlyPresentOnesCount) {
  config::Config cfg;
  cfg.swarm_resource = " A , B ,C";
  Environment env = {{"A", "1"}, {"C", "3"}, {"NVIDIA_VISIBLE_DEVICES", "9"}};
  EXPECT_EQ(device_list_value(env, cfg), "1,3");
}

TEST(DeviceListValue, PresentButEmptySwarmVariableStillOverridesNvd) {
  config::Config cfg;
  cfg.swarm_resource = "A";
  Environment env = {{"A", ""}, {"NVIDIA_VISIBLE_DEVICES", "all"}};
  EXPECT_EQ(device_list_value(env, cfg), "");
  EXPECT_EQ(visible_devices_from_env(env, cfg, false), std::nullopt);
}

TEST(DeviceListValue, UnsetWhenNothingPresent) {
  EXPECT_EQ(device_list_value({}, config::Config{}), std::nullopt);
}

TEST(ImexFromEnv, NoneAndDuplicatesGiveCleanList) {
  EXPECT_TRUE(imex_channels_from_env({{"NVIDIA_IMEX_CHANNELS", "none"}}, false).empty());
  EXPECT_TRUE(imex_channels_from_env({{"NVIDIA_IMEX_CHANNELS", "void"}}, false).empty());
  EXPECT_TRUE(imex_channels_from_env({{"NVIDIA_IMEX_CHANNELS", "0,all"}}, false).empty());
  EXPECT_EQ(imex_channels_from_env({{"NVIDIA_IMEX_CHANNELS", "3,4,3"}}, false),
            (Strings{"4", "3"}));
}

}  // namespace
}  // namespace nvct::request

namespace nvct::request {
namespace {

// security.md checklist #28: the request passes ids through verbatim (selection, and failing
// closed on unknown ids, is the device selection's job); a huge list stays cheap and exact.
TEST(DeviceList, MalformedIdsArePassedThroughForSelectionToReject) {
  EXPECT_EQ(parse_device_list(std::string("-1,99,GPU-nope,../../sda,MIG-\x01garbage"), false),
            (Strings{"-1", "99", "GPU-nope", "../../sda", "MIG-\x01garbage"}));
}

TEST(DeviceList, TenThousandEntriesWithDuplicates) {
  std::string value;
  for (int i = 0; i < 10000; ++i) value += std::to_string(i % 5000) + ",";
  auto list = parse_device_list(value, false);
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 10000u);
  EXPECT_EQ((*list)[0], "");
  EXPECT_EQ((*list)[4999], "");
  EXPECT_EQ((*list)[5000], "0");
  EXPECT_EQ((*list)[9999], "4999");
}

}  // namespace
}  // namespace nvct::request
