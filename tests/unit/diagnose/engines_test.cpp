// One test per finding id of the engines family (spec/doctor.md §3.4) on a mock host tree.
#include <gtest/gtest.h>

#include "mock_host.hpp"

namespace nvct::diagnose {
namespace {

using testing::evidence_has;
using testing::find;
using testing::problem_ids;
using Ids = std::vector<std::string>;

constexpr const char* kContainerd = "/etc/containerd/config.toml";
constexpr const char* kCri = R"(plugins."io.containerd.grpc.v1.cri".containerd)";

// A containerd 2 config with runc and nvidia runtimes.
std::string containerd_config(bool nvidia_systemd = true, std::string extra = "") {
  return fmt::format(R"(version = 2
{}
[{cri}.runtimes.runc.options]
  SystemdCgroup = true
[{cri}.runtimes.nvidia.options]
  BinaryName = "/usr/bin/nvidia-container-runtime"
  SystemdCgroup = {}
)",
                     extra, nvidia_systemd, fmt::arg("cri", kCri));
}

class EnginesCheck : public testing::ReadOnlyTest {
 protected:
  void SetUp() override {
    ReadOnlyTest::SetUp();
    host.options().only = {"engines"};
  }
  void containerd_1x() {
    host.file("/usr/bin/containerd",
              "\x7f"
              "ELF github.com/containerd/containerd/api\n",
              0755);
  }
};

TEST_F(EnginesCheck, OkOnAHealthyHost) {
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  EXPECT_EQ(find(r, "engines.ok")->title, "NVIDIA runtime registered in docker");
}

TEST_F(EnginesCheck, DockerNotRegistered) {
  host.file("/etc/docker/daemon.json", R"({"runtimes": {"runsc": {"path": "/usr/bin/runsc"}}})");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"engines.docker-not-registered"});
  const Finding* f = find(r, "engines.docker-not-registered");
  EXPECT_TRUE(evidence_has(*f, "/etc/docker/daemon.json: no runtimes.<name>.path naming it"));
  EXPECT_EQ(f->fix, "nvidia-ctk runtime configure --runtime=docker && systemctl restart docker");
}

TEST_F(EnginesCheck, DockerPresentByItsBinaryAlone) {
  host.remove("/etc/docker");
  host.file("/usr/bin/dockerd", "", 0755);
  EXPECT_EQ(problem_ids(run()), Ids{"engines.docker-not-registered"});
}

TEST_F(EnginesCheck, DockerRestartNeeded) {
  // dockerd started 100 s after a boot at 1000 (ticks of 100 Hz or more put it before 2000);
  // daemon.json's mtime is now, far later.
  long ticks = ::sysconf(_SC_CLK_TCK);
  host.file("/run/docker.pid", "4242\n");
  host.file("/proc/stat", "cpu  1 2 3\nbtime 1000\n");
  std::string stat = "4242 (dockerd) S";
  for (int field = 4; field <= 21; ++field) stat += " 0";
  stat += fmt::format(" {} 0 0\n", 100 * ticks);
  host.file("/proc/4242/stat", stat);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"engines.docker-restart-needed"});
  const Finding* f = find(r, "engines.docker-restart-needed");
  EXPECT_TRUE(evidence_has(*f, "/proc/4242/stat: dockerd started at 1100"));
  EXPECT_NE(f->fix.find("systemctl restart docker"), std::string::npos);
}

TEST_F(EnginesCheck, DockerGpusHookNotOnDockerdsPath) {
  host.file("/run/docker.pid", "4242\n");
  host.file("/proc/4242/environ", std::string("PATH=/opt/bin\0", 14));
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"engines.docker-gpus-hook"});
  const Finding* f = find(r, "engines.docker-gpus-hook");
  EXPECT_TRUE(evidence_has(*f, "/proc/4242/environ: /opt/bin"));
  EXPECT_NE(f->fix.find("restart docker"), std::string::npos);
}

TEST_F(EnginesCheck, ContainerdNotRegistered) {
  host.file(kContainerd, "version = 2\n");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"engines.containerd-not-registered"});
  EXPECT_EQ(find(r, "engines.containerd-not-registered")->fix,
            "nvidia-ctk runtime configure --runtime=containerd && systemctl restart containerd");
}

TEST_F(EnginesCheck, ContainerdCriDisabled) {
  host.file(kContainerd, containerd_config(true, "disabled_plugins = [\"cri\"]"));
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"engines.containerd-cri-disabled"});
  EXPECT_TRUE(
      evidence_has(*find(r, "engines.containerd-cri-disabled"), "disabled_plugins holds \"cri\""));
}

