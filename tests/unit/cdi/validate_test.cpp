// cdi.md §4 validation rows 10-21 and the §1 field rules.
#include "nvct/cdi/validate.hpp"

#include <gtest/gtest.h>

namespace nvct::cdi {
namespace {

Spec valid_spec() {
  Spec s;
  s.cdi_version = "0.3.0";
  s.kind = "vendor.com/device";
  Device d;
  d.name = "dev1";
  d.container_edits.env = {"A=1"};
  s.devices.push_back(d);
  return s;
}

void expect_invalid(const Spec& s, const std::string& needle) {
  auto st = validate_spec(s);
  ASSERT_FALSE(st) << "expected invalid: " << needle;
  EXPECT_NE(st.error().message().find(needle), std::string::npos) << st.error().message();
}

TEST(ValidateSpec, ValidSpecPasses) { EXPECT_TRUE(validate_spec(valid_spec()).has_value()); }

TEST(ValidateSpec, Row10VersionZeroIsInvalid) {
  Spec s = valid_spec();
  s.cdi_version = "0.0.0";
  expect_invalid(s, "invalid version");
}

TEST(ValidateSpec, Row11MissingVersionOrKindIsInvalid) {
  Spec s = valid_spec();
  s.cdi_version = "";
  expect_invalid(s, "invalid version");
  Spec k = valid_spec();
  k.kind = "";
  expect_invalid(k, "kind");
}

TEST(ValidateSpec, Row12BadVendorOrClassInKind) {
  Spec s = valid_spec();
  s.kind = "vendor.com-/device";
  expect_invalid(s, "vendor");
  s.kind = "vendor.com/device=";
  expect_invalid(s, "class");
}

TEST(ValidateSpec, Row13EmptyDeviceEdits) {
  Spec s = valid_spec();
  s.devices[0].container_edits = {};
  expect_invalid(s, "empty device edits");
}

TEST(ValidateSpec, Row14DuplicateDeviceName) {
  Spec s = valid_spec();
  Device d2 = s.devices[0];
  d2.name = "dev2";
  s.devices.push_back(d2);
  s.devices.push_back(s.devices[0]);
  expect_invalid(s, "\"dev1\"");
}

TEST(ValidateSpec, Row15DeviceNameWithSpaces) {
  Spec s = valid_spec();
  s.devices[0].name = "a dev ice";
  expect_invalid(s, "a dev ice");
}

TEST(ValidateSpec, NoDevicesIsInvalid) {
  Spec s = valid_spec();
  s.devices.clear();
  expect_invalid(s, "no devices");
}

TEST(ValidateSpec, SpecLevelEditsAreValidated) {
  Spec s = valid_spec();
  s.container_edits.env = {"BAD"};
  expect_invalid(s, "BAD");
}

TEST(ValidateEdits, Row16EnvEntries) {
  for (const char* bad : {"", "=foo", "FOOBAR"}) {
    EXPECT_FALSE(validate_env(bad).has_value()) << bad;
  }
  EXPECT_TRUE(validate_env("BAR=BARVALUE1").has_value());
  EXPECT_TRUE(validate_env("EMPTY=").has_value());
}

TEST(ValidateEdits, Row17DeviceNodes) {
  DeviceNode n;
  EXPECT_FALSE(validate_device_node(n).has_value());  // empty path
  n.path = "/dev/null";
  EXPECT_TRUE(validate_device_node(n).has_value());  // path only
  n.type = "f";
  EXPECT_FALSE(validate_device_node(n).has_value());
  n.type = "";
  n.permissions = "to land";
  EXPECT_FALSE(validate_device_node(n).has_value());
  n.permissions = "none";
  EXPECT_TRUE(validate_device_node(n).has_value());
  n.permissions = "rwm";
  EXPECT_TRUE(validate_device_node(n).has_value());
  for (const char* t : {"b", "c", "u", "p"}) {
    n.type = t;
    EXPECT_TRUE(validate_device_node(n).has_value()) << t;
  }
}

TEST(ValidateEdits, Row18MountsNeedBothPaths) {
  EXPECT_FALSE(validate_mount({"", "/c", "", {}}).has_value());
  EXPECT_FALSE(validate_mount({"/h", "", "", {}}).has_value());
  EXPECT_TRUE(validate_mount({"/h", "/c", "", {}}).has_value());
}

TEST(ValidateEdits, Row19Hooks) {
  Hook h;
  h.hook_name = "misCreateRuntime";
  h.path = "/bin/hook";
  EXPECT_FALSE(validate_hook(h).has_value());
  for (const char* name : {"prestart", "createRuntime", "createContainer", "startContainer",
                           "poststart", "poststop"}) {
    h.hook_name = name;
    EXPECT_TRUE(validate_hook(h).has_value()) << name;
  }
  h.path = "";
  EXPECT_FALSE(validate_hook(h).has_value());
  h.path = "/bin/hook";
  h.env = {"key1=value1", "=value2"};
  EXPECT_FALSE(validate_hook(h).has_value());
}

TEST(ValidateEdits, Row20IntelRdtClosId) {
  for (const char* bad : {"foo/bar", ".", "..", "foo\nbar"}) {
    IntelRdt r;
    r.clos_id = bad;
    EXPECT_FALSE(validate_intel_rdt(r).has_value()) << bad;
  }
  for (const char* good : {"foo.bar", "/", ""}) {
    IntelRdt r;
    r.clos_id = good;
    EXPECT_TRUE(validate_intel_rdt(r).has_value()) << good;
  }
  IntelRdt big;
  big.clos_id = std::string(4096, 'a');
  EXPECT_FALSE(validate_intel_rdt(big).has_value());
  big.clos_id.pop_back();
  EXPECT_TRUE(validate_intel_rdt(big).has_value());
}

TEST(ValidateEdits, Row21NetDevices) {
  ContainerEdits e;
  e.net_devices = {{"", "net0"}};
  EXPECT_FALSE(validate_edits(e).has_value());
  e.net_devices = {{"eth0", ""}};
  EXPECT_FALSE(validate_edits(e).has_value());
  e.net_devices = {{"eth0", "net0"}, {"eth0", "net1"}};
  EXPECT_FALSE(validate_edits(e).has_value());
  e.net_devices = {{"eth0", "net0"}, {"eth1", "net0"}};
  EXPECT_FALSE(validate_edits(e).has_value());
  e.net_devices = {{"eth0", "net0"}, {"eth1", "net1"}};
  EXPECT_TRUE(validate_edits(e).has_value());
}

}  // namespace
}  // namespace nvct::cdi
