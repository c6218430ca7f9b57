// The runtime's csv mode (runtime.md §6 auto rows, §7 "csv" chain, §7.4, §7.6; request.md §6,
// §8 NVIDIA_REQUIRE_JETPACK) on a Tegra-like root built in a temp dir.
#include "nvct/runtime/csv_mode.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../cdi/generate_fixture.hpp"
#include "nvct/runtime/cdi_mode_auto.hpp"
#include "nvct/runtime/mode.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::runtime {
namespace {

using json = nlohmann::ordered_json;
using Strings = std::vector<std::string>;

// A Tegra root: CSV dir with the three base files and an extra one, the files they name, the
// tegra marker file, a char node for the lookup and a gds node for the gated modifier.
class CsvHost : public ::testing::Test {
 protected:
  void SetUp() override {
    node("/dev/nvhost-ctrl", 10, 1);
    node("/dev/nvidia-fs0", 240, 0);
    root_.write("etc/nv_tegra_release", "# R36 (release), REVISION: 3.0\n");
    root_.write("usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1", "elf");
    link("libcuda.so.1.1", "usr/lib/aarch64-linux-gnu/tegra/libcuda.so");
    root_.write("usr/lib/aarch64-linux-gnu/tegra/libnvextra.so", "elf");
    root_.write("usr/share/nvidia/data/readme", "");
    csv_.write("devices.csv", "dev, /dev/nvhost-ctrl\n");
    csv_.write("drivers.csv",
               "lib, /usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1\n"
               "sym, /usr/lib/aarch64-linux-gnu/tegra/libcuda.so\n");
    csv_.write("l4t.csv", "dir, /usr/share/nvidia/data\n");
    csv_.write("extra.csv", "lib, /usr/lib/aarch64-linux-gnu/tegra/libnvextra.so\n");
    csv_.write("notes.txt", "lib, /usr/lib/aarch64-linux-gnu/tegra/libnvextra.so\n");
    cfg_.cli.root = root_.path();
    cfg_.runtime.csv.mount_spec_path = csv_.path();
    // The hook binary must exist: a missing one is an error (resolve_hook_binary).
    ctk_ = tools_.write("bin/nvidia-ctk", "#!/bin/sh\n");
    ::chmod(ctk_.c_str(), 0755);
    cfg_.ctk.path = ctk_;
  }
  void node(const std::string& path, std::int64_t major, std::int64_t minor) {
    root_.write(path.substr(1), "");
    lookup_.nodes[root_.path() + path] = cdi::HostDeviceInfo{"c", major, minor, 0666, 0};
  }
  void link(const std::string& target, const std::string& rel) const {
    ASSERT_EQ(::symlink(target.c_str(), (root_.path() + "/" + rel).c_str()), 0) << rel;
  }
  static json oci_spec(const Strings& env) {
    json s = {{"ociVersion", "1.0.2"}};
    s["process"]["env"] = env;
    s["root"]["path"] = "rootfs";
    return s;
  }
  request::Request request_of(const json& spec) const {
    auto r = request::from_spec(spec, cfg_);
    EXPECT_TRUE(r) << r.error().message();
    return r ? *r : request::Request{};
  }
  // Applies csv mode to `spec` with a libcuda that reports 12.4 and device 0 at 8.7.
  Result<bool> apply(json& spec) {
    CudaFactsQuery query = [this](const std::string& root) -> Result<driver::CudaDriverFacts> {
      ++queries_;
      EXPECT_EQ(root, root_.path());
      return driver::CudaDriverFacts{12040, "8.7", ""};
    };
    return apply_csv_mode(spec, request_of(spec), cfg_, query, lookup_, "");
  }
  static Strings mount_destinations(const json& spec) {
    Strings out;
    if (spec.contains("mounts"))
      for (const auto& m : spec["mounts"]) out.push_back(m["destination"].get<std::string>());
    return out;
  }
  static Strings device_paths(const json& spec) {
    Strings out;
    if (spec.contains("linux") && spec["linux"].contains("devices"))
      for (const auto& d : spec["linux"]["devices"]) out.push_back(d["path"].get<std::string>());
    return out;
  }
  // The arguments after `<nvidia-ctk> hook <name>` of each createContainer hook named `name`.
  static Strings hooks_named(const json& spec, const std::string& name) {
    Strings out;
    if (!spec.contains("hooks") || !spec["hooks"].contains("createContainer")) return out;
    for (const auto& h : spec["hooks"]["createContainer"]) {
      auto args = h["args"].get<Strings>();
      if (args.size() > 2 && args[1] == "hook" && args[2] == name) {
        std::string joined;
        for (std::size_t i = 3; i < args.size(); ++i) joined += (i > 3 ? " " : "") + args[i];
        out.push_back(joined);
      }
    }
    return out;
  }
  static bool has(const Strings& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  }

