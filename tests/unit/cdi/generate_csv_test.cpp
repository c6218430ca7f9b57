// `cdi generate --mode csv` (cdi.md §6.1, runtime.md §7.6; content rules in generate_modes.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include "generate_fixture.hpp"
#include "nvct/cdi/generate_edits.hpp"
#include "nvct/cdi/generate_modes.hpp"
#include "nvct/cdi/validate.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::cdi {
namespace {

using Paths = std::vector<std::string>;
using Args = std::vector<std::string>;

// A Tegra-like driver root: nodes are plain files for glob, char devices for the lookup.
class Tegra {
 public:
  Tegra() {
    node("/dev/nvhost-ctrl", 10, 1);
    node("/dev/nvhost-gpu", 10, 2);
    node("/dev/nvmap", 10, 3);
    dir.write("usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1", "elf");
    link("libcuda.so.1.1", "usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1");
    link("tegra/libcuda.so.1", "usr/lib/aarch64-linux-gnu/libcuda.so");
    dir.write("usr/lib/aarch64-linux-gnu/tegra/libnvos.so", "elf");
    dir.write("usr/share/nvidia/data", "");
  }
  void node(const std::string& path, std::int64_t major, std::int64_t minor) {
    dir.write(path.substr(1), "");
    lookup.nodes[dir.path() + path] = HostDeviceInfo{"c", major, minor, 0666, 0};
  }
  void link(const std::string& target, const std::string& rel) const {
    EXPECT_EQ(::symlink(target.c_str(), (dir.path() + "/" + rel).c_str()), 0) << rel;
  }
  ModeOptions options() const {
    ModeOptions o;
    o.driver_root = dir.path();
    o.dev_root = dir.path();
    return o;
  }
  Result<Spec> build(const std::string& csv, const ModeOptions& o) {
    auto rows = parse_csv_mount_specs(csv, "test.csv");
    if (!rows) return tl::unexpected(rows.error());
    return build_csv_spec(*rows, o, lookup);
  }
  nvct::testing::TempDir dir;
  testing::MapDeviceLookup lookup;
};

const Hook* find_hook(const ContainerEdits& e, const std::string& name) {
  for (const auto& h : e.hooks)
    if (h.args.size() > 1 && h.args[1] == name) return &h;
  return nullptr;
}

Paths node_paths(const ContainerEdits& e) {
  Paths out;
  for (const auto& n : e.device_nodes) out.push_back(n.path);
  return out;
}

Paths mount_paths(const ContainerEdits& e) {
  Paths out;
  for (const auto& m : e.mounts) out.push_back(m.container_path);
  return out;
}

TEST(GenerateCsv, OnlyAnAllDeviceOfKindGpu) {
  Tegra t;
  auto spec = t.build("dev, /dev/nvmap\n", t.options());
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(spec->kind, "nvidia.com/gpu");
  ASSERT_EQ(spec->devices.size(), 1u);
  EXPECT_EQ(spec->devices[0].name, "all");
  EXPECT_TRUE(spec->container_edits.empty());
  EXPECT_TRUE(validate_spec(*spec));
}

TEST(GenerateCsv, DevRowsAreExistingCharNodesAndGlobsExpandInNameOrder) {
  Tegra t;
  t.dir.write("dev/nvhost-file-not-node", "");
  auto spec = t.build("dev, /dev/nvhost-*\ndev, /dev/nvmap\ndev, /dev/missing\n", t.options());
  ASSERT_TRUE(spec) << spec.error().message();
  const auto& e = spec->devices.at(0).container_edits;
  EXPECT_EQ(node_paths(e), (Paths{"/dev/nvhost-ctrl", "/dev/nvhost-gpu", "/dev/nvmap"}));
  EXPECT_EQ(e.device_nodes[0].host_path, t.dir.path() + "/dev/nvhost-ctrl");
  EXPECT_EQ(e.device_nodes[0].major, 10);
}

TEST(GenerateCsv, LibRowsFollowTheSymlinkChainMountTheFileAndLinkTheChain) {
  Tegra t;
  auto spec = t.build("lib, /usr/lib/aarch64-linux-gnu/libcuda.so\n", t.options());
  ASSERT_TRUE(spec) << spec.error().message();
  const auto& e = spec->devices.at(0).container_edits;
  ASSERT_EQ(e.mounts.size(), 1u);
  EXPECT_EQ(e.mounts[0].container_path, "/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1");
  EXPECT_EQ(e.mounts[0].host_path,
            t.dir.path() + "/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1");
  EXPECT_EQ(e.mounts[0].options, kDriverFileMountOptions);
  const Hook* links = find_hook(e, "create-symlinks");
  ASSERT_NE(links, nullptr);
  EXPECT_EQ(Args(links->args.begin() + 2, links->args.end()),
            (Args{"--link", "tegra/libcuda.so.1::/usr/lib/aarch64-linux-gnu/libcuda.so", "--link",
                  "libcuda.so.1.1::/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1"}));
  const Hook* ldcache = find_hook(e, "update-ldcache");
  ASSERT_NE(ldcache, nullptr);
  EXPECT_EQ(Args(ldcache->args.begin() + 2, ldcache->args.end()),
            (Args{"--folder", "/usr/lib/aarch64-linux-gnu/tegra"}));
}

TEST(GenerateCsv, HooksComeInTheReferenceOrderWithCudaCompatFromLibcuda) {
  Tegra t;
  auto o = t.options();
  o.csv_compat_container_root = "/usr/local/cuda/compat";
  auto spec = t.build("lib, /usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1\n", o);
  ASSERT_TRUE(spec) << spec.error().message();
  const auto& hooks = spec->devices.at(0).container_edits.hooks;
  ASSERT_EQ(hooks.size(), 3u);
  EXPECT_EQ(hooks[0].args[1], "create-symlinks");
  EXPECT_EQ(hooks[1].args[1], "enable-cuda-compat");
  EXPECT_EQ(hooks[2].args[1], "update-ldcache");
  EXPECT_EQ(
      Args(hooks[1].args.begin() + 2, hooks[1].args.end()),
      (Args{"--host-driver-version=1.1", "--cuda-compat-container-root=/usr/local/cuda/compat"}));
  EXPECT_EQ(hooks[1].hook_name, "createContainer");
}

TEST(GenerateCsv, NoLibcudaMeansNoCudaCompatHook) {
  Tegra t;
  auto o = t.options();
  o.csv_compat_container_root = "/compat";
  auto spec = t.build("lib, /usr/lib/aarch64-linux-gnu/tegra/libnvos.so\n", o);
  ASSERT_TRUE(spec) << spec.error().message();
  const auto& e = spec->devices.at(0).container_edits;
  EXPECT_EQ(find_hook(e, "enable-cuda-compat"), nullptr);
  EXPECT_EQ(find_hook(e, "create-symlinks"), nullptr);  // no links, no hook
  EXPECT_NE(find_hook(e, "update-ldcache"), nullptr);
}

TEST(GenerateCsv, SymRowsBecomeLinksToTheirTargetAsRead) {
  Tegra t;
  auto spec = t.build("sym, /usr/lib/aarch64-linux-gnu/libcuda.so\nsym, /usr/share/nvidia/data\n",
                      t.options());
  ASSERT_TRUE(spec) << spec.error().message();
  const auto& e = spec->devices.at(0).container_edits;
  EXPECT_TRUE(e.mounts.empty());
  const Hook* links = find_hook(e, "create-symlinks");
  ASSERT_NE(links, nullptr);
  EXPECT_EQ(Args(links->args.begin() + 2, links->args.end()),
            (Args{"--link", "tegra/libcuda.so.1::/usr/lib/aarch64-linux-gnu/libcuda.so"}));
  EXPECT_EQ(find_hook(e, "update-ldcache"), nullptr);
}

TEST(GenerateCsv, DirRowsAreReadOnlyBindMountsWhenPresent) {
  Tegra t;
  auto spec = t.build("dir, /usr/share/nvidia\ndir, /usr/share/absent\n", t.options());
  ASSERT_TRUE(spec) << spec.error().message();
  const auto& e = spec->devices.at(0).container_edits;
  EXPECT_EQ(mount_paths(e), (Paths{"/usr/share/nvidia"}));
  EXPECT_EQ(e.mounts[0].options, kDriverFileMountOptions);
}

TEST(GenerateCsv, IgnorePatternsDropRowsByPathOrFileName) {
  Tegra t;
  auto o = t.options();
  o.csv_ignore_patterns = {"libnvos*", "/dev/nvhost-g*"};
  auto spec = t.build(
      "dev, /dev/nvhost-*\nlib, /usr/lib/aarch64-linux-gnu/tegra/libnvos.so\n"
      "dir, /usr/share/nvidia\n",
      o);
  ASSERT_TRUE(spec) << spec.error().message();
  const auto& e = spec->devices.at(0).container_edits;
  EXPECT_EQ(node_paths(e), (Paths{"/dev/nvhost-ctrl"}));
  EXPECT_EQ(mount_paths(e), (Paths{"/usr/share/nvidia"}));
}

TEST(GenerateCsv, DisabledHooksAreLeftOutAndLdconfigPathIsPassed) {
  Tegra t;
  auto o = t.options();
  o.hooks.disabled = {"create-symlinks"};
  o.hooks.ldconfig_path = "/sbin/ldconfig.real";
  auto spec = t.build("lib, /usr/lib/aarch64-linux-gnu/libcuda.so\n", o);
  ASSERT_TRUE(spec) << spec.error().message();
  const auto& e = spec->devices.at(0).container_edits;
  EXPECT_EQ(find_hook(e, "create-symlinks"), nullptr);
  const Hook* ldcache = find_hook(e, "update-ldcache");
  ASSERT_NE(ldcache, nullptr);
  EXPECT_EQ(ldcache->args[2], "--ldconfig-path");
  EXPECT_EQ(ldcache->args[3], "/sbin/ldconfig.real");
}

TEST(GenerateCsv, NothingPresentMeansNoDevicesAndAnInvalidSpec) {
  Tegra t;
  auto spec = t.build("dev, /dev/none\nlib, /usr/lib/none.so\n", t.options());
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_TRUE(spec->devices.empty());
  EXPECT_FALSE(validate_spec(*spec));
}

TEST(GenerateCsv, SymlinkLoopIsAnError) {
  Tegra t;
  t.link("b.so", "usr/lib/a.so");
  t.link("a.so", "usr/lib/b.so");
  auto spec = t.build("lib, /usr/lib/a.so\n", t.options());
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().code(), ELOOP);
}

