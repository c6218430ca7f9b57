// `cdi generate --mode wsl` and mode auto's WSL detection (content in generate_wsl.hpp).
#include "nvct/cdi/generate_wsl.hpp"

#include <gtest/gtest.h>

#include "generate_fixture.hpp"
#include "nvct/cdi/generate.hpp"
#include "nvct/cdi/generate_discovery.hpp"
#include "nvct/cdi/validate.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::cdi {
namespace {

using testing::MapDeviceLookup;
using Args = std::vector<std::string>;

constexpr const char* kStore = "/usr/lib/wsl/drivers/nv_dispi.inf_amd64_0123456789abcdef";
constexpr const char* kStore2 = "/usr/lib/wsl/drivers/nv_dispi.inf_amd64_fedcba9876543210";
const Args kAllStoreFiles = {"libcuda.so.1.1",
                             "libcuda_loader.so",
                             "libnvidia-ptxjitcompiler.so.1",
                             "libnvidia-ml.so.1",
                             "libnvidia-ml_loader.so",
                             "libnvdxgdmal.so.1",
                             "nvcubins.bin",
                             "nvidia-smi"};
const Args kRo = {"ro", "nosuid", "nodev", "rbind", "rprivate"};

// A WSL2 root in a temp dir: /dev/dxg is a plain file for the listing and a char device for
// the lookup.
class WslRoot {
 public:
  void dxcore() { dir.write("usr/lib/wsl/lib/libdxcore.so", "dxcore"); }
  void store(const std::string& path, const Args& files) {
    for (const auto& f : files) dir.write(path.substr(1) + "/" + f, f);
  }
  void dxg(std::uint32_t mode = 0666, std::uint32_t gid = 0) {
    dir.write("dev/dxg", "");
    lookup.nodes[dir.path() + "/dev/dxg"] = HostDeviceInfo{"c", 10, 63, mode, gid};
  }
  void full() {
    dxcore();
    store(kStore, kAllStoreFiles);
    dxg();
  }
  ModeOptions options() const {
    ModeOptions o;
    o.driver_root = dir.path();
    o.dev_root = dir.path();
    return o;
  }
  std::string host(const std::string& rel) const { return dir.path() + rel; }
  nvct::testing::TempDir dir;
  MapDeviceLookup lookup;
};

Args mount_paths(const Spec& s) {
  Args out;
  for (const auto& m : s.container_edits.mounts) out.push_back(m.container_path);
  return out;
}

std::vector<Args> hook_args(const Spec& s) {
  std::vector<Args> out;
  for (const auto& h : s.container_edits.hooks) out.push_back(h.args);
  return out;
}

TEST(GenerateWsl, OneAllDeviceWithDxgAndVoidEnv) {
  WslRoot r;
  r.full();
  auto spec = build_wsl_spec(r.options(), r.lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(spec->kind, "nvidia.com/gpu");
  ASSERT_EQ(spec->devices.size(), 1u);
  EXPECT_EQ(spec->devices[0].name, "all");
  const auto& nodes = spec->devices[0].container_edits.device_nodes;
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].path, "/dev/dxg");
  EXPECT_EQ(nodes[0].host_path, r.host("/dev/dxg"));
  EXPECT_EQ(nodes[0].major, 10);
  EXPECT_EQ(nodes[0].minor, 63);
  EXPECT_TRUE(spec->devices[0].container_edits.mounts.empty());
  EXPECT_EQ(spec->container_edits.env, (Args{"NVIDIA_VISIBLE_DEVICES=void"}));
  EXPECT_TRUE(spec->container_edits.device_nodes.empty());
  EXPECT_TRUE(validate_spec(*spec)) << validate_spec(*spec).error().message();
}

