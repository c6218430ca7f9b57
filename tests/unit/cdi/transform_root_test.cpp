// `cdi transform root` (cdi.md §7).
#include "nvct/cdi/transform_root.hpp"

#include <gtest/gtest.h>

namespace nvct::cdi {
namespace {

ContainerEdits sample() {
  ContainerEdits e;
  DeviceNode with_host;
  with_host.path = "/dev/nvidia0";
  with_host.host_path = "/driver/dev/nvidia0";
  DeviceNode path_only;
  path_only.path = "/driver/dev/nvidiactl";
  e.device_nodes = {with_host, path_only};
  e.mounts = {{"/driver/lib/libcuda.so.1", "/driver/lib/libcuda.so.1", "", {"ro"}}};
  Hook create;
  create.hook_name = "createContainer";
  create.path = "/driver/bin/nvidia-cdi-hook";
  create.args = {"nvidia-cdi-hook", "create-symlinks", "--link",
                 "/driver/lib/libcuda.so.1::/driver/lib/libcuda.so"};
  Hook prestart;
  prestart.hook_name = "prestart";
  prestart.path = "/driver/bin/hook";
  prestart.args = {"hook", "/driver/x::/driver/y", "/driver-backup/z"};
  Hook start;
  start.hook_name = "startContainer";
  start.path = "/driver/bin/start";
  start.args = {"start", "/driver/a"};
  e.hooks = {create, prestart, start};
  return e;
}

TEST(TransformRoot, PathPrefixMatchesWholeComponentsOnly) {
  RootTransform t{"/driver", "/host", RelativeTo::kHost};
  EXPECT_EQ(t.transform_path("/driver/lib/x.so"), "/host/lib/x.so");
  EXPECT_EQ(t.transform_path("/driver"), "/host");
  EXPECT_EQ(t.transform_path("/driver-backup/lib/x.so"), "/driver-backup/lib/x.so");
  EXPECT_EQ(t.transform_path("/other"), "/other");
  RootTransform slash{"/driver/", "/", RelativeTo::kHost};
  EXPECT_EQ(slash.transform_path("/driver/lib"), "/lib");
  RootTransform from_root{"", "/host", RelativeTo::kHost};
  EXPECT_EQ(from_root.transform_path("/dev/x"), "/host/dev/x");
}

TEST(TransformRoot, HostSideRewritesHostPathsAndHostHooks) {
  ContainerEdits e = sample();
  RootTransform{"/driver", "/host", RelativeTo::kHost}.apply(e);
  EXPECT_EQ(e.device_nodes[0].host_path, "/host/dev/nvidia0");
  EXPECT_EQ(e.device_nodes[0].path, "/dev/nvidia0");
  EXPECT_EQ(e.device_nodes[1].host_path, "/host/dev/nvidiactl");  // filled from path
  EXPECT_EQ(e.device_nodes[1].path, "/driver/dev/nvidiactl");
  EXPECT_EQ(e.mounts[0].host_path, "/host/lib/libcuda.so.1");
  EXPECT_EQ(e.mounts[0].container_path, "/driver/lib/libcuda.so.1");
  EXPECT_EQ(e.hooks[0].path, "/host/bin/nvidia-cdi-hook");
  EXPECT_EQ(e.hooks[0].args[3], "/driver/lib/libcuda.so.1::/driver/lib/libcuda.so");
  EXPECT_EQ(e.hooks[1].path, "/host/bin/hook");
  EXPECT_EQ(e.hooks[1].args,
            (std::vector<std::string>{"hook", "/host/x::/host/y", "/driver-backup/z"}));
  EXPECT_EQ(e.hooks[2].path, "/driver/bin/start");
  EXPECT_EQ(e.hooks[2].args[1], "/driver/a");
}

TEST(TransformRoot, ContainerSideRewritesContainerPathsAndContainerHooks) {
  ContainerEdits e = sample();
  RootTransform{"/driver", "/ctr", RelativeTo::kContainer}.apply(e);
  EXPECT_EQ(e.device_nodes[0].host_path, "/driver/dev/nvidia0");
  EXPECT_EQ(e.device_nodes[1].path, "/ctr/dev/nvidiactl");
  EXPECT_TRUE(e.device_nodes[1].host_path.empty());
  EXPECT_EQ(e.mounts[0].host_path, "/driver/lib/libcuda.so.1");
  EXPECT_EQ(e.mounts[0].container_path, "/ctr/lib/libcuda.so.1");
  EXPECT_EQ(e.hooks[0].path, "/driver/bin/nvidia-cdi-hook");
  EXPECT_EQ(e.hooks[0].args[3], "/ctr/lib/libcuda.so.1::/ctr/lib/libcuda.so");
  EXPECT_EQ(e.hooks[1].args[1], "/driver/x::/driver/y");
  EXPECT_EQ(e.hooks[2].path, "/ctr/bin/start");
  EXPECT_EQ(e.hooks[2].args[1], "/ctr/a");
}

TEST(TransformRoot, SpecLevelAndDeviceEditsAreBothTransformed) {
  Spec s;
  Device d;
  d.container_edits.mounts = {{"/driver/a", "/a", "", {}}};
  s.devices = {d};
  s.container_edits.mounts = {{"/driver/b", "/b", "", {}}};
  RootTransform{"/driver", "/", RelativeTo::kHost}.apply(s);
  EXPECT_EQ(s.devices[0].container_edits.mounts[0].host_path, "/a");
  EXPECT_EQ(s.container_edits.mounts[0].host_path, "/b");
}

TEST(TransformRoot, RelativeToParsing) {
  EXPECT_EQ(parse_relative_to("host").value(), RelativeTo::kHost);
  EXPECT_EQ(parse_relative_to("container").value(), RelativeTo::kContainer);
  EXPECT_FALSE(parse_relative_to("guest"));
}

}  // namespace
}  // namespace nvct::cdi
