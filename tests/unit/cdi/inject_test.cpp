// Application of CDI edits to an OCI spec (cdi.md §3 and the §4 apply cases).
#include "nvct/cdi/inject.hpp"

#include <gtest/gtest.h>

#include <map>

namespace nvct::cdi {
namespace {

using nlohmann::ordered_json;

class FakeLookup : public DeviceLookup {
 public:
  std::map<std::string, HostDeviceInfo> nodes;
  std::vector<std::string> calls;
  Result<HostDeviceInfo> lstat(const std::string& path) override {
    calls.push_back(path);
    auto it = nodes.find(path);
    if (it == nodes.end()) return fail(ENOENT, "lstat " + path + ": no such file or directory");
    return it->second;
  }
};

ordered_json base_spec() {
  return ordered_json::parse(R"({"ociVersion":"1.0.2","process":{"user":{"uid":0,"gid":0},
    "env":["PATH=/bin","FOO=old","BAR=old"],"x-unknown":1},"root":{"path":"rootfs"},
    "mounts":[{"destination":"/proc","type":"proc","source":"proc"},
              {"destination":"/dev/pts","type":"devpts","source":"devpts"},
              {"destination":"/dev","type":"tmpfs","source":"tmpfs"}],
    "linux":{"namespaces":[{"type":"mount"}]}, "annotations":{"keep":"me"}})");
}

TEST(ApplyEdits, DevNullPathOnlyIsFilledFromTheHost) {
  ordered_json spec = base_spec();
  ContainerEdits e;
  DeviceNode n;
  n.path = "/dev/null";
  e.device_nodes = {n};
  HostDeviceLookup host;
  ASSERT_TRUE(apply_edits(spec, e, host));
  EXPECT_EQ(spec["linux"]["devices"],
            ordered_json::parse(
                R"([{"path":"/dev/null","type":"c","major":1,"minor":3,"fileMode":438}])"));
  EXPECT_EQ(spec["linux"]["resources"]["devices"],
            ordered_json::parse(
                R"([{"allow":true,"type":"c","major":1,"minor":3,"access":"rwm"}])"));
}

TEST(ApplyEdits, EnvReplacesByKeyInPlace) {
  ordered_json spec = base_spec();
  ContainerEdits e;
  e.env = {"FOO=new", "NEW=1"};
  FakeLookup lookup;
  ASSERT_TRUE(apply_edits(spec, e, lookup));
  EXPECT_EQ(spec["process"]["env"],
            ordered_json::parse(R"(["PATH=/bin","FOO=new","BAR=old","NEW=1"])"));
}

TEST(ApplyEdits, DuplicateEnvInOneBatchLastWins) {
  ordered_json spec = ordered_json::object();
  ContainerEdits e;
  e.env = {"FOO=old", "FOO=new"};
  FakeLookup lookup;
  ASSERT_TRUE(apply_edits(spec, e, lookup));
  EXPECT_EQ(spec["process"]["env"], ordered_json::parse(R"(["FOO=new"])"));
}

TEST(ApplyEdits, UnknownFieldsAndKeyOrderSurvive) {
  ordered_json spec = base_spec();
  ContainerEdits e;
  e.env = {"A=1"};
  FakeLookup lookup;
  ASSERT_TRUE(apply_edits(spec, e, lookup));
  std::vector<std::string> keys;
  for (const auto& [k, v] : spec.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"ociVersion", "process", "root", "mounts", "linux",
                                            "annotations"}));
  EXPECT_EQ(spec["process"]["x-unknown"], 1);
}

TEST(ApplyEdits, HostPathIsStatedAndTypeMismatchFails) {
  ordered_json spec = base_spec();
  FakeLookup lookup;
  lookup.nodes["/host/dev/nvidia0"] = {"c", 195, 0, 0666};
  ContainerEdits e;
  DeviceNode n;
  n.path = "/dev/nvidia0";
  n.host_path = "/host/dev/nvidia0";
  e.device_nodes = {n};
  ASSERT_TRUE(apply_edits(spec, e, lookup));
  EXPECT_EQ(lookup.calls, std::vector<std::string>{"/host/dev/nvidia0"});
  EXPECT_EQ(spec["linux"]["devices"][0]["major"], 195);
  EXPECT_EQ(spec["linux"]["devices"][0]["path"], "/dev/nvidia0");

  e.device_nodes[0].type = "b";
  auto st = apply_edits(spec, e, lookup);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("does not match host device type"), std::string::npos);
}

