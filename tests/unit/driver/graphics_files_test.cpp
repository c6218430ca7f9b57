#include "nvct/driver/graphics_files.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "fake_drm.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::driver {
namespace {

namespace fs = std::filesystem;

class GraphicsFilesTest : public ::testing::Test {
 protected:
  DriverRoot root() const { return *DriverRoot::open(dir_.path()); }
  static std::vector<std::string> targets(const GraphicsFiles& g) {
    std::vector<std::string> out;
    for (const auto& f : g.files) out.push_back(f.container_path);
    return out;
  }
  nvct::testing::TempDir dir_;
};

TEST_F(GraphicsFilesTest, FindsTheWellKnownSetInMountOrder) {
  testing::add_graphics_files(dir_, "550.54.14");
  auto g = find_graphics_files(root(), "550.54.14");
  EXPECT_EQ(targets(g), (std::vector<std::string>{
                            "/etc/vulkan/icd.d/nvidia_icd.json",
                            "/usr/share/vulkan/implicit_layer.d/nvidia_layers.json",
                            "/usr/share/glvnd/egl_vendor.d/10_nvidia.json",
                            "/usr/share/egl/egl_external_platform.d/15_nvidia_gbm.json",
                            "/usr/share/egl/egl_external_platform.d/10_nvidia_wayland.json",
                            "/usr/lib/xorg/modules/drivers/nvidia_drv.so",
                            "/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so.550.54.14"}));
  ASSERT_EQ(g.links.size(), 1u);
  EXPECT_EQ(g.links[0], (ContainerLink{"/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so",
                                       "libglxserver_nvidia.so.550.54.14"}));
}

TEST_F(GraphicsFilesTest, EtcWinsOverUsrShare) {
  dir_.write("etc/vulkan/icd.d/nvidia_icd.json", "etc");
  dir_.write("usr/share/vulkan/icd.d/nvidia_icd.json", "share");
  auto g = find_graphics_files(root(), "");
  EXPECT_EQ(targets(g), (std::vector<std::string>{"/etc/vulkan/icd.d/nvidia_icd.json"}));
}

TEST_F(GraphicsFilesTest, ExtraConfigDirsAreSearchedFirst) {
  dir_.write("etc/vulkan/icd.d/nvidia_icd.json", "etc");
  dir_.write("opt/nv/share/vulkan/icd.d/nvidia_icd.json", "extra");
  dir_.write("usr/share/glvnd/egl_vendor.d/10_nvidia.json", "share");
  auto g = find_graphics_files(root(), "", {"opt/nv/share/", "/missing"});
  EXPECT_EQ(targets(g), (std::vector<std::string>{"/opt/nv/share/vulkan/icd.d/nvidia_icd.json",
                                                  "/usr/share/glvnd/egl_vendor.d/10_nvidia.json"}));
  auto plain = find_graphics_files(root(), "");
  EXPECT_EQ(targets(plain).at(0), "/etc/vulkan/icd.d/nvidia_icd.json");
}

TEST_F(GraphicsFilesTest, NothingInstalledMeansNoFiles) {
  dir_.write("etc/hostname", "h");
  EXPECT_EQ(find_graphics_files(root(), "550.54.14"), GraphicsFiles{});
}

TEST_F(GraphicsFilesTest, SourceIsTheRealPathInsideTheRoot) {
  dir_.write("usr/share/nvidia/icd-550.json", "{}");
  fs::create_directories(dir_ / "etc/vulkan/icd.d");
  // An absolute link resolves inside the driver root, never on the host.
  fs::create_symlink("/usr/share/nvidia/icd-550.json", dir_ / "etc/vulkan/icd.d/nvidia_icd.json");
  auto g = find_graphics_files(root(), "");
  ASSERT_EQ(g.files.size(), 1u);
  EXPECT_EQ(g.files[0].container_path, "/etc/vulkan/icd.d/nvidia_icd.json");
  EXPECT_EQ(g.files[0].source, "/usr/share/nvidia/icd-550.json");
}

TEST_F(GraphicsFilesTest, DirectoriesAndDanglingLinksAreSkipped) {
  fs::create_directories(dir_ / "etc/vulkan/icd.d/nvidia_icd.json");
  fs::create_directories(dir_ / "usr/share/glvnd/egl_vendor.d");
  fs::create_symlink("/nowhere", dir_ / "usr/share/glvnd/egl_vendor.d/10_nvidia.json");
  EXPECT_TRUE(find_graphics_files(root(), "").files.empty());
}

TEST_F(GraphicsFilesTest, GlxModuleNeedsTheDriverVersion) {
  dir_.write("usr/lib64/xorg/modules/extensions/libglxserver_nvidia.so.550.54.14", "ELF");
  dir_.write("usr/lib64/xorg/modules/extensions/libglxserver_nvidia.so.535.00.01", "ELF");
  EXPECT_TRUE(find_graphics_files(root(), "").files.empty());
  auto g = find_graphics_files(root(), "550.54.14");
  EXPECT_EQ(targets(g),
            (std::vector<std::string>{
                "/usr/lib64/xorg/modules/extensions/libglxserver_nvidia.so.550.54.14"}));
  ASSERT_EQ(g.links.size(), 1u);
  EXPECT_EQ(g.links[0].link, "/usr/lib64/xorg/modules/extensions/libglxserver_nvidia.so");
}

}  // namespace
}  // namespace nvct::driver
