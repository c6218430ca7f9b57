#include "nvct/compat/tables.hpp"

#include <gtest/gtest.h>

namespace nvct::compat {
namespace {

TEST(Tables, ParseMajorMinor) {
  EXPECT_EQ(parse_major_minor("12.4")->str(), "12.4");
  EXPECT_EQ(parse_major_minor("11.8.20220929")->str(), "11.8");
  EXPECT_EQ(parse_major_minor("9")->str(), "9.0");
  EXPECT_FALSE(parse_major_minor("v12"));
  EXPECT_FALSE(parse_major_minor("12.x"));
  EXPECT_FALSE(parse_major_minor(""));
}

TEST(Tables, MinDriverEveryRow) {
  const std::pair<const char*, const char*> rows[] = {
      {"7.0", "346.46"},     {"7.5", "352.31"},     {"8.0", "367.48"},    {"9.0", "384.81"},
      {"9.1", "390.46"},     {"9.2", "396.26"},     {"10.0", "410.48"},   {"10.1", "418.39"},
      {"10.2", "440.33"},    {"11.0", "450.36.06"}, {"11.1", "455.23"},   {"11.2", "460.27.03"},
      {"11.3", "465.19.01"}, {"11.4", "470.42.01"}, {"11.5", "495.29.05"}, {"11.6", "510.39.01"},
      {"11.7", "515.43.04"}, {"11.8", "520.61.05"}, {"12.0", "525.60.13"}, {"12.1", "530.30.02"},
      {"12.2", "535.54.03"}, {"12.3", "545.23.06"}, {"12.4", "550.54.14"}, {"12.5", "555.42.02"},
      {"12.6", "560.28.03"}, {"12.8", "570.26"},    {"12.9", "575.51.03"}, {"13.0", "580.65.06"},
  };
  for (const auto& [cuda, driver] : rows) EXPECT_EQ(min_driver_for_cuda(cuda), driver) << cuda;
}

TEST(Tables, MinDriverBetweenRowsTakesTheLowerRowOfTheSameMajor) {
  EXPECT_EQ(min_driver_for_cuda("12.7"), "560.28.03");
  EXPECT_EQ(min_driver_for_cuda("12.4.1"), "550.54.14");
  EXPECT_FALSE(min_driver_for_cuda("6.5"));
  EXPECT_FALSE(min_driver_for_cuda("14.0"));
}

TEST(Tables, BranchToCudaEveryRow) {
  const std::pair<const char*, const char*> rows[] = {
      {"580.65.06", "13.0"}, {"590.1", "13.0"},  {"575.51.03", "12.9"}, {"570.26", "12.8"},
      {"560.28.03", "12.6"}, {"555.42.02", "12.5"}, {"550.54.14", "12.4"}, {"545.23.06", "12.3"},
      {"535.104.05", "12.2"}, {"530.30.02", "12.1"}, {"525.60.13", "12.0"}, {"520.61.05", "11.8"},
      {"515.43.04", "11.7"}, {"510.39.01", "11.6"}, {"495.29.05", "11.5"}, {"470.82.01", "11.4"},
      {"465.19.01", "11.3"}, {"460.27.03", "11.2"}, {"455.23", "11.1"},    {"450.80.02", "11.0"},
  };
  for (const auto& [driver, cuda] : rows) EXPECT_EQ(cuda_for_driver(driver), cuda) << driver;
  EXPECT_FALSE(cuda_for_driver("440.33"));
  EXPECT_FALSE(cuda_for_driver("garbage"));
}

TEST(Tables, MinorCompatFloors) {
  EXPECT_EQ(minor_compat_floor(11), "450.80.02");
  EXPECT_EQ(minor_compat_floor(12), "525.60.13");
  EXPECT_EQ(minor_compat_floor(13), "580");
  EXPECT_FALSE(minor_compat_floor(10));
}

TEST(Tables, PtxIsa) {
  EXPECT_EQ(ptx_isa_for_cuda("11.8"), "7.8");
  EXPECT_EQ(ptx_isa_for_cuda("11.5"), "7.5");
  EXPECT_EQ(ptx_isa_for_cuda("12.4"), "8.4");
  EXPECT_EQ(ptx_isa_for_cuda("12.8"), "8.7");
  EXPECT_EQ(ptx_isa_for_cuda("13.0"), "9.0");
  EXPECT_EQ(ptx_isa_for_cuda("10.2"), "6.5");
  EXPECT_EQ(cuda_for_ptx_isa("8.4"), "12.4");
  EXPECT_EQ(cuda_for_ptx_isa("7.8"), "11.8");
  EXPECT_FALSE(cuda_for_ptx_isa("99.0"));
}

TEST(Tables, CompareDriverVersions) {
  EXPECT_LT(*compare_driver_versions("535.104.05", "550.54.14"), 0);
  EXPECT_EQ(*compare_driver_versions("580", "580.0"), 0);
  EXPECT_FALSE(compare_driver_versions("abc", "1"));
}

}  // namespace
}  // namespace nvct::compat
