#include "nvct/cdi/generate_graphics.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "../driver/fake_drm.hpp"
#include "generate_fixture.hpp"
#include "nvct/cdi/generate.hpp"
#include "nvct/cdi/generate_edits.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::cdi {
namespace {

using testing::MapDeviceLookup;

// mig_info's two GPUs on buses 17 (card1/renderD129, two MIG devices) and 2a (card2/renderD130).
class GenerateGraphicsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0u) << "DRM generate tests need root (mknod of DRM nodes)";
    info_ = testing::mig_info(dir_.path());
    info_.gpus[1].bus_id = "00000000:2a:00.0";
    ASSERT_TRUE(driver::testing::add_drm_gpu(dir_, "0000:17:00.0", 1, 129));
    ASSERT_TRUE(driver::testing::add_drm_gpu(dir_, "0000:2a:00.0", 2, 130));
    driver::testing::add_graphics_files(dir_, "999.88.77");
    options_.hooks.binary = "/usr/bin/nvidia-cdi-hook";
  }
  Spec build() {
    auto spec = build_spec(info_, options_, lookup_);
    EXPECT_TRUE(spec) << spec.error().message();
    return spec.value_or(Spec{});
  }
  static const Device* device(const Spec& s, const std::string& name) {
    for (const auto& d : s.devices)
      if (d.name == name) return &d;
    return nullptr;
  }
  static std::vector<std::string> node_paths(const Device& d) {
    std::vector<std::string> out;
    for (const auto& n : d.container_edits.device_nodes) out.push_back(n.path);
    return out;
  }
  std::string by_path_link(const std::string& node, const std::string& bus,
                           const std::string& kind) {
    return "../" + node + "::/dev/dri/by-path/pci-" + bus + "-" + kind;
  }

  nvct::testing::TempDir dir_;
  driver::DriverInfo info_;
  GenerateOptions options_;
  MapDeviceLookup lookup_;
};

TEST_F(GenerateGraphicsTest, DiscoveryFindsEachGpusNodes) {
  auto facts = discover_graphics(info_, dir_.path());
  ASSERT_EQ(facts.drm.size(), 2u);
  EXPECT_EQ(drm_device_nodes(facts, info_.gpus[1]).size(), 2u);
  EXPECT_EQ(drm_device_nodes(facts, info_.gpus[1])[0].container_path, "/dev/dri/card2");
  EXPECT_EQ(facts.files.files.size(), 7u);
}

TEST_F(GenerateGraphicsTest, EachGpuDeviceGetsItsDrmNodesAndByPathHook) {
  Spec spec = build();
  const Device* d1 = device(spec, "1");
  ASSERT_NE(d1, nullptr);
  EXPECT_EQ(node_paths(*d1),
            (std::vector<std::string>{"/dev/nvidia1", "/dev/dri/card2", "/dev/dri/renderD130"}));
  EXPECT_EQ(d1->container_edits.device_nodes[1].host_path, dir_.path() + "/dev/dri/card2");
  ASSERT_EQ(d1->container_edits.hooks.size(), 1u);
  const Hook& h = d1->container_edits.hooks[0];
  EXPECT_EQ(h.hook_name, "createContainer");
  EXPECT_EQ(h.path, "/usr/bin/nvidia-cdi-hook");
  EXPECT_EQ(h.args,
            (std::vector<std::string>{"nvidia-cdi-hook", "create-symlinks", "--link",
                                      by_path_link("card2", "0000:2a:00.0", "card"), "--link",
                                      by_path_link("renderD130", "0000:2a:00.0", "render")}));
  EXPECT_EQ(h.env, (std::vector<std::string>{"NVIDIA_CTK_DEBUG=false"}));
}

TEST_F(GenerateGraphicsTest, MigDevicesGetNoDrmNodes) {
  Spec spec = build();
  const Device* mig = device(spec, "0:0");
  ASSERT_NE(mig, nullptr);
  for (const auto& p : node_paths(*mig)) EXPECT_EQ(p.find("/dev/dri/"), std::string::npos) << p;
  EXPECT_TRUE(mig->container_edits.hooks.empty());
}