TEST(GenerateWsl, MountsExactlyThePresentStoreFilesThenDxcoreReadOnly) {
  WslRoot r;
  r.dxcore();
  r.dxg();
  r.store(kStore, {"libcuda.so.1.1", "nvidia-smi", "libnvidia-ml.so.1", "other.dll"});
  auto spec = build_wsl_spec(r.options(), r.lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  const std::string s = kStore;
  EXPECT_EQ(mount_paths(*spec), (Args{s + "/libcuda.so.1.1", s + "/libnvidia-ml.so.1",
                                      s + "/nvidia-smi", "/usr/lib/wsl/lib/libdxcore.so"}));
  for (const auto& m : spec->container_edits.mounts) {
    EXPECT_EQ(m.host_path, r.host(m.container_path));
    EXPECT_EQ(m.options, kRo);
    EXPECT_TRUE(m.type.empty());
  }
}

TEST(GenerateWsl, EveryStoreFileIsMountedInTheReferenceOrder) {
  WslRoot r;
  r.full();
  auto spec = build_wsl_spec(r.options(), r.lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  Args want;
  for (const auto& f : kAllStoreFiles) want.push_back(std::string(kStore) + "/" + f);
  want.emplace_back("/usr/lib/wsl/lib/libdxcore.so");
  EXPECT_EQ(mount_paths(*spec), want);
}

TEST(GenerateWsl, CreateSymlinksThenUpdateLdcacheOnly) {
  WslRoot r;
  r.full();
  auto spec = build_wsl_spec(r.options(), r.lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  const std::string s = kStore;
  EXPECT_EQ(
      hook_args(*spec),
      (std::vector<Args>{
          {"nvidia-cdi-hook", "create-symlinks", "--link", s + "/nvidia-smi::/usr/bin/nvidia-smi",
           "--link", "libcuda.so.1.1::" + s + "/libcuda.so.1"},
          {"nvidia-cdi-hook", "update-ldcache", "--folder", s, "--folder", "/usr/lib/wsl/lib"}}));
  for (const auto& h : spec->container_edits.hooks) {
    EXPECT_EQ(h.hook_name, "createContainer");
    EXPECT_EQ(h.path, "/usr/bin/nvidia-cdi-hook");
    EXPECT_EQ(h.env, (Args{"NVIDIA_CTK_DEBUG=false"}));
  }
}

TEST(GenerateWsl, LdconfigPathAndNvidiaCtkHookBinary) {
  WslRoot r;
  r.full();
  auto o = r.options();
  o.hooks.binary = "/opt/bin/nvidia-ctk";
  o.hooks.ldconfig_path = "/sbin/ldconfig.real";
  auto spec = build_wsl_spec(o, r.lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  ASSERT_EQ(spec->container_edits.hooks.size(), 2u);
  EXPECT_EQ(spec->container_edits.hooks[1].args,
            (Args{"nvidia-ctk", "hook", "update-ldcache", "--ldconfig-path", "/sbin/ldconfig.real",
                  "--folder", kStore, "--folder", "/usr/lib/wsl/lib"}));
}

TEST(GenerateWsl, DisableHookDropsItAndAllDropsEveryHook) {
  WslRoot r;
  r.full();
  auto o = r.options();
  o.hooks.disabled = {"create-symlinks"};
  auto spec = build_wsl_spec(o, r.lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  ASSERT_EQ(spec->container_edits.hooks.size(), 1u);
  EXPECT_EQ(spec->container_edits.hooks[0].args[1], "update-ldcache");
  o.hooks.disabled = {"all"};
  spec = build_wsl_spec(o, r.lookup);
  ASSERT_TRUE(spec);
  EXPECT_TRUE(spec->container_edits.hooks.empty());
  o.hooks.enabled = {"update-ldcache"};
  spec = build_wsl_spec(o, r.lookup);
  ASSERT_TRUE(spec);
  ASSERT_EQ(spec->container_edits.hooks.size(), 1u);
  EXPECT_EQ(spec->container_edits.hooks[0].args[1], "update-ldcache");
  o.hooks.enabled = {"all"};
  EXPECT_FALSE(build_wsl_spec(o, r.lookup));
}

TEST(GenerateWsl, TwoDriverStoresAreBothMountedWithOneNvidiaSmiLink) {
  WslRoot r;
  r.full();
  r.store(kStore2, {"libcuda.so.1.1", "nvidia-smi"});
  auto spec = build_wsl_spec(r.options(), r.lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  const std::string s = kStore, s2 = kStore2;
  Args want;
  for (const auto& f : kAllStoreFiles) want.push_back(s + "/" + f);
  want.push_back(s2 + "/libcuda.so.1.1");
  want.push_back(s2 + "/nvidia-smi");
  want.emplace_back("/usr/lib/wsl/lib/libdxcore.so");
  EXPECT_EQ(mount_paths(*spec), want);
  EXPECT_EQ(hook_args(*spec),
            (std::vector<Args>{{"nvidia-cdi-hook", "create-symlinks", "--link",
                                s + "/nvidia-smi::/usr/bin/nvidia-smi", "--link",
                                "libcuda.so.1.1::" + s + "/libcuda.so.1", "--link",
                                "libcuda.so.1.1::" + s2 + "/libcuda.so.1"},
                               {"nvidia-cdi-hook", "update-ldcache", "--folder", s, "--folder", s2,
                                "--folder", "/usr/lib/wsl/lib"}}));
}

TEST(GenerateWsl, NoDriverStoreIsAnErrorNamingWhatWasSearched) {
  WslRoot r;
  r.dxcore();
  r.dxg();
  auto spec = build_wsl_spec(r.options(), r.lookup);
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().message(), "no NVIDIA WSL driver store found: no directory under " +
                                        r.host("/usr/lib/wsl/drivers") +
                                        " holds libcuda.so.1.1 or libnvidia-ml.so.1");
}

TEST(GenerateWsl, NoDxgIsAnErrorNamingTheDevRoot) {
  WslRoot r;
  r.dxcore();
  r.store(kStore, kAllStoreFiles);
  auto spec = build_wsl_spec(r.options(), r.lookup);
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().message(), "WSL device node /dev/dxg not found: " + r.host("/dev/dxg") +
                                        " is not a character device");
}

TEST(GenerateWsl, NoDxcoreIsAnErrorAndTheLibrarySearchPathOverridesTheDefault) {
  WslRoot r;
  r.store(kStore, kAllStoreFiles);
  r.dxg();
  auto spec = build_wsl_spec(r.options(), r.lookup);
  ASSERT_FALSE(spec);
  EXPECT_NE(spec.error().message().find("libdxcore.so not found in " + r.host("/usr/lib/wsl/lib")),
            std::string::npos)
      << spec.error().message();
  r.dir.write("opt/wsl/libdxcore.so", "x");
  auto o = r.options();
  o.library_search_paths = {"/opt/wsl"};
  spec = build_wsl_spec(o, r.lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(mount_paths(*spec).back(), "/opt/wsl/libdxcore.so");
  EXPECT_EQ(spec->container_edits.hooks[1].args.back(), "/opt/wsl");
}

TEST(GenerateWsl, CdiVersionIsTheMinimumTheContentNeeds) {
  WslRoot r;
  r.full();
  auto spec = build_wsl_spec(r.options(), r.lookup);
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->cdi_version, "0.5.0");  // the node has a hostPath (dev root is not /)
  EXPECT_TRUE(spec->container_edits.additional_gids.empty());
  WslRoot g;
  g.dxcore();
  g.store(kStore, kAllStoreFiles);
  g.dxg(0660, 44);  // group-only node: its gid becomes an additionalGid
  spec = build_wsl_spec(g.options(), g.lookup);
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->cdi_version, "0.7.0");
  auto o = g.options();
  o.features.no_additional_gids_for_device_nodes = true;
  spec = build_wsl_spec(o, g.lookup);
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->cdi_version, "0.5.0");
}

TEST(GenerateWsl, DeviceIdNoneMeansNoDeviceOthersSelectAll) {
  WslRoot r;
  r.full();
  auto o = r.options();
  o.device_ids = {"none"};
  auto spec = build_wsl_spec(o, r.lookup);
  ASSERT_TRUE(spec);
  EXPECT_TRUE(spec->devices.empty());
  o.device_ids = {"0"};
  o.no_all_device = true;
  spec = build_wsl_spec(o, r.lookup);
  ASSERT_TRUE(spec);
  ASSERT_EQ(spec->devices.size(), 1u);
  EXPECT_EQ(spec->devices[0].name, "all");
}

TEST(GenerateWsl, VendorAndClassCanBeSetAndTheModeDispatches) {
  WslRoot r;
  r.full();
  auto o = r.options();
  o.vendor = "example.com";
  o.class_name = "device";
  auto spec = build_device_mode_spec(GenerateMode::kWsl, o, r.lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(spec->kind, "example.com/device");
  EXPECT_EQ(spec->devices.size(), 1u);
  EXPECT_EQ(*parse_generate_mode("wsl"), GenerateMode::kWsl);
}

TEST(GenerateWsl, AutoIsWslOnAWslRootAndNvmlOtherwise) {
  WslRoot dxcore_only;
  dxcore_only.dxcore();
  const auto& d = dxcore_only.dir.path();
  EXPECT_EQ(*resolve_generate_mode("auto", d, d, dxcore_only.lookup), GenerateMode::kWsl);
  EXPECT_EQ(*resolve_generate_mode("nvml", d, d, dxcore_only.lookup), GenerateMode::kNvml);
  EXPECT_EQ(*resolve_generate_mode("gds", d, d, dxcore_only.lookup), GenerateMode::kGds);
  WslRoot dxg_only;
  dxg_only.dxg();
  const auto& g = dxg_only.dir.path();
  EXPECT_EQ(*resolve_generate_mode("auto", g, g, dxg_only.lookup), GenerateMode::kWsl);
  // /dev/dxg is looked up under the dev root, not the driver root.
  nvct::testing::TempDir other;
  EXPECT_EQ(*resolve_generate_mode("auto", other.path(), other.path(), dxg_only.lookup),
            GenerateMode::kNvml);
  EXPECT_EQ(*resolve_generate_mode("auto", other.path(), g, dxg_only.lookup), GenerateMode::kWsl);
  WslRoot plain;
  plain.dir.write("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "x");
  const auto& p = plain.dir.path();
  EXPECT_EQ(*resolve_generate_mode("auto", p, p, plain.lookup), GenerateMode::kNvml);
  EXPECT_FALSE(resolve_generate_mode("bogus", d, d, dxcore_only.lookup));
}

TEST(GenerateWsl, BuildSpecInAutoModeGivesTheWslSpecOnAWslRoot) {
  WslRoot r;
  r.full();
  GenerateOptions o;
  o.device_ids = {"0"};
  o.no_all_device = true;  // as jit-cdi asks
  auto spec = build_spec(testing::golden_info(r.dir.path()), o, r.lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  ASSERT_EQ(spec->devices.size(), 1u);
  EXPECT_EQ(spec->devices[0].name, "all");
  EXPECT_EQ(spec->devices[0].container_edits.device_nodes[0].path, "/dev/dxg");
  EXPECT_EQ(mount_paths(*spec).back(), "/usr/lib/wsl/lib/libdxcore.so");
  o.detect_wsl = false;
  spec = build_spec(testing::golden_info(r.dir.path()), o, r.lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  ASSERT_EQ(spec->devices.size(), 1u);
  EXPECT_EQ(spec->devices[0].name, "0");
}

TEST(GenerateWsl, DiscoveryOnAWslRootSkipsNvmlUnlessDetectionIsOff) {
  WslRoot r;
  r.dxcore();
  CdiDiscovery d;
  d.driver_root = r.dir.path();
  auto info = discover_driver_for_cdi(d);
  ASSERT_TRUE(info) << info.error().message();
  EXPECT_EQ(info->root, r.dir.path());
  EXPECT_TRUE(info->gpus.empty());
  EXPECT_TRUE(info->libs.empty());
  d.detect_wsl = false;
  EXPECT_FALSE(discover_driver_for_cdi(d));
}

}  // namespace
}  // namespace nvct::cdi
