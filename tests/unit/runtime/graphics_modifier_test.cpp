#include "nvct/runtime/graphics_modifier.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../driver/fake_drm.hpp"
#include "nvct/runtime/spec_modifier.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::runtime {
namespace {

using nlohmann::ordered_json;
using nvct::testing::TempDir;

request::Request graphics_request(std::vector<std::string> devices, std::string caps) {
  request::Request req;
  req.devices = std::move(devices);
  if (caps != "<unset>") req.env["NVIDIA_DRIVER_CAPABILITIES"] = caps;
  return req;
}

TEST(WantsGraphics, RawCapabilitiesWithAGpuRequest) {
  struct Row {
    std::optional<std::vector<std::string>> devices;
    std::string caps;
    bool want;
  };
  const std::vector<Row> rows = {
      {std::nullopt, "graphics", false},                  // not a GPU container
      {std::vector<std::string>{""}, "graphics", false},  // NVIDIA_VISIBLE_DEVICES=none
      {std::vector<std::string>{"0"}, "<unset>", false},  // raw: no compute,utility default
      {std::vector<std::string>{"0"}, "", false},
      {std::vector<std::string>{"0"}, "compute,utility", false},
      {std::vector<std::string>{"0"}, "graphics", true},
      {std::vector<std::string>{"0"}, "display", true},
      {std::vector<std::string>{"all"}, "all", true},
      {std::vector<std::string>{"0"}, " utility , graphics ", true},
      {std::vector<std::string>{"GPU-x"}, "compute,all", true},
  };
  for (const auto& row : rows) {
    request::Request req = graphics_request(row.devices.value_or(std::vector<std::string>{}), row.caps);
    req.devices = row.devices;
    EXPECT_EQ(wants_graphics(req), row.want) << "caps '" << row.caps << "'";
  }
}

// Two GPUs whose minors are not in bus order: index 0 = bus 17 (minor 3, card4/renderD132),
// index 1 = bus 2a (minor 0, card1/renderD129); graphics files of driver 550.54.14.
class GraphicsModifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0u) << "graphics modifier tests need root (mknod of DRM nodes)";
    driver::testing::add_two_gpu_procfs(dir_);
    dir_.write("proc/devices", "Character devices:\n195 nvidia\n238 nvidia-uvm\n\n");
    ASSERT_TRUE(driver::testing::add_drm_gpu(dir_, "0000:17:00.0", 4, 132));
    ASSERT_TRUE(driver::testing::add_drm_gpu(dir_, "0000:2a:00.0", 1, 129));
    cfg_.cli.root = dir_.path();
    // The hook binary must exist: a missing one is an error (resolve_hook_binary).
    ctk_ = tools_.write("opt/nvct/bin/nvidia-ctk", "#!/bin/sh\n");
    ::chmod(ctk_.c_str(), 0755);
    cfg_.ctk.path = ctk_;
  }
  void add_files() { driver::testing::add_graphics_files(dir_, "550.54.14"); }

  GraphicsEdits edits_for(std::vector<std::string> devices) {
    auto root = driver::DriverRoot::open(dir_.path());
    EXPECT_TRUE(root);
    auto facts = read_device_facts(*root);
    EXPECT_TRUE(facts) << facts.error().message();
    auto e = graphics_edits(*root, *facts, devices, "550.54.14");
    EXPECT_TRUE(e.has_value());
    return e.value_or(GraphicsEdits{});
  }
  static std::vector<std::string> node_paths(const GraphicsEdits& e) {
    std::vector<std::string> out;
    for (const auto& n : e.nodes) out.push_back(n.path);
    return out;
  }
  Result<bool> add(ordered_json& spec, std::vector<std::string> devices, std::string caps) {
    return add_graphics(spec, graphics_request(std::move(devices), std::move(caps)), cfg_, "");
  }

  TempDir dir_;
  TempDir tools_;
  std::string ctk_;
  config::Config cfg_;
};

TEST_F(GraphicsModifierTest, OnlyTheRequestedGpusNodesAndLinks) {
  auto e = edits_for({"1"});
  EXPECT_EQ(node_paths(e), (std::vector<std::string>{"/dev/dri/card1", "/dev/dri/renderD129"}));
  EXPECT_EQ(e.nodes[0], (SpecDeviceNode{"/dev/dri/card1", 226, 1, 0660, 0, 0}));
  EXPECT_EQ(e.link_args, (std::vector<std::string>{
                             "--link", "../card1::/dev/dri/by-path/pci-0000:2a:00.0-card", "--link",
                             "../renderD129::/dev/dri/by-path/pci-0000:2a:00.0-render"}));
  EXPECT_TRUE(e.mounts.empty());
}

