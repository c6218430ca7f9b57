#include "nvct/runtime/device_rules.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../driver/fake_drm.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::runtime {
namespace {

using nlohmann::ordered_json;
using nvct::testing::TempDir;

// A synthetic driver root: two GPUs whose minors are not in bus order (index != minor), uvm at
// major 238, and a procfs version file (the "driver is loaded" marker).
class DeviceRulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    driver::testing::add_two_gpu_procfs(dir_);
    dir_.write("proc/devices",
               "Character devices:\n  1 mem\n195 nvidia\n238 nvidia-uvm\n235 nvidia-caps\n\n"
               "Block devices:\n  8 sd\n");
    cfg_.cli.root = dir_.path();
  }

  request::Request gpu_request(std::vector<std::string> devices,
                               std::vector<std::string> env = {}) {
    request::Request req;
    req.devices = std::move(devices);
    for (const auto& e : env) {
      auto eq = e.find('=');
      req.env[e.substr(0, eq)] = e.substr(eq + 1);
    }
    return req;
  }

  DeviceFacts facts() {
    auto root = driver::DriverRoot::open(dir_.path());
    EXPECT_TRUE(root);
    auto f = read_device_facts(*root);
    EXPECT_TRUE(f) << f.error().message();
    return *f;
  }

  // "c MAJ:MIN" of every allow rule, in order.
  static std::vector<std::string> rules(const ordered_json& spec) {
    std::vector<std::string> out;
    for (const auto& r : spec["linux"]["resources"]["devices"])
      if (r.value("allow", false))
        out.push_back(r.value("type", "?") + " " + std::to_string(r.value("major", -1)) + ":" +
                      std::to_string(r.value("minor", -1)) + " " + r.value("access", ""));
    return out;
  }
  static std::vector<std::string> paths(const ordered_json& spec) {
    std::vector<std::string> out;
    for (const auto& d : spec["linux"]["devices"]) out.push_back(d.value("path", ""));
    return out;
  }

  TempDir dir_;
  config::Config cfg_;
};

ordered_json docker_spec() {
  return ordered_json::parse(R"({"ociVersion":"1.0.2","linux":{"resources":{"devices":[
      {"allow":false,"access":"rwm"},{"allow":true,"type":"c","major":1,"minor":3,"access":"rwm"}]},
      "x-keep":1}})");
}

TEST_F(DeviceRulesTest, FactsComeFromProcfsInBusOrderWithUvmMajor) {
  auto f = facts();
  ASSERT_EQ(f.gpus.size(), 2u);
  EXPECT_EQ(f.gpus[0].uuid, "GPU-aaaa");
  EXPECT_EQ(f.gpus[0].node.path, "/dev/nvidia3");
  EXPECT_EQ(f.gpus[1].node.path, "/dev/nvidia0");
  EXPECT_EQ(f.nvidia_major, 195u);
  ASSERT_TRUE(f.uvm_major);
  EXPECT_EQ(*f.uvm_major, 238u);
}

TEST_F(DeviceRulesTest, FactsFailWhenTheDriverIsNotLoaded) {
  ::unlink((dir_ / "proc/driver/nvidia/version").c_str());
  auto root = driver::DriverRoot::open(dir_.path());
  ASSERT_TRUE(root);
  EXPECT_FALSE(read_device_facts(*root));
}

TEST_F(DeviceRulesTest, AllSelectsEveryGpuPlusControlAndUvmWithCompute) {
  auto nodes = nodes_for_request(facts(), {"all"}, {"compute", "utility"});
  ASSERT_TRUE(nodes);
  std::vector<std::string> got;
  for (const auto& n : *nodes) got.push_back(n.path);
  EXPECT_EQ(got, (std::vector<std::string>{"/dev/nvidiactl", "/dev/nvidia-uvm",
                                           "/dev/nvidia-uvm-tools", "/dev/nvidia3",
                                           "/dev/nvidia0"}));
  EXPECT_EQ((*nodes)[1], (SpecDeviceNode{"/dev/nvidia-uvm", 238, 0}));
  EXPECT_EQ((*nodes)[2], (SpecDeviceNode{"/dev/nvidia-uvm-tools", 238, 1}));
}

TEST_F(DeviceRulesTest, IndexSelectsByEnumerationOrderNotMinor) {
  auto nodes = nodes_for_request(facts(), {"1"}, {"utility"});
  ASSERT_TRUE(nodes);
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[0], (SpecDeviceNode{"/dev/nvidiactl", 195, 255}));
  EXPECT_EQ((*nodes)[1], (SpecDeviceNode{"/dev/nvidia0", 195, 0}));
}

TEST_F(DeviceRulesTest, UuidAndBusIdSelectTheirGpu) {
  auto by_uuid = nodes_for_request(facts(), {"GPU-bbbb"}, {"utility"});
  ASSERT_TRUE(by_uuid);
  EXPECT_EQ(by_uuid->back().path, "/dev/nvidia0");
  auto by_bus = nodes_for_request(facts(), {"0000:17:00.0"}, {"utility"});
  ASSERT_TRUE(by_bus);
  EXPECT_EQ(by_bus->back().path, "/dev/nvidia3");
}

