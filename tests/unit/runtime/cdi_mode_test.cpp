// cdi mode (runtime.md §7.2 hook remover, §7.5 CDI): hook removal, device names, registry
// injection and its errors.
#include "nvct/runtime/cdi_mode.hpp"

#include <gtest/gtest.h>

#include <map>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::runtime {
namespace {

class FakeLookup : public cdi::DeviceLookup {
 public:
  Result<cdi::HostDeviceInfo> lstat(const std::string& path) override {
    if (path == "/dev/nvidia0") return cdi::HostDeviceInfo{"c", 195, 0, 0666};
    if (path == "/dev/nvidiactl") return cdi::HostDeviceInfo{"c", 195, 255, 0666};
    return fail(ENOENT, "lstat " + path);
  }
};

const char* kSpec = R"(cdiVersion: 0.5.0
kind: nvidia.com/gpu
devices:
- name: "0"
  containerEdits:
    deviceNodes:
    - path: /dev/nvidia0
containerEdits:
  env:
  - NVIDIA_VISIBLE_DEVICES=void
  deviceNodes:
  - path: /dev/nvidiactl
)";

nlohmann::ordered_json hook(const std::string& path) { return {{"path", path}}; }

request::Request gpu_request(std::vector<std::string> devices) {
  request::Request r;
  r.devices = std::move(devices);
  return r;
}

TEST(HookRemover, RemovesBothNvidiaHookNamesAndDropsEmptyPrestart) {
  nlohmann::ordered_json spec;
  spec["hooks"]["prestart"] = {hook("/usr/bin/nvidia-container-runtime-hook"),
                               hook("/usr/bin/nvidia-container-toolkit")};
  spec["hooks"]["poststop"] = {hook("/usr/bin/nvidia-container-runtime-hook")};
  EXPECT_TRUE(remove_nvidia_prestart_hooks(spec));
  EXPECT_FALSE(spec["hooks"].contains("prestart"));
  EXPECT_EQ(spec["hooks"]["poststop"].size(), 1u);  // only prestart is touched
}

TEST(HookRemover, KeepsOtherPrestartHooks) {
  nlohmann::ordered_json spec;
  spec["hooks"]["prestart"] = {hook("/usr/bin/some-hook"), hook("nvidia-container-runtime-hook")};
  EXPECT_TRUE(remove_nvidia_prestart_hooks(spec));
  ASSERT_EQ(spec["hooks"]["prestart"].size(), 1u);
  EXPECT_EQ(spec["hooks"]["prestart"][0]["path"], "/usr/bin/some-hook");
}

TEST(HookRemover, NoHooksIsNoChange) {
  nlohmann::ordered_json spec = {{"ociVersion", "1.0.2"}};
  EXPECT_FALSE(remove_nvidia_prestart_hooks(spec));
  EXPECT_FALSE(spec.contains("hooks"));
}

TEST(CdiNames, UnqualifiedIdsGetTheDefaultKindAndNoneStaysNone) {
  EXPECT_EQ(cdi_names_for(gpu_request({"0", "vendor.com/x=1", "0"}), "nvidia.com/gpu"),
            (std::vector<std::string>{"nvidia.com/gpu=0", "vendor.com/x=1"}));
  EXPECT_EQ(cdi_names_for(gpu_request({""}), "runtime.nvidia.com/gpu"),
            (std::vector<std::string>{"runtime.nvidia.com/gpu=none"}));
  EXPECT_TRUE(cdi_names_for(request::Request{}, "nvidia.com/gpu").empty());
}

class CdiMode : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("cdi/nvidia.yaml", kSpec);
    cfg_.runtime.cdi.spec_dirs = {dir_ / "cdi"};
  }
  nvct::testing::TempDir dir_;
  config::Config cfg_;
  FakeLookup lookup_;
};

TEST_F(CdiMode, InjectsRegistryDevicesAndRemovesTheLegacyHook) {
  nlohmann::ordered_json spec = {{"ociVersion", "1.0.2"}};
  spec["process"]["env"] = {"NVIDIA_VISIBLE_DEVICES=0"};
  spec["hooks"]["prestart"] = {hook("/usr/bin/nvidia-container-runtime-hook")};
  auto changed = apply_cdi_mode(spec, gpu_request({"0"}), cfg_, "nvidia.com/gpu", lookup_);
  ASSERT_TRUE(changed) << changed.error().message();
  EXPECT_TRUE(*changed);
  EXPECT_FALSE(spec["hooks"].contains("prestart"));
  ASSERT_EQ(spec["linux"]["devices"].size(), 2u);
  EXPECT_EQ(spec["linux"]["devices"][0]["path"], "/dev/nvidiactl");
  EXPECT_EQ(spec["linux"]["devices"][1]["path"], "/dev/nvidia0");
  EXPECT_EQ(spec["process"]["env"][0], "NVIDIA_VISIBLE_DEVICES=void");
}