TEST_F(GraphicsModifierTest, AllUuidAndBusIdSelectLikeTheDeviceRules) {
  EXPECT_EQ(node_paths(edits_for({"all"})),
            (std::vector<std::string>{"/dev/dri/card4", "/dev/dri/renderD132", "/dev/dri/card1",
                                      "/dev/dri/renderD129"}));
  EXPECT_EQ(node_paths(edits_for({"GPU-aaaa"})),
            (std::vector<std::string>{"/dev/dri/card4", "/dev/dri/renderD132"}));
  EXPECT_EQ(node_paths(edits_for({"00000000:2A:00.0"})),
            (std::vector<std::string>{"/dev/dri/card1", "/dev/dri/renderD129"}));
}

TEST_F(GraphicsModifierTest, UnknownAndMigIdsAddNothing) {
  auto root = driver::DriverRoot::open(dir_.path());
  auto facts = read_device_facts(*root);
  ASSERT_TRUE(facts);
  EXPECT_FALSE(graphics_edits(*root, *facts, {"7"}, "550.54.14"));
  EXPECT_FALSE(graphics_edits(*root, *facts, {"MIG-1234"}, "550.54.14"));
  ordered_json spec = ordered_json::parse(R"({"ociVersion":"1.0.2"})");
  auto r = add(spec, {"0:1"}, "graphics");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FALSE(*r);
  EXPECT_EQ(spec.dump(), R"({"ociVersion":"1.0.2"})");
}

TEST_F(GraphicsModifierTest, GoldenSpecBeforeAndAfter) {
  add_files();
  ordered_json spec = ordered_json::parse(R"({
    "ociVersion": "1.0.2", "x-unknown": {"big": 18446744073709551615},
    "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}],
    "hooks": {"prestart": [{"path": "/usr/bin/other"}]},
    "linux": {"resources": {"devices": [{"allow": false, "access": "rwm"}]}}})");
  auto r = add(spec, {"0"}, "graphics");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(*r);
  const std::string root = dir_.path();
  auto mount = [&](const std::string& p) {
    return ordered_json{{"destination", p},
                        {"type", "bind"},
                        {"source", root + p},
                        {"options", {"ro", "nosuid", "nodev", "rbind", "rprivate"}}};
  };
  ordered_json expected = ordered_json::parse(R"({
    "ociVersion": "1.0.2", "x-unknown": {"big": 18446744073709551615},
    "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}],
    "hooks": {"prestart": [{"path": "/usr/bin/other"}], "createContainer": [{
      "path": "@CTK@",
      "args": ["nvidia-ctk", "hook", "create-symlinks",
               "--link", "../card4::/dev/dri/by-path/pci-0000:17:00.0-card",
               "--link", "../renderD132::/dev/dri/by-path/pci-0000:17:00.0-render",
               "--link", "libglxserver_nvidia.so.550.54.14::/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so"],
      "env": ["NVIDIA_CTK_DEBUG=false"], "timeout": 60}]},
    "linux": {
      "resources": {"devices": [{"allow": false, "access": "rwm"},
        {"allow": true, "type": "c", "major": 226, "minor": 4, "access": "rwm"},
        {"allow": true, "type": "c", "major": 226, "minor": 132, "access": "rwm"}]},
      "devices": [
        {"path": "/dev/dri/card4", "type": "c", "major": 226, "minor": 4, "fileMode": 432,
         "uid": 0, "gid": 0},
        {"path": "/dev/dri/renderD132", "type": "c", "major": 226, "minor": 132, "fileMode": 438,
         "uid": 0, "gid": 0}]}})");
  for (const char* p : {"/etc/vulkan/icd.d/nvidia_icd.json",
                        "/usr/share/vulkan/implicit_layer.d/nvidia_layers.json",
                        "/usr/share/glvnd/egl_vendor.d/10_nvidia.json",
                        "/usr/share/egl/egl_external_platform.d/15_nvidia_gbm.json",
                        "/usr/share/egl/egl_external_platform.d/10_nvidia_wayland.json",
                        "/usr/lib/xorg/modules/drivers/nvidia_drv.so",
                        "/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so.550.54.14"})
    expected["mounts"].push_back(mount(p));
  expected["hooks"]["createContainer"][0]["path"] = ctk_;
  // Compare member by member first for a readable failure, then the whole document.
  EXPECT_EQ(spec["hooks"].dump(2), expected["hooks"].dump(2));
  EXPECT_EQ(spec["mounts"].dump(2), expected["mounts"].dump(2));
  EXPECT_EQ(spec["linux"].dump(2), expected["linux"].dump(2));
  EXPECT_EQ(spec.dump(), expected.dump());
}

TEST_F(GraphicsModifierTest, RunningTwiceAddsNothingTheSecondTime) {
  add_files();
  ordered_json spec = ordered_json::parse(R"({"ociVersion":"1.0.2"})");
  ASSERT_TRUE(add(spec, {"all"}, "all").value_or(false));
  std::string once = spec.dump();
  auto again = add(spec, {"all"}, "all");
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_FALSE(*again);
  EXPECT_EQ(spec.dump(), once);
}

