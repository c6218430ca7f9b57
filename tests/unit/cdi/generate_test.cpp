// `cdi generate` content (spec/cdi.md §6.2-§6.4): the golden TestGenerateSpec output and its
// variants, device naming, MIG devices, the merged `all` device and the minimum cdiVersion.
#include "nvct/cdi/generate.hpp"

#include <gtest/gtest.h>

#include "generate_fixture.hpp"
#include "nvct/cdi/spec_io.hpp"

namespace nvct::cdi {
namespace {

using testing::golden_info;
using testing::MapDeviceLookup;
using testing::mig_info;

// The §6.4 golden, with the reference's flow lists written as block lists (the reference's
// real output uses block lists too). Substitutions: {{root}} is /driver-root; nothing else
// differs.
const char* kGolden = R"(---
cdiVersion: 0.5.0
kind: example.com/device
devices:
    - name: "0"
      containerEdits:
        deviceNodes:
            - path: /dev/nvidia0
              hostPath: /driver-root/dev/nvidia0
    - name: all
      containerEdits:
        deviceNodes:
            - path: /dev/nvidia0
              hostPath: /driver-root/dev/nvidia0
containerEdits:
    env:
        - NVIDIA_CTK_LIBCUDA_DIR=/lib/x86_64-linux-gnu
        - NVIDIA_VISIBLE_DEVICES=void
    deviceNodes:
        - path: /dev/nvidiactl
          hostPath: /driver-root/dev/nvidiactl
    hooks:
        - hookName: createContainer
          path: /usr/bin/nvidia-cdi-hook
          args:
            - nvidia-cdi-hook
            - create-symlinks
            - --link
            - libcuda.so.1::/lib/x86_64-linux-gnu/libcuda.so
          env:
            - NVIDIA_CTK_DEBUG=false
        - hookName: createContainer
          path: /usr/bin/nvidia-cdi-hook
          args:
            - nvidia-cdi-hook
            - enable-cuda-compat
            - --host-driver-version=999.88.77
          env:
            - NVIDIA_CTK_DEBUG=false
        - hookName: createContainer
          path: /usr/bin/nvidia-cdi-hook
          args:
            - nvidia-cdi-hook
            - update-ldcache
            - --folder
            - /lib/x86_64-linux-gnu
            - --folder
            - /lib/x86_64-linux-gnu/vdpau
          env:
            - NVIDIA_CTK_DEBUG=false
        - hookName: createContainer
          path: /usr/bin/nvidia-cdi-hook
          args:
            - nvidia-cdi-hook
            - disable-device-node-modification
          env:
            - NVIDIA_CTK_DEBUG=false
        - hookName: createContainer
          path: /usr/bin/nvidia-cdi-hook
          args:
            - nvidia-cdi-hook
            - update-application-profile
          env:
            - NVIDIA_CTK_DEBUG=false
    mounts:
        - hostPath: /driver-root/lib/x86_64-linux-gnu/libcuda.so.999.88.77
          containerPath: /lib/x86_64-linux-gnu/libcuda.so.999.88.77
          options:
            - ro
            - nosuid
            - nodev
            - rbind
            - rprivate
        - hostPath: /driver-root/lib/x86_64-linux-gnu/vdpau/libvdpau_nvidia.so.999.88.77
          containerPath: /lib/x86_64-linux-gnu/vdpau/libvdpau_nvidia.so.999.88.77
          options:
            - ro
            - nosuid
            - nodev
            - rbind
            - rprivate
)";

GenerateOptions golden_options() {
  GenerateOptions o;
  o.vendor = "example.com";
  o.class_name = "device";
  return o;
}

std::vector<std::string> names(const Spec& s) {
  std::vector<std::string> out;
  for (const auto& d : s.devices) out.push_back(d.name);
  return out;
}

std::vector<std::string> hook_names(const Spec& s) {
  std::vector<std::string> out;
  for (const auto& h : s.container_edits.hooks) out.push_back(h.args.at(1));
  return out;
}

TEST(GenerateSpec, GoldenMatchesReferenceTestGenerateSpec) {
  MapDeviceLookup lookup;  // the reference fixture's nodes are plain files: nothing to fill in
  auto spec = generate_spec(golden_info("/driver-root"), golden_options(), lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(to_yaml(*spec), kGolden);
}

TEST(GenerateSpec, DefaultContentNeedsOnlyCdi050SoPodman43ReadsIt) {
  MapDeviceLookup lookup;
  lookup.nodes["/driver-root/dev/nvidia0"] = HostDeviceInfo{"c", 195, 0, 0666};
  lookup.nodes["/driver-root/dev/nvidiactl"] = HostDeviceInfo{"c", 195, 255, 0666};
  auto spec = generate_spec(golden_info("/driver-root"), GenerateOptions{}, lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(spec->cdi_version, "0.5.0");
  EXPECT_EQ(spec->kind, "nvidia.com/gpu");
  EXPECT_TRUE(spec->annotations.empty());
  EXPECT_TRUE(spec->container_edits.additional_gids.empty());
}

TEST(GenerateSpec, ReadableHostNodesCarryTypeMajorMinorAndMode) {
  MapDeviceLookup lookup;
  lookup.nodes["/driver-root/dev/nvidia0"] = HostDeviceInfo{"c", 195, 0, 0666};
  auto spec = generate_spec(golden_info("/driver-root"), GenerateOptions{}, lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  const DeviceNode& n = spec->devices[0].container_edits.device_nodes.at(0);
  EXPECT_EQ(n.type, "c");
  EXPECT_EQ(n.major, 195);
  EXPECT_EQ(n.minor, 0);
  EXPECT_EQ(n.file_mode, 0666u);
}

TEST(GenerateSpec, RootDriverRootOmitsHostPathAndNeedsOnly030ForTypedNames) {
  MapDeviceLookup lookup;
  GenerateOptions o;
  o.strategies = {NameStrategy::kTypeIndex};
  auto spec = generate_spec(golden_info("/"), o, lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(names(*spec), (std::vector<std::string>{"gpu0", "all"}));
  EXPECT_TRUE(spec->devices[0].container_edits.device_nodes[0].host_path.empty());
  EXPECT_EQ(spec->container_edits.mounts[0].host_path,
            "/lib/x86_64-linux-gnu/libcuda.so.999.88.77");
  EXPECT_EQ(spec->cdi_version, "0.3.0");
}

TEST(GenerateSpec, DisableHookDropsIt) {
  MapDeviceLookup lookup;
  GenerateOptions o = golden_options();
  o.hooks.disabled = {"enable-cuda-compat"};
  auto spec = generate_spec(golden_info("/r"), o, lookup);
  ASSERT_TRUE(spec);
  EXPECT_EQ(hook_names(*spec), (std::vector<std::string>{"create-symlinks", "update-ldcache",
                                                         "disable-device-node-modification",
                                                         "update-application-profile"}));
}

TEST(GenerateSpec, DisableTwoHooks) {
  MapDeviceLookup lookup;
  GenerateOptions o = golden_options();
  o.hooks.disabled = {"enable-cuda-compat", "update-ldcache"};
  auto spec = generate_spec(golden_info("/r"), o, lookup);
  ASSERT_TRUE(spec);
  EXPECT_EQ(hook_names(*spec),
            (std::vector<std::string>{"create-symlinks", "disable-device-node-modification",
                                      "update-application-profile"}));
}

TEST(GenerateSpec, DisableAllHooksLeavesNoHooksKey) {
  MapDeviceLookup lookup;
  GenerateOptions o = golden_options();
  o.hooks.disabled = {"all"};
  auto spec = generate_spec(golden_info("/r"), o, lookup);
  ASSERT_TRUE(spec);
  EXPECT_TRUE(spec->container_edits.hooks.empty());
  EXPECT_EQ(to_yaml(*spec).find("hooks:"), std::string::npos);
}

TEST(GenerateSpec, LdconfigPathGoesToUpdateLdcache) {
  MapDeviceLookup lookup;
  GenerateOptions o;
  o.hooks.ldconfig_path = "/sbin/ldconfig.real";
  auto spec = generate_spec(golden_info("/r"), o, lookup);
  ASSERT_TRUE(spec);
  const Hook& h = spec->container_edits.hooks.at(2);
  ASSERT_EQ(h.args.at(1), "update-ldcache");
  EXPECT_EQ(h.args.at(2), "--ldconfig-path");
  EXPECT_EQ(h.args.at(3), "/sbin/ldconfig.real");
}

TEST(GenerateSpec, DeviceIndexPastLastGpuFailsLikeNvml) {
  MapDeviceLookup lookup;
  GenerateOptions o;
  o.device_ids = {"99"};
  auto spec = generate_spec(golden_info("/r"), o, lookup);
  ASSERT_FALSE(spec);
  EXPECT_NE(
      spec.error().message().find("failed to get device handle from index: ERROR_INVALID_ARGUMENT"),
      std::string::npos)
      << spec.error().message();
}

TEST(GenerateSpec, UnknownDeviceListsTheValidOnes) {
  MapDeviceLookup lookup;
  GenerateOptions o;
  for (const char* id : {"99", "99999999999999999999", "GPU-nope"}) {
    o.device_ids = {id};
    auto spec = generate_spec(golden_info("/r"), o, lookup);
    ASSERT_FALSE(spec) << id;
    EXPECT_NE(spec.error().message().find("; valid devices: 0 (GPU-"), std::string::npos)
        << spec.error().message();
  }
}

TEST(GenerateSpec, UnknownUuidFails) {
  MapDeviceLookup lookup;
  GenerateOptions o;
  o.device_ids = {"GPU-nope"};
  EXPECT_FALSE(generate_spec(golden_info("/r"), o, lookup));
}

TEST(GenerateSpec, UuidStrategyNamesByUuid) {
  MapDeviceLookup lookup;
  GenerateOptions o;
  o.strategies = {NameStrategy::kUuid};
  auto spec = generate_spec(golden_info("/r"), o, lookup);
  ASSERT_TRUE(spec);
  EXPECT_EQ(names(*spec),
            (std::vector<std::string>{"GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c", "all"}));
}

TEST(GenerateSpec, RepeatedStrategiesDuplicateDevices) {
  MapDeviceLookup lookup;
  GenerateOptions o;
  o.strategies = {NameStrategy::kIndex, NameStrategy::kUuid};
  auto spec = generate_spec(golden_info("/r"), o, lookup);
  ASSERT_TRUE(spec);
  EXPECT_EQ(names(*spec),
            (std::vector<std::string>{"0", "GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c", "all"}));
  EXPECT_EQ(spec->devices[0].container_edits, spec->devices[1].container_edits);
}

TEST(GenerateSpec, MigDevicesGetParentNodeAndCapNodes) {
  MapDeviceLookup lookup;
  auto spec = generate_spec(mig_info("/r"), GenerateOptions{}, lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(names(*spec), (std::vector<std::string>{"0", "0:0", "0:1", "1", "all"}));
  std::vector<std::string> paths;
  for (const auto& n : spec->devices[2].container_edits.device_nodes) paths.push_back(n.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"/dev/nvidia0", "/dev/nvidia-caps/nvidia-cap21",
                                             "/dev/nvidia-caps/nvidia-cap22"}));
  EXPECT_EQ(spec->devices[4].container_edits.device_nodes.size(), 6u);  // nvidia0/1 + 4 caps
}

TEST(GenerateSpec, TypeIndexNamesMigDevices) {
  MapDeviceLookup lookup;
  GenerateOptions o;
  o.strategies = {NameStrategy::kTypeIndex};
  o.device_ids = {"0:1"};
  auto spec = generate_spec(mig_info("/r"), o, lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(names(*spec), (std::vector<std::string>{"mig0:1", "all"}));
}

TEST(GenerateSpec, DeviceIdSelectsOneGpu) {
  MapDeviceLookup lookup;
  GenerateOptions o;
  o.device_ids = {"1"};
  auto spec = generate_spec(mig_info("/r"), o, lookup);
  ASSERT_TRUE(spec);
  EXPECT_EQ(names(*spec), (std::vector<std::string>{"1", "all"}));
  EXPECT_EQ(spec->devices[1].container_edits.device_nodes.at(0).path, "/dev/nvidia1");
}

TEST(GenerateSpec, NoAllDevice) {
  MapDeviceLookup lookup;
  GenerateOptions o;
  o.no_all_device = true;
  auto spec = generate_spec(golden_info("/r"), o, lookup);
  ASSERT_TRUE(spec);
  EXPECT_EQ(names(*spec), (std::vector<std::string>{"0"}));
}

TEST(GenerateSpec, DeviceIdNoneGivesNoDevicesAndFailsValidation) {
  MapDeviceLookup lookup;
  GenerateOptions o;
  o.device_ids = {"none"};
  auto spec = generate_spec(golden_info("/r"), o, lookup);
  ASSERT_FALSE(spec);
  EXPECT_NE(spec.error().message().find("generated spec is invalid"), std::string::npos);
}

TEST(GenerateSpec, DevRootPrefixesNodesOnly) {
  MapDeviceLookup lookup;
  GenerateOptions o;
  o.dev_root = "/devroot";
  auto spec = generate_spec(golden_info("/r"), o, lookup);
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->devices[0].container_edits.device_nodes[0].host_path, "/devroot/dev/nvidia0");
  EXPECT_EQ(spec->container_edits.mounts[0].host_path,
            "/r/lib/x86_64-linux-gnu/libcuda.so.999.88.77");
}

TEST(GenerateSpec, ChmodHookNotAddedForPerDeviceCapNodes) {
  MapDeviceLookup lookup;
  GenerateOptions o;
  o.hooks.enabled = {"chmod"};
  auto spec = generate_spec(mig_info("/r"), o, lookup);
  ASSERT_TRUE(spec);
  // Cap nodes are per-device edits; the spec-level edits carry no /dev/nvidia-caps node.
  EXPECT_EQ(hook_names(*spec).back(), "update-application-profile");
}

TEST(GenerateSpec, JsonRenderingRoundTrips) {
  MapDeviceLookup lookup;
  auto spec = generate_spec(mig_info("/r"), GenerateOptions{}, lookup);
  ASSERT_TRUE(spec);
  auto parsed = parse_spec(render(*spec, Format::kJson), "x.json");
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(*parsed, *spec);
}

TEST(GenerateSpec, NameStrategyParsing) {
  EXPECT_EQ(*parse_name_strategy("index"), NameStrategy::kIndex);
  EXPECT_EQ(*parse_name_strategy("uuid"), NameStrategy::kUuid);
  EXPECT_EQ(*parse_name_strategy("type-index"), NameStrategy::kTypeIndex);
  EXPECT_FALSE(parse_name_strategy("bogus"));
}

}  // namespace
}  // namespace nvct::cdi

// Feature flags and device node groups in the nvml content (cdi.md §6.3, config.md §3).
namespace nvct::cdi {
namespace {

TEST(GenerateSpecFeatures, GroupOnlyNodeGidGoesToAdditionalGidsAndNeeds070) {
  MapDeviceLookup lookup;
  lookup.nodes["/driver-root/dev/nvidia0"] = HostDeviceInfo{"c", 195, 0, 0660, 44};
  lookup.nodes["/driver-root/dev/nvidiactl"] = HostDeviceInfo{"c", 195, 255, 0666, 0};
  auto spec = generate_spec(golden_info("/driver-root"), GenerateOptions{}, lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(spec->devices[0].container_edits.device_nodes[0].gid, 44u);
  EXPECT_EQ(spec->devices[0].container_edits.additional_gids, std::vector<std::uint32_t>{44});
  EXPECT_EQ(spec->devices[1].name, "all");
  EXPECT_EQ(spec->devices[1].container_edits.additional_gids, std::vector<std::uint32_t>{44});
  EXPECT_FALSE(spec->container_edits.device_nodes[0].gid.has_value());  // gid 0 is left out
  EXPECT_TRUE(spec->container_edits.additional_gids.empty());
  EXPECT_EQ(spec->cdi_version, "0.7.0");
  EXPECT_NE(to_yaml(*spec).find("additionalGids:\n            - 44"), std::string::npos)
      << to_yaml(*spec);
}

TEST(GenerateSpecFeatures, NoAdditionalGidsForDeviceNodesKeepsTheGidButNot070) {
  MapDeviceLookup lookup;
  lookup.nodes["/driver-root/dev/nvidia0"] = HostDeviceInfo{"c", 195, 0, 0660, 44};
  GenerateOptions o;
  o.features.no_additional_gids_for_device_nodes = true;
  auto spec = generate_spec(golden_info("/driver-root"), o, lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(spec->devices[0].container_edits.device_nodes[0].gid, 44u);
  EXPECT_TRUE(spec->devices[0].container_edits.additional_gids.empty());
  EXPECT_EQ(spec->cdi_version, "0.5.0");
}

TEST(GenerateSpecFeatures, DisableIpcDiscovererDropsSocketMounts) {
  MapDeviceLookup lookup;
  driver::DriverInfo info = golden_info("/driver-root");
  info.ipcs.push_back("/run/nvidia-persistenced/socket");
  auto with = generate_spec(info, GenerateOptions{}, lookup);
  ASSERT_TRUE(with) << with.error().message();
  auto has_socket = [](const Spec& s) {
    for (const auto& m : s.container_edits.mounts)
      if (m.container_path == "/run/nvidia-persistenced/socket") return true;
    return false;
  };
  EXPECT_TRUE(has_socket(*with));
  GenerateOptions o;
  o.features.disable_ipc_discoverer = true;
  auto without = generate_spec(info, o, lookup);
  ASSERT_TRUE(without) << without.error().message();
  EXPECT_FALSE(has_socket(*without));
  EXPECT_FALSE(without->container_edits.mounts.empty());  // libraries stay
}

TEST(GenerateSpecFeatures, NvsandboxutilsAndCsvFlagsChangeNothingInNvmlContent) {
  MapDeviceLookup lookup;
  GenerateOptions o;
  o.features.disable_nvsandboxutils = true;
  o.features.disable_multiple_csv_devices = true;
  auto a = generate_spec(golden_info("/driver-root"), o, lookup);
  auto b = generate_spec(golden_info("/driver-root"), GenerateOptions{}, lookup);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, *b);
}

}  // namespace
}  // namespace nvct::cdi