TEST_F(CdiMode, UnresolvableNamesFailListingThem) {
  nlohmann::ordered_json spec = {{"ociVersion", "1.0.2"}};
  auto r = apply_cdi_mode(spec, gpu_request({"0", "7", "nvidia.com/gpu=9"}), cfg_, "nvidia.com/gpu",
                          lookup_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("failed to inject CDI devices"), std::string::npos);
  EXPECT_NE(r.error().message().find("nvidia.com/gpu=7, nvidia.com/gpu=9"), std::string::npos)
      << r.error().message();
}

TEST_F(CdiMode, UnresolvableNamesSayWhereTheyCameFromAndWhatExists) {
  nlohmann::ordered_json spec = {{"ociVersion", "1.0.2"}};
  auto req = gpu_request({"7"});
  req.devices_source = "NVIDIA_VISIBLE_DEVICES";
  auto r = apply_cdi_mode(spec, req, cfg_, "nvidia.com/gpu", lookup_);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "failed to inject CDI devices: unresolvable CDI devices nvidia.com/gpu=7 (from "
            "NVIDIA_VISIBLE_DEVICES); known CDI devices: nvidia.com/gpu=0 (specs in " +
                (dir_ / "cdi") + "; `nvidia-ctk cdi list` shows them)");
}

TEST_F(CdiMode, UnresolvableNamesWithoutAnySpecSayHowToMakeOne) {
  nlohmann::ordered_json spec = {{"ociVersion", "1.0.2"}};
  cfg_.runtime.cdi.spec_dirs = {dir_ / "empty"};
  auto r = apply_cdi_mode(spec, gpu_request({"0"}), cfg_, "nvidia.com/gpu", lookup_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("unresolvable CDI devices nvidia.com/gpu=0; no CDI spec in " +
                                     (dir_ / "empty") +
                                     " defines a device: generate one with `nvidia-ctk cdi "
                                     "generate --output=/etc/cdi/nvidia.yaml`"),
            std::string::npos)
      << r.error().message();
}

TEST_F(CdiMode, StaleSpecNamesTheMissingFileAndHowToRegenerate) {
  std::string lib = dir_ / "old/libcuda.so.1.2.3";
  dir_.write("stale/nvidia.yaml", std::string(kSpec) + "  mounts:\n  - hostPath: " + lib +
                                      "\n    containerPath: /usr/lib/libcuda.so.1.2.3\n"
                                      "    options: [ro, nosuid, nodev, bind]\n");
  cfg_.runtime.cdi.spec_dirs = {dir_ / "stale"};
  nlohmann::ordered_json spec = {{"ociVersion", "1.0.2"}};
  auto r = apply_cdi_mode(spec, gpu_request({"0"}), cfg_, "nvidia.com/gpu", lookup_);
  ASSERT_FALSE(r);
  std::string file = dir_ / "stale/nvidia.yaml";
  EXPECT_EQ(r.error().message(),
            "CDI spec " + file + " is stale: " + lib +
                " (mounted at /usr/lib/libcuda.so.1.2.3 for nvidia.com/gpu=0) does not exist; the "
                "driver changed after the spec was generated: regenerate it with `nvidia-ctk cdi "
                "generate --output=" +
                file + "`");
  EXPECT_FALSE(spec.contains("linux")) << "nothing is injected";
  dir_.write("old/libcuda.so.1.2.3", "");
  EXPECT_TRUE(apply_cdi_mode(spec, gpu_request({"0"}), cfg_, "nvidia.com/gpu", lookup_));
}

TEST_F(CdiMode, MixingJitVendorWithOtherNamesFails) {
  nlohmann::ordered_json spec = {{"ociVersion", "1.0.2"}};
  auto r = apply_cdi_mode(spec, gpu_request({"runtime.nvidia.com/gpu=0", "nvidia.com/gpu=0"}), cfg_,
                          "nvidia.com/gpu", lookup_);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "requesting a CDI device with vendor 'runtime.nvidia.com' is not supported when "
            "requesting other CDI devices");
}

TEST_F(CdiMode, NotAGpuContainerOnlyRemovesHooks) {
  nlohmann::ordered_json spec = {{"ociVersion", "1.0.2"}};
  spec["hooks"]["prestart"] = {hook("/usr/bin/nvidia-container-toolkit")};
  auto r = apply_cdi_mode(spec, request::Request{}, cfg_, "nvidia.com/gpu", lookup_);
  ASSERT_TRUE(r);
  EXPECT_TRUE(*r);
  EXPECT_FALSE(spec.contains("linux"));
  nlohmann::ordered_json plain = {{"ociVersion", "1.0.2"}};
  auto unchanged = apply_cdi_mode(plain, request::Request{}, cfg_, "nvidia.com/gpu", lookup_);
  ASSERT_TRUE(unchanged);
  EXPECT_FALSE(*unchanged);
}

TEST_F(CdiMode, CdiModeNoneIsAnUnresolvableDevice) {
  nlohmann::ordered_json spec = {{"ociVersion", "1.0.2"}};
  auto r = apply_cdi_mode(spec, gpu_request({""}), cfg_, "nvidia.com/gpu", lookup_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("nvidia.com/gpu=none"), std::string::npos);
}

}  // namespace
}  // namespace nvct::runtime
