// enable-coherent-annotations (cdi.md §6.2): <class>.coherent / <class>.noncoherent specs and
// their file names.
#include "nvct/cdi/coherent_specs.hpp"

#include <gtest/gtest.h>

#include "nvct/cdi/validate.hpp"

namespace nvct::cdi {
namespace {

Device device(const char* name, const char* node) {
  Device d;
  d.name = name;
  DeviceNode n;
  n.path = node;
  d.container_edits.device_nodes.push_back(n);
  return d;
}

Spec two_gpu_spec() {
  Spec s;
  s.cdi_version = "0.5.0";
  s.kind = "nvidia.com/gpu";
  s.devices = {device("0", "/dev/nvidia0"), device("1", "/dev/nvidia1"),
               device("all", "/dev/nvidia0")};
  s.container_edits.env = {"NVIDIA_VISIBLE_DEVICES=void"};
  return s;
}

TEST(CoherentSpecs, SplitsDevicesByCoherenceWithOwnAllDeviceAndDottedClass) {
  auto parts = split_by_coherence(two_gpu_spec(), {"1"});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].suffix, "coherent");
  EXPECT_EQ(parts[0].spec.kind, "nvidia.com/gpu.coherent");
  ASSERT_EQ(parts[0].spec.devices.size(), 2u);
  EXPECT_EQ(parts[0].spec.devices[0].name, "1");
  EXPECT_EQ(parts[0].spec.devices[1].name, "all");
  EXPECT_EQ(parts[0].spec.devices[1].container_edits.device_nodes[0].path, "/dev/nvidia1");
  EXPECT_EQ(parts[1].suffix, "noncoherent");
  EXPECT_EQ(parts[1].spec.kind, "nvidia.com/gpu.noncoherent");
  EXPECT_EQ(parts[1].spec.devices[0].name, "0");
  for (const auto& p : parts) {
    EXPECT_EQ(p.spec.cdi_version, "0.6.0");  // dotted class
    EXPECT_EQ(p.spec.container_edits.env, std::vector<std::string>{"NVIDIA_VISIBLE_DEVICES=void"});
    EXPECT_TRUE(validate_spec(p.spec)) << p.suffix;
  }
}

TEST(CoherentSpecs, PartsWithoutDevicesAreLeftOut) {
  auto parts = split_by_coherence(two_gpu_spec(), {});
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].suffix, "noncoherent");
  EXPECT_EQ(parts[0].spec.devices.size(), 3u);  // 0, 1, all
}

TEST(CoherentSpecs, NoAllDeviceInTheSourceMeansNoneInTheParts) {
  Spec s = two_gpu_spec();
  s.devices.pop_back();
  auto parts = split_by_coherence(s, {});
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].spec.devices.size(), 2u);
}

TEST(CoherentSpecs, OutputNames) {
  EXPECT_EQ(suffixed_output_path("/etc/cdi/nvidia.yaml", "coherent"),
            "/etc/cdi/nvidia.coherent.yaml");
  EXPECT_EQ(suffixed_output_path("/etc/cdi/nvidia.json", "noncoherent"),
            "/etc/cdi/nvidia.noncoherent.json");
  EXPECT_EQ(suffixed_output_path("spec", "coherent"), "spec.coherent");
  EXPECT_EQ(suffixed_output_path("/a.b/spec", "coherent"), "/a.b/spec.coherent");
  EXPECT_EQ(suffixed_output_path("/etc/cdi/.hidden", "coherent"), "/etc/cdi/.hidden.coherent");
}

}  // namespace
}  // namespace nvct::cdi