TEST(ApplyEdits, StatFailureIsAnErrorUnlessTypeAndMajorAreGiven) {
  FakeLookup lookup;
  ContainerEdits e;
  DeviceNode n;
  n.path = "/dev/missing";
  e.device_nodes = {n};
  ordered_json spec = base_spec();
  EXPECT_FALSE(apply_edits(spec, e, lookup));

  e.device_nodes[0].type = "c";
  e.device_nodes[0].major = 10;
  e.device_nodes[0].minor = 5;
  ASSERT_TRUE(apply_edits(spec, e, lookup));
  EXPECT_FALSE(spec["linux"]["devices"][0].contains("fileMode"));

  DeviceNode fifo;
  fifo.path = "/dev/fifo";
  fifo.type = "p";
  e.device_nodes = {fifo};
  ordered_json spec2 = base_spec();
  ASSERT_TRUE(apply_edits(spec2, e, lookup));
  EXPECT_FALSE(spec2["linux"].contains("resources"));  // no cgroup rule for a FIFO
}

TEST(ApplyEdits, ExistingDeviceWithSamePathIsReplaced) {
  ordered_json spec = base_spec();
  spec["linux"]["devices"] = ordered_json::parse(
      R"([{"path":"/dev/x","type":"c","major":1,"minor":1},{"path":"/dev/y","type":"c","major":2,"minor":2}])");
  FakeLookup lookup;
  ContainerEdits e;
  DeviceNode n;
  n.path = "/dev/x";
  n.type = "c";
  n.major = 9;
  n.minor = 9;
  n.permissions = "none";
  e.device_nodes = {n};
  ASSERT_TRUE(apply_edits(spec, e, lookup));
  ASSERT_EQ(spec["linux"]["devices"].size(), 2u);
  EXPECT_EQ(spec["linux"]["devices"][0]["path"], "/dev/y");
  EXPECT_EQ(spec["linux"]["devices"][1]["major"], 9);
  // "none" means an empty access string, which is omitted.
  EXPECT_FALSE(spec["linux"]["resources"]["devices"][0].contains("access"));
}

TEST(ApplyEdits, ProcessUidGidGoToDevicesWithoutOwner) {
  ordered_json spec = base_spec();
  spec["process"]["user"] = {{"uid", 1000}, {"gid", 1001}};
  FakeLookup lookup;
  ContainerEdits e;
  DeviceNode a{"/dev/a", "", "c", 1, 1, std::nullopt, "", std::nullopt, std::nullopt};
  DeviceNode b{"/dev/b", "", "c", 1, 2, std::nullopt, "rw", 5u, 6u};
  e.device_nodes = {a, b};
  ASSERT_TRUE(apply_edits(spec, e, lookup));
  EXPECT_EQ(spec["linux"]["devices"][0]["uid"], 1000);
  EXPECT_EQ(spec["linux"]["devices"][0]["gid"], 1001);
  EXPECT_EQ(spec["linux"]["devices"][1]["uid"], 5);
  EXPECT_EQ(spec["linux"]["resources"]["devices"][1]["access"], "rw");
}

TEST(ApplyEdits, MountsReplaceSameDestinationAndAreSortedByDepth) {
  ordered_json spec = base_spec();
  FakeLookup lookup;
  ContainerEdits e;
  e.mounts = {{"/host/lib/libcuda.so", "/usr/lib/x86_64-linux-gnu/libcuda.so", "",
               {"ro", "nosuid", "nodev", "rbind", "rprivate"}},
              {"/host/proc", "/proc", "bind", {"bind"}},
              {"/host/bin/nvidia-smi", "/usr/bin/nvidia-smi", "", {}}};
  ASSERT_TRUE(apply_edits(spec, e, lookup));
  std::vector<std::string> dsts;
  for (const auto& m : spec["mounts"]) dsts.push_back(m["destination"]);
  EXPECT_EQ(dsts, (std::vector<std::string>{"/dev", "/proc", "/dev/pts", "/usr/bin/nvidia-smi",
                                            "/usr/lib/x86_64-linux-gnu/libcuda.so"}));
  EXPECT_EQ(spec["mounts"][1],
            ordered_json::parse(
                R"({"destination":"/proc","type":"bind","source":"/host/proc","options":["bind"]})"));
  EXPECT_FALSE(spec["mounts"][3].contains("type"));
  EXPECT_FALSE(spec["mounts"][3].contains("options"));
}

TEST(ApplyEdits, UserNamespaceAddsIdmapOptions) {
  ordered_json spec = base_spec();
  spec["linux"]["namespaces"].push_back({{"type", "user"}});
  FakeLookup lookup;
  ContainerEdits e;
  e.mounts = {{"/h/a", "/a", "", {"rbind", "ro"}}, {"/h/b", "/b", "bind", {"bind"}}};
  ASSERT_TRUE(apply_edits(spec, e, lookup));
  auto find = [&](const std::string& dst) {
    for (const auto& m : spec["mounts"]) {
      if (m["destination"] == dst) return m["options"];
    }
    return ordered_json();
  };
  EXPECT_EQ(find("/a"), ordered_json::parse(R"(["rbind","ro","ridmap"])"));
  EXPECT_EQ(find("/b"), ordered_json::parse(R"(["bind","idmap"])"));
}

