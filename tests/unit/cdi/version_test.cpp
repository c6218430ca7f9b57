// cdi.md §1 version rules and §4 minimum-version table.
#include "nvct/cdi/version.hpp"

#include <gtest/gtest.h>

namespace nvct::cdi {
namespace {

Spec version_base_spec() {
  Spec s;
  s.cdi_version = "0.3.0";
  s.kind = "vendor.com/class";
  Device d;
  d.name = "dev";
  d.container_edits.env = {"A=1"};
  s.devices.push_back(d);
  return s;
}

std::string min_of(const Spec& s) { return minimum_required_version(s).str(); }

TEST(MinimumVersion, NothingSpecialIs030) { EXPECT_EQ(min_of(version_base_spec()), "0.3.0"); }

TEST(MinimumVersion, MountTypeIs040) {
  Spec s = version_base_spec();
  s.container_edits.mounts.push_back({"/h", "/c", "bind", {}});
  EXPECT_EQ(min_of(s), "0.4.0");
}

TEST(MinimumVersion, HostPathEvenWhenEqualToPathIs050) {
  Spec s = version_base_spec();
  DeviceNode n;
  n.path = "/dev/x";
  n.host_path = "/dev/x";
  s.devices[0].container_edits.device_nodes.push_back(n);
  EXPECT_EQ(min_of(s), "0.5.0");
}

TEST(MinimumVersion, DeviceNameStartingWithDigitIs050) {
  Spec s = version_base_spec();
  s.devices[0].name = "0";
  EXPECT_EQ(min_of(s), "0.5.0");
}

TEST(MinimumVersion, SpecOrDeviceAnnotationsAre060) {
  Spec s = version_base_spec();
  s.annotations["a"] = "b";
  EXPECT_EQ(min_of(s), "0.6.0");
  Spec d = version_base_spec();
  d.devices[0].annotations["a"] = "b";
  EXPECT_EQ(min_of(d), "0.6.0");
}

TEST(MinimumVersion, DottedClassIs060) {
  Spec s = version_base_spec();
  s.kind = "vendor.com/class.sub";
  EXPECT_EQ(min_of(s), "0.6.0");
}

TEST(MinimumVersion, AnnotationsHostPathAndMountTypeTogetherAre060) {
  Spec s = version_base_spec();
  s.annotations["a"] = "b";
  DeviceNode n;
  n.path = "/dev/x";
  n.host_path = "/h/dev/x";
  s.container_edits.device_nodes.push_back(n);
  s.container_edits.mounts.push_back({"/h", "/c", "bind", {}});
  EXPECT_EQ(min_of(s), "0.6.0");
}

TEST(MinimumVersion, IntelRdtClosIdIs070) {
  Spec s = version_base_spec();
  IntelRdt r;
  r.clos_id = "foo";
  s.devices[0].container_edits.intel_rdt = r;
  EXPECT_EQ(min_of(s), "0.7.0");
}

TEST(MinimumVersion, AdditionalGidsAre070) {
  Spec s = version_base_spec();
  s.container_edits.additional_gids = {5};
  EXPECT_EQ(min_of(s), "0.7.0");
}

TEST(MinimumVersion, RdtSchemataOrMonitoringAre110) {
  Spec s = version_base_spec();
  IntelRdt r;
  r.schemata = {"L3:0=f"};
  s.container_edits.intel_rdt = r;
  EXPECT_EQ(min_of(s), "1.1.0");
  Spec m = version_base_spec();
  IntelRdt r2;
  r2.enable_monitoring = true;
  m.container_edits.intel_rdt = r2;
  EXPECT_EQ(min_of(m), "1.1.0");
}

TEST(MinimumVersion, NetDevicesAre110) {
  Spec s = version_base_spec();
  s.container_edits.net_devices.push_back({"eth0", "net0"});
  EXPECT_EQ(min_of(s), "1.1.0");
}

TEST(VersionCheck, ZeroIsNotAKnownVersion) {
  Spec s = version_base_spec();
  s.cdi_version = "0.0.0";
  auto st = validate_version(s);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("invalid version"), std::string::npos);
}

TEST(VersionCheck, LeadingVIsTolerated) {
  Spec s = version_base_spec();
  s.cdi_version = "v0.3.0";
  EXPECT_TRUE(validate_version(s).has_value());
}

TEST(VersionCheck, BelowTheMinimumNamesTheMinimum) {
  Spec s = version_base_spec();
  s.devices[0].name = "0";
  s.cdi_version = "0.4.0";
  auto st = validate_version(s);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message(), "the spec version must be at least v0.5.0");
}

TEST(VersionCheck, KnownVersionsRunFrom010To110) {
  for (const char* v : {"0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0",
                        "1.0.0", "1.1.0"}) {
    EXPECT_TRUE(is_known_version(v)) << v;
  }
  EXPECT_FALSE(is_known_version("1.2.0"));
  EXPECT_FALSE(is_known_version("0.5"));
  EXPECT_FALSE(is_known_version("x.y.z"));
}

}  // namespace
}  // namespace nvct::cdi