TEST_F(EnginesCheck, ContainerdDropInNotImported) {
  host.file(kContainerd, containerd_config());
  host.file("/etc/containerd/conf.d/99-nvidia.toml", "version = 2\n");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"engines.containerd-drop-in-not-imported"});
  EXPECT_EQ(find(r, "engines.containerd-drop-in-not-imported")->fix,
            "add imports = [\"/etc/containerd/conf.d/*.toml\"] to /etc/containerd/config.toml");
}

TEST_F(EnginesCheck, ContainerdDropInImportedRegistersTheRuntime) {
  host.file(kContainerd, "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n");
  host.file("/etc/containerd/conf.d/99-nvidia.toml",
            fmt::format("version = 2\n[{}.runtimes.nvidia.options]\n  BinaryName = "
                        "\"/usr/bin/nvidia-container-runtime\"\n",
                        kCri));
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  EXPECT_NE(find(r, "engines.k8s-handler"), nullptr);
}

TEST_F(EnginesCheck, ContainerdRuncLost) {
  containerd_1x();
  host.file(kContainerd, containerd_config(true, "imports = [\"conf.d/*.toml\"]"));
  host.file("/etc/containerd/conf.d/99-nvidia.toml",
            fmt::format("version = 2\n[{}.runtimes.nvidia.options]\n  BinaryName = "
                        "\"/usr/bin/nvidia-container-runtime\"\n  SystemdCgroup = true\n",
                        kCri));
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"engines.containerd-runc-lost"});
  const Finding* f = find(r, "engines.containerd-runc-lost");
  EXPECT_TRUE(evidence_has(*f,
                           "/etc/containerd/conf.d/99-nvidia.toml: defines "
                           "plugins.\"io.containerd.grpc.v1.cri\" without runc"));
  EXPECT_NE(f->fix.find("--config-source=command"), std::string::npos);
}

TEST_F(EnginesCheck, ContainerdVersion3On1x) {
  containerd_1x();
  host.file(kContainerd, R"(version = 3
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia.options]
  BinaryName = "/usr/bin/nvidia-container-runtime"
)");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"engines.containerd-version3-on-1x"});
  EXPECT_TRUE(evidence_has(*find(r, "engines.containerd-version3-on-1x"),
                           "/etc/containerd/config.toml: version = 3"));
}

TEST_F(EnginesCheck, ContainerdSystemdMismatch) {
  host.file(kContainerd, containerd_config(false));
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"engines.containerd-systemd-mismatch"});
  EXPECT_EQ(find(r, "engines.containerd-systemd-mismatch")->fix,
            "set SystemdCgroup = true in the nvidia runtime's options");
}

TEST_F(EnginesCheck, CrioNotRegistered) {
  host.file("/etc/crio/crio.conf", "[crio.runtime]\ndefault_runtime = \"crun\"\n");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"engines.crio-not-registered"});
  EXPECT_EQ(find(r, "engines.crio-not-registered")->fix,
            "nvidia-ctk runtime configure --runtime=crio && systemctl restart crio");
  host.file("/usr/share/containers/oci/hooks.d/oci-nvidia-hook.json",
            R"({"hook": {"path": "/usr/bin/nvidia-container-runtime-hook"}})");
  EXPECT_EQ(problem_ids(run()), Ids{});
}

TEST_F(EnginesCheck, RuntimePathMissing) {
  host.remove("/usr/bin/nvidia-container-runtime");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"engines.runtime-path-missing"});
  EXPECT_TRUE(evidence_has(*find(r, "engines.runtime-path-missing"),
                           "runtime nvidia = \"nvidia-container-runtime\": not found"));
}

TEST_F(EnginesCheck, RuntimePathNotExecutable) {
  host.file("/usr/bin/nvidia-container-runtime", "", 0644);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"engines.runtime-path-missing"});
  EXPECT_TRUE(evidence_has(*find(r, "engines.runtime-path-missing"), "not an executable"));
}

TEST_F(EnginesCheck, DefaultRuntimeInDockerIsAWarning) {
  host.file(
      "/etc/docker/daemon.json",
      R"({"default-runtime": "nvidia", "runtimes": {"nvidia": {"path": "nvidia-container-runtime"}}})");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"engines.default-runtime"});
  const Finding* f = find(r, "engines.default-runtime");
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_TRUE(evidence_has(*f, "file creation failed"));
}

TEST_F(EnginesCheck, DefaultRuntimeInContainerdIsInfo) {
  host.file(kContainerd, containerd_config(
                             true, fmt::format("[{}]\n  default_runtime_name = \"nvidia\"", kCri)));
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  EXPECT_EQ(find(r, "engines.default-runtime")->severity, Severity::kInfo);
}

TEST_F(EnginesCheck, K8sHandler) {
  host.file(kContainerd, containerd_config());
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  const Finding* f = find(r, "engines.k8s-handler");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->title, "Kubernetes RuntimeClass handlers: nvidia (containerd)");
}

}  // namespace
}  // namespace nvct::diagnose
