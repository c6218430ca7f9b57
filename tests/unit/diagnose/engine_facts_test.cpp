#include "nvct/diagnose/engine_facts.hpp"

#include <gtest/gtest.h>

#include "mock_host.hpp"
#include "nvct/diagnose/host.hpp"

namespace nvct::diagnose {
namespace {

using testing::MockHost;

TEST(EngineFacts, DockerRuntimesAndSystemdDriver) {
  MockHost mock;
  mock.file("/etc/docker/daemon.json",
            R"({"default-runtime": "nvidia", "exec-opts": ["native.cgroupdriver=systemd"],
                "runtimes": {"nvidia": {"path": "/usr/bin/nvidia-container-runtime"}}})");
  auto host = Host::open(mock.options());
  ASSERT_TRUE(host.has_value());
  const auto& docker = host->engines().docker;
  EXPECT_TRUE(docker.present);
  EXPECT_EQ(docker.default_runtime, "nvidia");
  ASSERT_EQ(docker.runtimes.size(), 1u);
  EXPECT_EQ(docker.runtimes[0].path, "/usr/bin/nvidia-container-runtime");
  EXPECT_TRUE(docker.systemd_cgroup);
  EXPECT_NE(docker.cgroup_evidence.find("native.cgroupdriver=systemd"), std::string::npos);
}

TEST(EngineFacts, ContainerdRuncSystemdCgroup) {
  MockHost mock;
  mock.file("/etc/containerd/config.toml", R"(version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "runc"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
  SystemdCgroup = true
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
  BinaryName = "/usr/bin/nvidia-container-runtime"
)");
  auto host = Host::open(mock.options());
  ASSERT_TRUE(host.has_value());
  const auto& containerd = host->engines().containerd;
  EXPECT_TRUE(containerd.present);
  EXPECT_TRUE(containerd.systemd_cgroup);
  ASSERT_EQ(containerd.runtimes.size(), 2u);
  EXPECT_EQ(containerd.default_runtime, "runc");
}

TEST(EngineFacts, CrioDropInsMergeAndSystemdIsTheDefault) {
  MockHost mock;
  mock.file("/etc/crio/crio.conf", "[crio.runtime]\ndefault_runtime = \"crun\"\n");
  mock.file(
      "/etc/crio/crio.conf.d/99-nvidia.conf",
      "[crio.runtime.runtimes.nvidia]\nruntime_path = \"/usr/bin/nvidia-container-runtime\"\n");
  auto host = Host::open(mock.options());
  ASSERT_TRUE(host.has_value());
  const auto& crio = host->engines().crio;
  EXPECT_TRUE(crio.present);
  EXPECT_EQ(crio.default_runtime, "crun");
  ASSERT_EQ(crio.runtimes.size(), 1u);
  EXPECT_EQ(crio.runtimes[0].path, "/usr/bin/nvidia-container-runtime");
  EXPECT_TRUE(crio.systemd_cgroup);
}

TEST(EngineFacts, AbsentEnginesAreNotPresent) {
  MockHost mock;
  mock.remove("/etc/docker");
  auto host = Host::open(mock.options());
  ASSERT_TRUE(host.has_value());
  EXPECT_FALSE(host->engines().docker.present);
  EXPECT_FALSE(host->engines().containerd.present);
  EXPECT_FALSE(host->engines().crio.present);
  EXPECT_FALSE(host->engines().crio.systemd_cgroup);
}

TEST(EngineFacts, OversizedDaemonJsonIsAnErrorNotARead) {
  MockHost mock;
  mock.file("/etc/docker/daemon.json", std::string(5u << 20, ' '));
  auto host = Host::open(mock.options());
  ASSERT_TRUE(host.has_value());
  EXPECT_FALSE(host->engines().docker.error.empty());
}

}  // namespace
}  // namespace nvct::diagnose