TEST_F(DeviceRulesTest, NoneGetsOnlyControlNodes) {
  auto nodes = nodes_for_request(facts(), {""}, {"compute", "utility"});
  ASSERT_TRUE(nodes);
  std::vector<std::string> got;
  for (const auto& n : *nodes) got.push_back(n.path);
  EXPECT_EQ(got, (std::vector<std::string>{"/dev/nvidiactl", "/dev/nvidia-uvm",
                                           "/dev/nvidia-uvm-tools"}));
}

TEST_F(DeviceRulesTest, DisplayAddsModesetAndNoComputeMeansNoUvm) {
  auto nodes = nodes_for_request(facts(), {""}, {"display", "graphics"});
  ASSERT_TRUE(nodes);
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[1], (SpecDeviceNode{"/dev/nvidia-modeset", 195, 254}));
}

TEST_F(DeviceRulesTest, UvmNotLoadedLeavesUvmToTheHook) {
  auto f = facts();
  f.uvm_major.reset();
  auto nodes = nodes_for_request(f, {""}, {"compute"});
  ASSERT_TRUE(nodes);
  ASSERT_EQ(nodes->size(), 1u);
  EXPECT_EQ((*nodes)[0].path, "/dev/nvidiactl");
}

TEST_F(DeviceRulesTest, UnknownOrMigIdsAreLeftToTheHook) {
  EXPECT_FALSE(nodes_for_request(facts(), {"7"}, {"compute"}));
  EXPECT_FALSE(nodes_for_request(facts(), {"GPU-nope"}, {"compute"}));
  EXPECT_FALSE(nodes_for_request(facts(), {"0", "MIG-1111"}, {"compute"}));
  EXPECT_FALSE(nodes_for_request(facts(), {"0:1"}, {"compute"}));
}

TEST_F(DeviceRulesTest, HostNodeGivesModeAndOwnerOnlyWhenItIsTheExpectedDevice) {
  if (::geteuid() != 0) FAIL() << "this test must run as root (it creates device nodes)";
  ::mkdir((dir_ / "dev").c_str(), 0755);
  ASSERT_EQ(::mknod((dir_ / "dev/nvidiactl").c_str(), S_IFCHR | 0600, makedev(195, 255)), 0);
  ASSERT_EQ(::chown((dir_ / "dev/nvidiactl").c_str(), 12, 34), 0);
  ASSERT_EQ(::chmod((dir_ / "dev/nvidiactl").c_str(), 0640), 0);
  // A node with the wrong number is not trusted: defaults are kept.
  ASSERT_EQ(::mknod((dir_ / "dev/nvidia0").c_str(), S_IFCHR | 0600, makedev(1, 3)), 0);
  auto root = driver::DriverRoot::open(dir_.path());
  ASSERT_TRUE(root);
  std::vector<SpecDeviceNode> nodes{{"/dev/nvidiactl", 195, 255},
                                    {"/dev/nvidia0", 195, 0},
                                    {"/dev/nvidia-uvm", 238, 0}};
  stat_host_nodes(*root, nodes);
  EXPECT_EQ(nodes[0], (SpecDeviceNode{"/dev/nvidiactl", 195, 255, 0640, 12, 34}));
  EXPECT_EQ(nodes[1], (SpecDeviceNode{"/dev/nvidia0", 195, 0, 0666, 0, 0}));
  EXPECT_EQ(nodes[2], (SpecDeviceNode{"/dev/nvidia-uvm", 238, 0, 0666, 0, 0}));
}

TEST_F(DeviceRulesTest, RulesAreAppendedAfterTheDefaultDenyAndUnknownFieldsKept) {
  auto spec = docker_spec();
  auto changed = add_nodes_to_spec(spec, {{"/dev/nvidiactl", 195, 255}, {"/dev/nvidia0", 195, 0}});
  ASSERT_TRUE(changed) << changed.error().message();
  EXPECT_TRUE(*changed);
  auto& list = spec["linux"]["resources"]["devices"];
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0], ordered_json::parse(R"({"allow":false,"access":"rwm"})"));
  EXPECT_EQ(list[2].dump(), R"({"allow":true,"type":"c","major":195,"minor":255,"access":"rwm"})");
  EXPECT_EQ(list[3]["minor"], 0);
  EXPECT_EQ(spec["linux"]["x-keep"], 1);
  ASSERT_EQ(spec["linux"]["devices"].size(), 2u);
  EXPECT_EQ(spec["linux"]["devices"][0].dump(),
            R"({"path":"/dev/nvidiactl","type":"c","major":195,"minor":255,"fileMode":438,)"
            R"("uid":0,"gid":0})");
}

