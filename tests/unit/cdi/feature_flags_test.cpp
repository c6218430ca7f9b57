// The nvcdi feature flags of config.md §3: every known name sets its field, lists may be
// comma-separated, unknown names are returned for a warning (and change nothing).
#include "nvct/cdi/feature_flags.hpp"

#include <gtest/gtest.h>

namespace nvct::cdi {
namespace {

TEST(FeatureFlags, NoneGivenMeansAllOff) {
  auto p = parse_feature_flags({});
  EXPECT_FALSE(p.flags.explicit_driver_libraries);
  EXPECT_FALSE(p.flags.disable_nvsandboxutils);
  EXPECT_FALSE(p.flags.coherent_annotations);
  EXPECT_FALSE(p.flags.disable_multiple_csv_devices);
  EXPECT_FALSE(p.flags.no_additional_gids_for_device_nodes);
  EXPECT_FALSE(p.flags.disable_ipc_discoverer);
  EXPECT_TRUE(p.unknown.empty());
}

TEST(FeatureFlags, EachKnownFlagSetsItsField) {
  struct Row {
    const char* name;
    bool FeatureFlags::*field;
  };
  const Row rows[] = {
      {"enable-explicit-driver-libraries", &FeatureFlags::explicit_driver_libraries},
      {"disable-nvsandboxutils", &FeatureFlags::disable_nvsandboxutils},
      {"enable-coherent-annotations", &FeatureFlags::coherent_annotations},
      {"disable-multiple-csv-devices", &FeatureFlags::disable_multiple_csv_devices},
      {"no-additional-gids-for-device-nodes", &FeatureFlags::no_additional_gids_for_device_nodes},
      {"disable-ipc-discoverer", &FeatureFlags::disable_ipc_discoverer},
  };
  ASSERT_EQ(std::size(rows), std::size(kKnownFeatureFlags));
  for (const auto& row : rows) {
    auto p = parse_feature_flags({row.name});
    EXPECT_TRUE(p.flags.*(row.field)) << row.name;
    EXPECT_TRUE(p.unknown.empty()) << row.name;
    int set = 0;
    for (const auto& other : rows) set += (p.flags.*(other.field)) ? 1 : 0;
    EXPECT_EQ(set, 1) << row.name << " must set only its own field";
  }
}

TEST(FeatureFlags, CommaSeparatedItemsAndBlanks) {
  auto p = parse_feature_flags({"disable-ipc-discoverer, no-additional-gids-for-device-nodes", ""});
  EXPECT_TRUE(p.flags.disable_ipc_discoverer);
  EXPECT_TRUE(p.flags.no_additional_gids_for_device_nodes);
  EXPECT_TRUE(p.unknown.empty());
}

TEST(FeatureFlags, UnknownNamesAreReportedOnceAndIgnored) {
  auto p = parse_feature_flags({"bogus", "Disable-IPC-Discoverer", "bogus"});
  EXPECT_EQ(p.unknown, (std::vector<std::string>{"bogus", "Disable-IPC-Discoverer"}));
  EXPECT_FALSE(p.flags.disable_ipc_discoverer);  // names are case-sensitive
}

}  // namespace
}  // namespace nvct::cdi