TEST_F(GraphicsModifierTest, WithoutGraphicsCapabilityTheSpecIsUntouched) {
  add_files();
  const std::string text = R"({"ociVersion":"1.0.2","process":{"env":["A=1"]}})";
  for (std::string caps : {"<unset>", "", "utility", "compute,utility,video"}) {
    ordered_json spec = ordered_json::parse(text);
    auto r = add(spec, {"all"}, caps);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_FALSE(*r) << caps;
    EXPECT_EQ(spec.dump(), ordered_json::parse(text).dump()) << caps;
  }
}

TEST_F(GraphicsModifierTest, ExistingMountDestinationIsKept) {
  add_files();
  ordered_json spec = ordered_json::parse(R"({"mounts":[
      {"destination":"/etc/vulkan/icd.d/nvidia_icd.json","type":"bind","source":"/mine"}]})");
  ASSERT_TRUE(add(spec, {"0"}, "graphics").value_or(false));
  EXPECT_EQ(spec["mounts"][0]["source"], "/mine");
  for (std::size_t i = 1; i < spec["mounts"].size(); ++i)
    EXPECT_NE(spec["mounts"][i]["destination"], "/etc/vulkan/icd.d/nvidia_icd.json");
}

TEST_F(GraphicsModifierTest, GpuWithoutDrmNodesStillGetsTheConfigFiles) {
  std::filesystem::remove_all(dir_ / "sys");
  dir_.write("etc/vulkan/icd.d/nvidia_icd.json", "{}");
  ordered_json spec = ordered_json::parse(R"({})");
  ASSERT_TRUE(add(spec, {"0"}, "display").value_or(false));
  EXPECT_FALSE(spec.contains("linux"));
  EXPECT_FALSE(spec.contains("hooks"));  // create-symlinks without links is no hook
  ASSERT_EQ(spec["mounts"].size(), 1u);
  EXPECT_EQ(spec["mounts"][0]["destination"], "/etc/vulkan/icd.d/nvidia_icd.json");
}

TEST_F(GraphicsModifierTest, DriverNotLoadedChangesNothing) {
  std::filesystem::remove(dir_ / "proc/driver/nvidia/version");
  ordered_json spec = ordered_json::parse(R"({})");
  auto r = add(spec, {"0"}, "graphics");
  ASSERT_TRUE(r);
  EXPECT_FALSE(*r);
  EXPECT_EQ(spec.dump(), "{}");
}

TEST_F(GraphicsModifierTest, WrongJsonTypesAreErrorsNamingTheField) {
  add_files();
  ordered_json bad_mounts = ordered_json::parse(R"({"mounts":{}})");
  auto r = add(bad_mounts, {"0"}, "graphics");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("mounts is not an array"), std::string::npos);
  ordered_json bad_hooks = ordered_json::parse(R"({"hooks":[]})");
  r = add(bad_hooks, {"0"}, "graphics");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("hooks is not an object"), std::string::npos);
  ordered_json bad_create = ordered_json::parse(R"({"hooks":{"createContainer":{}}})");
  r = add(bad_create, {"0"}, "graphics");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("hooks.createContainer is not an array"), std::string::npos);
}

TEST_F(GraphicsModifierTest, LegacyBundleGetsGraphicsOnlyWithTheCapability) {
  add_files();
  TempDir bundle;
  auto run = [&](const std::string& caps) {
    bundle.write("config.json",
                 R"({"ociVersion":"1.0.2","process":{"env":["NVIDIA_VISIBLE_DEVICES=1",)"
                 R"("NVIDIA_DRIVER_CAPABILITIES=)" +
                     caps + R"("]},"root":{"path":"rootfs"}})");
    ModifierOptions options;
    options.mode = Mode::kLegacy;
    options.hook_path = "/usr/bin/nvidia-container-runtime-hook";
    auto outcome = modify_bundle(bundle.path(), cfg_, options);
    EXPECT_TRUE(outcome) << outcome.error().message();
    return bundle.read("config.json");
  };
  std::string graphics = run("graphics,utility");
  EXPECT_NE(graphics.find("/dev/dri/card1"), std::string::npos);
  EXPECT_NE(graphics.find("pci-0000:2a:00.0-render"), std::string::npos);
  EXPECT_NE(graphics.find("/etc/vulkan/icd.d/nvidia_icd.json"), std::string::npos);
  EXPECT_EQ(graphics.find("/dev/dri/card4"), std::string::npos);  // the other GPU
  std::string utility = run("utility");
  EXPECT_EQ(utility.find("/dev/dri"), std::string::npos);
  EXPECT_EQ(utility.find("createContainer"), std::string::npos);
  EXPECT_EQ(utility.find("nvidia_icd.json"), std::string::npos);
}

}  // namespace
}  // namespace nvct::runtime