  nvct::testing::TempDir root_;
  nvct::testing::TempDir csv_;
  cdi::testing::MapDeviceLookup lookup_;
  config::Config cfg_;
  nvct::testing::TempDir tools_;
  std::string ctk_;
  int queries_ = 0;
};

const std::string kLib = "/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1";
const std::string kExtra = "/usr/lib/aarch64-linux-gnu/tegra/libnvextra.so";

TEST(CsvModeParse, CsvIsAModeOfItsOwnName) {
  EXPECT_EQ(*resolve_mode("csv"), Mode::kCsv);
  EXPECT_EQ(mode_name(Mode::kCsv), "csv");
}

TEST_F(CsvHost, AutoOnTegraFilesWithoutNvmlResolvesToCsv) {
  auto mode = resolve_auto_mode_for_spec(oci_spec({"NVIDIA_VISIBLE_DEVICES=all"}), cfg_);
  ASSERT_TRUE(mode) << mode.error().message();
  EXPECT_EQ(*mode, Mode::kCsv);
}

TEST_F(CsvHost, AutoOnTegraWithOnlyQualifiedCdiNamesIsCdi) {
  auto mode =
      resolve_auto_mode_for_spec(oci_spec({"NVIDIA_VISIBLE_DEVICES=nvidia.com/gpu=all"}), cfg_);
  ASSERT_TRUE(mode) << mode.error().message();
  EXPECT_EQ(*mode, Mode::kCdi);
}

TEST(CsvAutoTable, IntegratedGpuAndTegraFilesRowsAreCsv) {
  using Devices = std::optional<Strings>;
  PlatformFacts tegra;
  tegra.tegra_files = true;
  PlatformFacts igpu;
  igpu.nvml = true;
  igpu.integrated_gpu = true;
  PlatformFacts nvml_tegra;
  nvml_tegra.nvml = nvml_tegra.tegra_files = true;
  EXPECT_EQ(resolve_auto_mode(Devices{{"0"}}, tegra), AutoMode::kCsv);
  EXPECT_EQ(resolve_auto_mode(Devices{{"0"}}, igpu), AutoMode::kCsv);
  EXPECT_EQ(resolve_auto_mode(Devices{{"0"}}, nvml_tegra), AutoMode::kJitCdi);
  EXPECT_EQ(resolve_auto_mode(Devices{{"nvidia.com/gpu=0", "0"}}, tegra), AutoMode::kCsv);
}

TEST(CsvDeviceIds, OneModeCsvRequestPerVisibleDevice) {
  request::Request r;
  r.devices = Strings{"0", "all", "0", "none", ""};
  EXPECT_EQ(csv_device_ids(r), (Strings{"mode=csv,id=0", "mode=csv,id=all"}));
  r.devices.reset();
  EXPECT_TRUE(csv_device_ids(r).empty());
}

TEST_F(CsvHost, BaseFilesOnlyByDefault) {
  auto files = csv_mount_spec_files(request_of(oci_spec({"NVIDIA_VISIBLE_DEVICES=all"})), cfg_);
  ASSERT_TRUE(files) << files.error().message();
  EXPECT_EQ(*files, (Strings{csv_ / "devices.csv", csv_ / "drivers.csv", csv_ / "l4t.csv"}));
  json spec = oci_spec({"NVIDIA_VISIBLE_DEVICES=all"});
  ASSERT_TRUE(apply(spec));
  auto mounts = mount_destinations(spec);
  EXPECT_TRUE(has(mounts, kLib));
  EXPECT_TRUE(has(mounts, "/usr/share/nvidia/data"));
  EXPECT_FALSE(has(mounts, kExtra));
  EXPECT_EQ(device_paths(spec), Strings{"/dev/nvhost-ctrl"});
  auto links = hooks_named(spec, "create-symlinks");
  ASSERT_EQ(links.size(), 1u);
  EXPECT_NE(links[0].find("libcuda.so.1.1::/usr/lib/aarch64-linux-gnu/tegra/libcuda.so"),
            std::string::npos)
      << links[0];
}

TEST_F(CsvHost, JetpackCsvMountsAllReadsEveryCsvFile) {
  Strings env = {"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_REQUIRE_JETPACK=csv-mounts=all"};
  auto files = csv_mount_spec_files(request_of(oci_spec(env)), cfg_);
  ASSERT_TRUE(files) << files.error().message();
  EXPECT_EQ(*files, (Strings{csv_ / "devices.csv", csv_ / "drivers.csv", csv_ / "extra.csv",
                             csv_ / "l4t.csv"}));
  json spec = oci_spec(env);
  ASSERT_TRUE(apply(spec));
  EXPECT_TRUE(has(mount_destinations(spec), kExtra));
  EXPECT_TRUE(has(mount_destinations(spec), kLib));
}

TEST_F(CsvHost, CsvMountsAllOnAMissingDirectoryFailsNamingIt) {
  cfg_.runtime.csv.mount_spec_path = csv_ / "missing";
  auto files = csv_mount_spec_files(
      request_of(oci_spec({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_REQUIRE_JETPACK=csv-mounts=all"})),
      cfg_);
  ASSERT_FALSE(files);
  EXPECT_NE(files.error().message().find("list the CSV mount specs in " + csv_ / "missing"),
            std::string::npos)
      << files.error().message();
}

TEST_F(CsvHost, MissingBaseFilesAreSkipped) {
  cfg_.runtime.csv.mount_spec_path = csv_ / "missing";
  json spec = oci_spec({"NVIDIA_VISIBLE_DEVICES=all"});
  auto changed = apply(spec);
  ASSERT_TRUE(changed) << changed.error().message();
  EXPECT_FALSE(*changed);
}

TEST_F(CsvHost, OtherJetpackValuesKeepTheBaseFiles) {
  for (const char* v : {"csv-mounts=base", "CSV-MOUNTS=ALL", ""}) {
    json spec =
        oci_spec({"NVIDIA_VISIBLE_DEVICES=all", std::string("NVIDIA_REQUIRE_JETPACK=") + v});
    ASSERT_TRUE(apply(spec));
    EXPECT_FALSE(has(mount_destinations(spec), kExtra)) << v;
  }
}

TEST_F(CsvHost, JetpackVariableIsNotARequirement) {
  json spec = oci_spec({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_REQUIRE_JETPACK=csv-mounts=all",
                        "NVIDIA_REQUIRE_JETPACK_HOST_MOUNTS=base-only"});
  ASSERT_TRUE(apply(spec));
  EXPECT_EQ(queries_, 0);  // no requirement: libcuda is not even asked
}

TEST_F(CsvHost, NvidiaPrestartHooksAreRemovedOthersKept) {
  json spec = oci_spec({"NVIDIA_VISIBLE_DEVICES=all"});
  spec["hooks"]["prestart"] = json::array(
      {{{"path", "/usr/bin/nvidia-container-runtime-hook"}, {"args", {"x", "prestart"}}},
       {{"path", "/usr/local/bin/nvidia-container-toolkit"}},
       {{"path", "/usr/bin/some-hook"}}});
  ASSERT_TRUE(apply(spec));
  ASSERT_EQ(spec["hooks"]["prestart"].size(), 1u);
  EXPECT_EQ(spec["hooks"]["prestart"][0]["path"], "/usr/bin/some-hook");
}

TEST_F(CsvHost, OnlyNvidiaPrestartHooksLeaveNoPrestartList) {
  json spec = oci_spec({});  // no GPU requested: the hook remover still acts
  spec["hooks"]["prestart"] = json::array({{{"path", "/usr/bin/nvidia-container-runtime-hook"}}});
  auto changed = apply(spec);
  ASSERT_TRUE(changed) << changed.error().message();
  EXPECT_TRUE(*changed);
  EXPECT_FALSE(spec["hooks"].contains("prestart"));
  EXPECT_TRUE(mount_destinations(spec).empty());
}

TEST_F(CsvHost, UnsetVoidAndNoneModifyNothing) {
  for (const Strings& env :
       {Strings{}, Strings{"NVIDIA_VISIBLE_DEVICES=void"}, Strings{"NVIDIA_VISIBLE_DEVICES=none"},
        Strings{"NVIDIA_VISIBLE_DEVICES=", "NVIDIA_REQUIRE_CUDA=cuda>=99.0"}}) {
    json spec = oci_spec(env);
    const json before = spec;
    auto changed = apply(spec);
    ASSERT_TRUE(changed) << changed.error().message();
    EXPECT_FALSE(*changed);
    EXPECT_EQ(spec, before);
  }
  EXPECT_EQ(queries_, 0);
}

TEST_F(CsvHost, GdsEnabledAddsTheGatedNodesBeforeTheCsvEdits) {
  json spec = oci_spec({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_GDS=enabled"});
  ASSERT_TRUE(apply(spec));
  EXPECT_EQ(device_paths(spec), (Strings{"/dev/nvidia-fs0", "/dev/nvhost-ctrl"}));
}

TEST_F(CsvHost, GatedDevicesMissingOnTheHostFailCreation) {
  json spec = oci_spec({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_GDRCOPY=enabled"});
  auto r = apply(spec);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("no gdrcopy devices found"), std::string::npos)
      << r.error().message();
}

TEST_F(CsvHost, NoCudaCompatHookFromTheGatedModifier) {
  // Only the csv spec's own enable-cuda-compat (for the mounted libcuda.so.1.1) is present, even
  // with legacy's cuda-compat-mode = "hook": the gated modifier never adds one in csv mode.
  cfg_.runtime.legacy.cuda_compat_mode = "hook";
  json spec = oci_spec({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_GDS=enabled"});
  ASSERT_TRUE(apply(spec));
  EXPECT_EQ(hooks_named(spec, "enable-cuda-compat"), Strings{"--host-driver-version=1.1"});
  auto ldcache = hooks_named(spec, "update-ldcache");
  ASSERT_EQ(ldcache.size(), 1u);
  EXPECT_EQ(ldcache[0], "--folder /usr/lib/aarch64-linux-gnu/tegra");
}

TEST_F(CsvHost, WithoutALibcudaThereIsNoCompatHookAtAll) {
  csv_.write("drivers.csv", "");
  json spec = oci_spec({"NVIDIA_VISIBLE_DEVICES=all"});
  ASSERT_TRUE(apply(spec));
  EXPECT_TRUE(hooks_named(spec, "enable-cuda-compat").empty());
}

TEST_F(CsvHost, CompatContainerRootComesFromTheCsvConfig) {
  cfg_.runtime.csv.compat_container_root = "/usr/local/cuda/compat-tegra";
  json spec = oci_spec({"NVIDIA_VISIBLE_DEVICES=0"});
  ASSERT_TRUE(apply(spec));
  EXPECT_EQ(hooks_named(spec, "enable-cuda-compat"),
            Strings{"--host-driver-version=1.1 --cuda-compat-container-root=/usr/local/cuda/"
                    "compat-tegra"});
}

TEST_F(CsvHost, HooksRunTheConfiguredNvidiaCtk) {
  json spec = oci_spec({"NVIDIA_VISIBLE_DEVICES=all"});
  ASSERT_TRUE(apply(spec));
  for (const auto& h : spec["hooks"]["createContainer"])
    EXPECT_EQ(h["path"], ctk_);
}

TEST_F(CsvHost, RequirementSatisfiedAddsTheDevices) {
  json spec = oci_spec({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_REQUIRE_CUDA=cuda>=12.0"});
  auto r = apply(spec);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(queries_, 1);
  EXPECT_EQ(device_paths(spec), Strings{"/dev/nvhost-ctrl"});
}

TEST_F(CsvHost, RequirementUnsatisfiedFailsWithTheEvaluatorsMessage) {
  json spec = oci_spec({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_REQUIRE_CUDA=cuda>=99.0"});
  auto r = apply(spec);
  ASSERT_FALSE(r);
  // The reference's line, then nvct's reason (issue 17).
  EXPECT_EQ(r.error().message(),
            "requirement error: unsatisfied condition: cuda>=99.0, please update your driver to "
            "a newer version, or use an earlier cuda container\nnvct: this image needs CUDA "
            "99.0; this host has a driver with CUDA 12.4 and the image has no forward-compat "
            "package");
  EXPECT_TRUE(device_paths(spec).empty());
}

TEST_F(CsvHost, DisableRequireSkipsTheCheck) {
  for (const char* v : {"true", "1", "T"}) {
    json spec = oci_spec({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_REQUIRE_CUDA=cuda>=99.0",
                          std::string("NVIDIA_DISABLE_REQUIRE=") + v});
    auto r = apply(spec);
    ASSERT_TRUE(r) << v << ": " << r.error().message();
  }
  cfg_.disable_require = true;
  json spec = oci_spec({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_REQUIRE_CUDA=cuda>=99.0"});
  ASSERT_TRUE(apply(spec));
  EXPECT_EQ(queries_, 0);
}

TEST_F(CsvHost, ArchRequirementUsesDeviceZero) {
  json ok_spec = oci_spec({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_REQUIRE_ARCH=arch>=8.7"});
  ASSERT_TRUE(apply(ok_spec));
  json bad = oci_spec({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_REQUIRE_ARCH=arch=9.0"});
  auto r = apply(bad);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "requirement error: unsatisfied condition: arch=9.0\nnvct: \"arch=9.0\" is not met: "
            "arch=9.0 (the GPU has compute capability 8.7)");
}

}  // namespace
}  // namespace nvct::runtime