TEST(GenerateCsv, ModeReadsTheCsvFilesSkippingMissingOnes) {
  Tegra t;
  t.dir.write("csv/devices.csv", "dev, /dev/nvmap\n");
  t.dir.write("csv/drivers.csv", "dir, /usr/share/nvidia\n");
  auto o = t.options();
  o.csv_files = {t.dir.path() + "/csv/devices.csv", t.dir.path() + "/csv/absent.csv",
                 t.dir.path() + "/csv/drivers.csv"};
  auto spec = build_device_mode_spec(GenerateMode::kCsv, o, t.lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  const auto& e = spec->devices.at(0).container_edits;
  EXPECT_EQ(node_paths(e), (Paths{"/dev/nvmap"}));
  EXPECT_EQ(mount_paths(e), (Paths{"/usr/share/nvidia"}));
  EXPECT_EQ(spec->cdi_version, "0.5.0");  // hostPath under a non-/ dev root
}

TEST(GenerateCsv, ModeFailsOnABadCsvFile) {
  Tegra t;
  t.dir.write("bad.csv", "lib, /a.so\nbogus, /b\n");
  auto o = t.options();
  o.csv_files = {t.dir.path() + "/bad.csv"};
  auto spec = build_device_mode_spec(GenerateMode::kCsv, o, t.lookup);
  ASSERT_FALSE(spec);
  EXPECT_NE(spec.error().message().find("bad.csv:2"), std::string::npos) << spec.error().message();
}

}  // namespace
}  // namespace nvct::cdi