TEST_F(GenerateGraphicsTest, AllDeviceMergesNodesAndHooks) {
  Spec spec = build();
  const Device* all = device(spec, "all");
  ASSERT_NE(all, nullptr);
  auto paths = node_paths(*all);
  for (const char* p :
       {"/dev/dri/card1", "/dev/dri/renderD129", "/dev/dri/card2", "/dev/dri/renderD130"})
    EXPECT_NE(std::find(paths.begin(), paths.end(), p), paths.end()) << p;
  ASSERT_EQ(all->container_edits.hooks.size(), 2u);
  EXPECT_EQ(all->container_edits.hooks[0].args[3], by_path_link("card1", "0000:17:00.0", "card"));
  EXPECT_EQ(all->container_edits.hooks[1].args[3], by_path_link("card2", "0000:2a:00.0", "card"));
}

TEST_F(GenerateGraphicsTest, CommonEditsMountGraphicsFilesAndLinkTheGlxModule) {
  Spec spec = build();
  const auto& mounts = spec.container_edits.mounts;
  auto find = [&](const std::string& p) {
    return std::find_if(mounts.begin(), mounts.end(),
                        [&](const Mount& m) { return m.container_path == p; });
  };
  auto icd = find("/etc/vulkan/icd.d/nvidia_icd.json");
  ASSERT_NE(icd, mounts.end());
  EXPECT_EQ(icd->host_path, dir_.path() + "/etc/vulkan/icd.d/nvidia_icd.json");
  EXPECT_EQ(icd->options, kDriverFileMountOptions);
  EXPECT_NE(find("/usr/share/glvnd/egl_vendor.d/10_nvidia.json"), mounts.end());
  EXPECT_NE(find("/usr/lib/xorg/modules/drivers/nvidia_drv.so"), mounts.end());
  ASSERT_FALSE(spec.container_edits.hooks.empty());
  const Hook& symlinks = spec.container_edits.hooks[0];
  ASSERT_GE(symlinks.args.size(), 2u);
  EXPECT_EQ(symlinks.args[1], "create-symlinks");
  auto glx = std::find(symlinks.args.begin(), symlinks.args.end(),
                       "libglxserver_nvidia.so.999.88.77::/usr/lib/xorg/modules/extensions/"
                       "libglxserver_nvidia.so");
  EXPECT_NE(glx, symlinks.args.end());
}

TEST_F(GenerateGraphicsTest, DisabledCreateSymlinksDropsTheByPathHookButKeepsNodes) {
  options_.hooks.disabled.insert("create-symlinks");
  Spec spec = build();
  const Device* d0 = device(spec, "0");
  ASSERT_NE(d0, nullptr);
  EXPECT_TRUE(d0->container_edits.hooks.empty());
  EXPECT_EQ(node_paths(*d0),
            (std::vector<std::string>{"/dev/nvidia0", "/dev/dri/card1", "/dev/dri/renderD129"}));
}

TEST_F(GenerateGraphicsTest, DevRootIsWhereDrmNodesAreLookedUp) {
  nvct::testing::TempDir devs;
  ASSERT_TRUE(driver::testing::add_drm_gpu(devs, "0000:17:00.0", 5, 133));
  options_.dev_root = devs.path();
  Spec spec = build();
  const Device* d0 = device(spec, "0");
  ASSERT_NE(d0, nullptr);
  EXPECT_EQ(node_paths(*d0),
            (std::vector<std::string>{"/dev/nvidia0", "/dev/dri/card5", "/dev/dri/renderD133"}));
  EXPECT_EQ(node_paths(*device(spec, "1")), (std::vector<std::string>{"/dev/nvidia1"}));
}

TEST_F(GenerateGraphicsTest, HostWithoutDrmOrGraphicsFilesKeepsThePlainSpec) {
  nvct::testing::TempDir empty;
  info_ = testing::golden_info(empty.path());
  Spec spec = build();
  ASSERT_EQ(spec.devices.size(), 2u);
  EXPECT_EQ(node_paths(spec.devices[0]), (std::vector<std::string>{"/dev/nvidia0"}));
  EXPECT_TRUE(spec.devices[0].container_edits.hooks.empty());
  EXPECT_EQ(spec.container_edits.mounts.size(), 2u);  // libcuda and vdpau only
}

}  // namespace
}  // namespace nvct::cdi