TEST(ApplyEdits, HooksGoToTheirStage) {
  ordered_json spec = base_spec();
  FakeLookup lookup;
  ContainerEdits e;
  e.hooks = {{"createContainer", "/usr/bin/nvidia-cdi-hook",
              {"nvidia-cdi-hook", "update-ldcache"}, {"NVIDIA_CTK_DEBUG=false"}, std::nullopt},
             {"poststop", "/bin/cleanup", {}, {}, 3}};
  ASSERT_TRUE(apply_edits(spec, e, lookup));
  EXPECT_EQ(spec["hooks"]["createContainer"],
            ordered_json::parse(R"([{"path":"/usr/bin/nvidia-cdi-hook",
              "args":["nvidia-cdi-hook","update-ldcache"],"env":["NVIDIA_CTK_DEBUG=false"]}])"));
  EXPECT_EQ(spec["hooks"]["poststop"], ordered_json::parse(R"([{"path":"/bin/cleanup","timeout":3}])"));

  e.hooks = {{"badStage", "/bin/x", {}, {}, std::nullopt}};
  EXPECT_FALSE(apply_edits(spec, e, lookup));
}

TEST(ApplyEdits, AdditionalGidsDedupedAndZeroSkipped) {
  ordered_json spec = base_spec();
  spec["process"]["user"]["additionalGids"] = {5};
  FakeLookup lookup;
  ContainerEdits e;
  e.additional_gids = {0, 5, 44, 44};
  ASSERT_TRUE(apply_edits(spec, e, lookup));
  EXPECT_EQ(spec["process"]["user"]["additionalGids"], ordered_json::parse("[5,44]"));
}

TEST(ApplyEdits, IntelRdtAndNetDevices) {
  ordered_json spec = base_spec();
  FakeLookup lookup;
  ContainerEdits e;
  e.intel_rdt = IntelRdt{"grp", "L3:0=f", "", {}, false};
  e.net_devices = {{"eth1", "net0"}};
  ASSERT_TRUE(apply_edits(spec, e, lookup));
  EXPECT_EQ(spec["linux"]["intelRdt"], ordered_json::parse(R"({"closID":"grp","l3CacheSchema":"L3:0=f"})"));
  EXPECT_EQ(spec["linux"]["netDevices"], ordered_json::parse(R"({"eth1":{"name":"net0"}})"));
}

TEST(ApplyEdits, WrongTypeInSpecIsAnErrorNotAnException) {
  ordered_json spec = ordered_json::parse(R"({"process":{"env":"not-a-list"}})");
  FakeLookup lookup;
  ContainerEdits e;
  e.env = {"A=1"};
  auto st = apply_edits(spec, e, lookup);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("env"), std::string::npos);
}

TEST(InjectDevices, UnresolvableNamesFailWithTheRuntimeWording) {
  Registry r;
  ordered_json spec = base_spec();
  FakeLookup lookup;
  auto st = inject_devices(spec, r, {"nvidia.com/gpu=0", "nvidia.com/gpu=1"}, lookup);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message(),
            "failed to inject CDI devices: unresolvable CDI devices nvidia.com/gpu=0, "
            "nvidia.com/gpu=1");
  EXPECT_EQ(spec, base_spec());
}

TEST(InjectDevices, SpecEditsThenDeviceEdits) {
  Registry r;
  Spec s;
  s.cdi_version = "0.5.0";
  s.kind = "nvidia.com/gpu";
  s.container_edits.env = {"NVIDIA_VISIBLE_DEVICES=void"};
  Device d;
  d.name = "0";
  d.container_edits.device_nodes = {{"/dev/nvidia0", "", "c", 195, 0, 0666u, "", {}, {}}};
  s.devices = {d};
  r.add_spec(s, "mem", 0);
  r.finish();
  ordered_json spec = base_spec();
  FakeLookup lookup;
  ASSERT_TRUE(inject_devices(spec, r, {"nvidia.com/gpu=0"}, lookup));
  EXPECT_EQ(spec["process"]["env"].back(), "NVIDIA_VISIBLE_DEVICES=void");
  EXPECT_EQ(spec["linux"]["devices"][0]["path"], "/dev/nvidia0");
  EXPECT_TRUE(lookup.calls.empty());
}

TEST(CleanPath, MatchesGoSemantics) {
  EXPECT_EQ(clean_path("/"), "/");
  EXPECT_EQ(clean_path("/a//b/./c/"), "/a/b/c");
  EXPECT_EQ(clean_path("/a/../../b"), "/b");
  EXPECT_EQ(clean_path(""), ".");
  EXPECT_EQ(clean_path("a/../.."), "..");
}

}  // namespace
}  // namespace nvct::cdi