TEST_F(DeviceRulesTest, AddingTwiceAddsEachRuleOnce) {
  auto spec = docker_spec();
  std::vector<SpecDeviceNode> nodes{{"/dev/nvidiactl", 195, 255}, {"/dev/nvidia0", 195, 0}};
  ASSERT_TRUE(add_nodes_to_spec(spec, nodes));
  auto once = spec;
  auto again = add_nodes_to_spec(spec, nodes);
  ASSERT_TRUE(again);
  EXPECT_FALSE(*again);
  EXPECT_EQ(spec, once);
}

TEST_F(DeviceRulesTest, SpecWithoutLinuxGetsTheSections) {
  auto spec = ordered_json::parse(R"({"ociVersion":"1.0.2","linux":null})");
  ASSERT_TRUE(add_nodes_to_spec(spec, {{"/dev/nvidiactl", 195, 255}}));
  EXPECT_EQ(paths(spec), (std::vector<std::string>{"/dev/nvidiactl"}));
  EXPECT_EQ(rules(spec), (std::vector<std::string>{"c 195:255 rwm"}));
}

TEST_F(DeviceRulesTest, ExistingEntryForAnotherDeviceIsKeptAndOnlyTheRuleAdded) {
  auto spec = ordered_json::parse(
      R"({"linux":{"devices":[{"path":"/dev/nvidia0","type":"c","major":1,"minor":5}]}})");
  ASSERT_TRUE(add_nodes_to_spec(spec, {{"/dev/nvidia0", 195, 0}}));
  ASSERT_EQ(spec["linux"]["devices"].size(), 1u);
  EXPECT_EQ(spec["linux"]["devices"][0]["major"], 1);
  EXPECT_EQ(rules(spec), (std::vector<std::string>{"c 195:0 rwm"}));
}

TEST_F(DeviceRulesTest, ExistingIdenticalEntryFromDockerDeviceIsNotDuplicated) {
  auto spec = ordered_json::parse(
      R"({"linux":{"devices":[{"path":"/dev/nvidia0","type":"c","major":195,"minor":0}],
          "resources":{"devices":[{"allow":true,"type":"c","major":195,"minor":0,"access":"rwm"}]}}})");
  auto changed = add_nodes_to_spec(spec, {{"/dev/nvidia0", 195, 0}});
  ASSERT_TRUE(changed);
  EXPECT_FALSE(*changed);
}

TEST_F(DeviceRulesTest, WrongJsonTypesAreErrorsNamingTheField) {
  auto spec = ordered_json::parse(R"({"linux":{"devices":{}}})");
  auto r = add_nodes_to_spec(spec, {{"/dev/nvidiactl", 195, 255}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "linux.devices is not an array");
  spec = ordered_json::parse(R"({"linux":{"resources":{"devices":1}}})");
  r = add_nodes_to_spec(spec, {{"/dev/nvidiactl", 195, 255}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "linux.resources.devices is not an array");
}

TEST_F(DeviceRulesTest, AddDeviceRulesForUuidRequestUsesConfigDriverRoot) {
  auto spec = docker_spec();
  auto changed = add_device_rules(spec, gpu_request({"GPU-aaaa"}), cfg_);
  ASSERT_TRUE(changed) << changed.error().message();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(rules(spec), (std::vector<std::string>{"c 1:3 rwm", "c 195:255 rwm", "c 238:0 rwm",
                                                   "c 238:1 rwm", "c 195:3 rwm"}));
}

TEST_F(DeviceRulesTest, AddDeviceRulesFollowsDriverCapabilities) {
  auto spec = docker_spec();
  ASSERT_TRUE(add_device_rules(spec, gpu_request({"0"}, {"NVIDIA_DRIVER_CAPABILITIES=display"}),
                               cfg_));
  EXPECT_EQ(rules(spec),
            (std::vector<std::string>{"c 1:3 rwm", "c 195:255 rwm", "c 195:254 rwm", "c 195:3 rwm"}));
}

TEST_F(DeviceRulesTest, AddDeviceRulesChangesNothingWithoutGpuRequestDriverOrValidIds) {
  auto spec = docker_spec();
  auto before = spec;
  EXPECT_FALSE(*add_device_rules(spec, request::Request{}, cfg_));
  EXPECT_FALSE(*add_device_rules(spec, gpu_request({"GPU-unknown"}), cfg_));
  EXPECT_FALSE(*add_device_rules(
      spec, gpu_request({"0"}, {"NVIDIA_DRIVER_CAPABILITIES=bogus"}), cfg_));
  ::unlink((dir_ / "proc/driver/nvidia/version").c_str());
  EXPECT_FALSE(*add_device_rules(spec, gpu_request({"all"}), cfg_));
  cfg_.cli.root = dir_ / "missing";
  EXPECT_FALSE(*add_device_rules(spec, gpu_request({"all"}), cfg_));
  EXPECT_EQ(spec, before);
}

}  // namespace
}  // namespace nvct::runtime
