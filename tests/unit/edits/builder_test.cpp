#include "nvct/edits/builder.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace nvct::edits {
namespace {

using driver::Capability;

// A host like the mock driver's mig topology: GPU 0 with MIG gi1/ci0, GPU 1 without MIG.
driver::DriverInfo host() {
  driver::DriverInfo info;
  info.root = "/";
  info.nvrm_version = "550.54.14";
  info.cuda_version = "12.4";
  info.char_majors = {{"nvidia", 195},
                      {"nvidia-uvm", 238},
                      {"nvidia-caps", 235},
                      {"nvidia-caps-imex-channels", 234}};
  info.caps_style = driver::CapsStyle::kDev;
  info.devices = {{"/dev/nvidiactl", 195, 255},
                  {"/dev/nvidia-uvm", 238, 0},
                  {"/dev/nvidia-uvm-tools", 238, 1},
                  {"/dev/nvidia-modeset", 195, 254}};
  driver::Gpu g0;
  g0.index = 0;
  g0.minor = 0;
  g0.bus_id = "00000000:17:00.0";
  g0.node = {"/dev/nvidia0", 195, 0};
  g0.mig_capable = g0.mig_enabled = true;
  g0.mig_caps_path = "/proc/driver/nvidia/capabilities/gpu0";
  driver::MigDevice m;
  m.gi = 1;
  m.ci = 0;
  m.gi_caps_path = g0.mig_caps_path + "/mig/gi1";
  m.ci_caps_path = m.gi_caps_path + "/ci0";
  m.gi_cap_minor = 12;
  m.ci_cap_minor = 13;
  g0.migs.push_back(m);
  driver::Gpu g1;
  g1.index = 1;
  g1.minor = 1;
  g1.bus_id = "00000000:2a:00.0";
  g1.node = {"/dev/nvidia1", 195, 1};
  info.gpus = {g0, g1};
  const std::string lib = "/usr/lib/x86_64-linux-gnu/";
  info.libs = {
      {"libnvidia-ml.so", Capability::kUtility, lib + "libnvidia-ml.so.550.54.14"},
      {"libcuda.so", Capability::kCompute, lib + "libcuda.so.550.54.14"},
      {"libnvidia-ngx.so", Capability::kNgx, lib + "libnvidia-ngx.so.550.54.14"},
      {"libnvidia-opticalflow.so", Capability::kVideo, lib + "libnvidia-opticalflow.so.550.54.14"},
      {"libnvidia-glcore.so", Capability::kGraphics, lib + "libnvidia-glcore.so.550.54.14"},
      {"libGLX_nvidia.so", Capability::kGraphics, lib + "libGLX_nvidia.so.550.54.14"}};
  info.libs32 = {
      {"libcuda.so", Capability::kCompute, "/usr/lib/i386-linux-gnu/libcuda.so.550.54.14"}};
  info.bins = {{"nvidia-smi", Capability::kUtility, "/usr/bin/nvidia-smi", "/usr/bin/nvidia-smi"},
               {"nvidia-cuda-mps-control", Capability::kCompute, "/usr/bin/nvidia-cuda-mps-control",
                "/usr/bin/nvidia-cuda-mps-control"}};
  info.ipcs = {"/run/nvidia-persistenced/socket", "/run/nvidia-fabricmanager/socket",
               "/tmp/nvidia-mps"};
  info.firmwares = {{"/lib/firmware/nvidia/550.54.14/gsp_ga10x.bin",
                     "/lib/firmware/nvidia/550.54.14/gsp_ga10x.bin"}};
  return info;
}

BuildOptions opts(Capabilities caps) {
  BuildOptions o;
  o.capabilities = caps;
  o.layout = {"/usr/bin", "/usr/lib/x86_64-linux-gnu", "/usr/lib/i386-linux-gnu"};
  return o;
}

Capabilities caps_of(std::string_view words) {
  Capabilities c;
  auto has = [&](std::string_view w) { return words.find(w) != std::string_view::npos; };
  c.compute = has("compute");
  c.utility = has("utility");
  c.video = has("video");
  c.graphics = has("graphics");
  c.display = has("display");
  c.ngx = has("ngx");
  c.compat32 = has("compat32");
  return c;
}

driver::DeviceSelection select(std::vector<std::size_t> gpus,
                               std::vector<std::pair<std::size_t, std::size_t>> migs = {}) {
  driver::DeviceSelection s;
  s.gpus = std::move(gpus);
  s.migs = std::move(migs);
  return s;
}

std::vector<std::string> targets(const Edits& e, FileKind kind) {
  std::vector<std::string> out;
  for (const auto& m : e.mounts)
    if (m.kind == kind) out.push_back(m.container_path);
  return out;
}

std::vector<std::string> nodes(const Edits& e) {
  std::vector<std::string> out;
  for (const auto& n : e.device_nodes) out.push_back(n.container_path);
  return out;
}

std::vector<std::string> rules(const Edits& e) {
  std::vector<std::string> out;
  for (const auto& r : e.cgroup_rules) out.push_back(r.to_string());
  return out;
}

bool has(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(EditsBuilder, ProcfsEditCarriesTheSelectedGpusBusIds) {
  Edits e = build_edits(host(), select({1}), opts(caps_of("utility")));
  ASSERT_TRUE(e.procfs);
  EXPECT_EQ(e.procfs->host_proc_dir, "/proc/driver/nvidia");
  EXPECT_EQ(e.procfs->gpu_bus_ids, std::vector<std::string>{"00000000:2a:00.0"});
}

TEST(EditsBuilder, ProcfsEditIsMadeEvenWithNoDeviceSelected) {
  Edits e = build_edits(host(), select({}), opts(caps_of("utility")));
  ASSERT_TRUE(e.procfs);
  EXPECT_TRUE(e.procfs->gpu_bus_ids.empty());
}

TEST(EditsBuilder, UtilityBinariesGoToUsrBinAndComputeBinsNeedCompute) {
  auto bins = targets(build_edits(host(), select({}), opts(caps_of("utility"))), FileKind::kBinary);
  EXPECT_EQ(bins, std::vector<std::string>{"/usr/bin/nvidia-smi"});
  bins = targets(build_edits(host(), select({}), opts(caps_of("compute"))), FileKind::kBinary);
  EXPECT_EQ(bins, std::vector<std::string>{"/usr/bin/nvidia-cuda-mps-control"});
}

TEST(EditsBuilder, VideoGivesComputeLibsButNotComputeBins) {
  Edits e = build_edits(host(), select({}), opts(caps_of("video")));
  auto libs = targets(e, FileKind::kLibrary);
  EXPECT_TRUE(has(libs, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14"));
  EXPECT_TRUE(has(libs, "/usr/lib/x86_64-linux-gnu/libnvidia-opticalflow.so.550.54.14"));
  EXPECT_TRUE(targets(e, FileKind::kBinary).empty());
}

TEST(EditsBuilder, LibrariesAreFilteredByCapability) {
  auto libs =
      targets(build_edits(host(), select({}), opts(caps_of("utility"))), FileKind::kLibrary);
  EXPECT_EQ(libs, std::vector<std::string>{"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.14"});
}

TEST(EditsBuilder, DisplayImpliesGraphicsLibraries) {
  auto libs =
      targets(build_edits(host(), select({}), opts(caps_of("display"))), FileKind::kLibrary);
  EXPECT_TRUE(has(libs, "/usr/lib/x86_64-linux-gnu/libnvidia-glcore.so.550.54.14"));
  EXPECT_TRUE(has(libs, "/usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.550.54.14"));
}

TEST(EditsBuilder, NgxLibrariesOnlyWithNgx) {
  auto without = targets(build_edits(host(), select({}), opts(caps_of("compute,utility,video"))),
                         FileKind::kLibrary);
  EXPECT_FALSE(has(without, "/usr/lib/x86_64-linux-gnu/libnvidia-ngx.so.550.54.14"));
  auto with = targets(build_edits(host(), select({}), opts(caps_of("ngx"))), FileKind::kLibrary);
  EXPECT_TRUE(has(with, "/usr/lib/x86_64-linux-gnu/libnvidia-ngx.so.550.54.14"));
}

TEST(EditsBuilder, Compat32LibrariesGoToLibs32OnlyWithCompat32) {
  auto libs =
      targets(build_edits(host(), select({}), opts(caps_of("compute"))), FileKind::kLibrary);
  EXPECT_FALSE(has(libs, "/usr/lib/i386-linux-gnu/libcuda.so.550.54.14"));
  libs = targets(build_edits(host(), select({}), opts(caps_of("compute,compat32"))),
                 FileKind::kLibrary);
  EXPECT_TRUE(has(libs, "/usr/lib/i386-linux-gnu/libcuda.so.550.54.14"));
}

TEST(EditsBuilder, LibrariesUseTheLayoutsLibsDir) {
  BuildOptions o = opts(caps_of("utility"));
  o.layout.libs_dir = "/usr/lib64";
  auto libs = targets(build_edits(host(), select({}), o), FileKind::kLibrary);
  EXPECT_EQ(libs, std::vector<std::string>{"/usr/lib64/libnvidia-ml.so.550.54.14"});
}

TEST(EditsBuilder, SymlinksOfMountSection6) {
  Edits e = build_edits(host(), select({}), opts(caps_of("compute,video,graphics,compat32")));
  const std::string d = "/usr/lib/x86_64-linux-gnu/";
  EXPECT_TRUE(std::find(e.symlinks.begin(), e.symlinks.end(),
                        Symlink{d + "libcuda.so", "libcuda.so.1"}) != e.symlinks.end());
  EXPECT_TRUE(std::find(e.symlinks.begin(), e.symlinks.end(),
                        Symlink{d + "libGLX_indirect.so.0", "libGLX_nvidia.so.550.54.14"}) !=
              e.symlinks.end());
  EXPECT_TRUE(std::find(e.symlinks.begin(), e.symlinks.end(),
                        Symlink{d + "libnvidia-opticalflow.so", "libnvidia-opticalflow.so.1"}) !=
              e.symlinks.end());
  // Same directory as the mounted file: the 32-bit libcuda gets its own link.
  EXPECT_TRUE(std::find(e.symlinks.begin(), e.symlinks.end(),
                        Symlink{"/usr/lib/i386-linux-gnu/libcuda.so", "libcuda.so.1"}) !=
              e.symlinks.end());
  EXPECT_EQ(e.symlinks.size(), 4u);
}

TEST(EditsBuilder, NoSymlinkForOtherLibraries) {
  EXPECT_FALSE(library_symlink("/usr/lib64/libnvidia-ml.so.550.54.14"));
}

TEST(EditsBuilder, FirmwareRegardlessOfCapabilityUnlessNoGspFirmware) {
  Edits e = build_edits(host(), select({}), opts(caps_of("")));
  EXPECT_EQ(targets(e, FileKind::kFirmware),
            std::vector<std::string>{"/lib/firmware/nvidia/550.54.14/gsp_ga10x.bin"});
  BuildOptions o = opts(caps_of("compute"));
  o.no_gsp_firmware = true;
  EXPECT_TRUE(targets(build_edits(host(), select({}), o), FileKind::kFirmware).empty());
}

TEST(EditsBuilder, PersistencedAndFabricmanagerSocketsNeedUtility) {
  auto ipcs = targets(build_edits(host(), select({}), opts(caps_of("utility"))), FileKind::kIpc);
  EXPECT_EQ(ipcs, (std::vector<std::string>{"/run/nvidia-persistenced/socket",
                                            "/run/nvidia-fabricmanager/socket"}));
  BuildOptions o = opts(caps_of("utility"));
  o.no_persistenced = o.no_fabricmanager = true;
  EXPECT_TRUE(targets(build_edits(host(), select({}), o), FileKind::kIpc).empty());
}

TEST(EditsBuilder, MpsDirectoryNeedsComputeLibs) {
  auto ipcs = targets(build_edits(host(), select({}), opts(caps_of("video"))), FileKind::kIpc);
  EXPECT_EQ(ipcs, std::vector<std::string>{"/tmp/nvidia-mps"});
}

TEST(EditsBuilder, NvidiactlAlwaysUvmOnlyWithComputeModesetOnlyWithDisplay) {
  EXPECT_EQ(nodes(build_edits(host(), select({}), opts(caps_of("utility")))),
            std::vector<std::string>{"/dev/nvidiactl"});
  EXPECT_EQ(
      nodes(build_edits(host(), select({}), opts(caps_of("compute")))),
      (std::vector<std::string>{"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"}));
  EXPECT_EQ(nodes(build_edits(host(), select({}), opts(caps_of("display")))),
            (std::vector<std::string>{"/dev/nvidiactl", "/dev/nvidia-modeset"}));
}

TEST(EditsBuilder, SelectedGpusGetTheirNodeAfterTheControlNodes) {
  auto n = nodes(build_edits(host(), select({1}), opts(caps_of("utility"))));
  EXPECT_EQ(n, (std::vector<std::string>{"/dev/nvidiactl", "/dev/nvidia1"}));
}

TEST(EditsBuilder, EveryDeviceNodeHasACgroupRule) {
  Edits e = build_edits(host(), select({0, 1}), opts(caps_of("compute")));
  EXPECT_EQ(rules(e), (std::vector<std::string>{"c 195:255 rw", "c 238:0 rw", "c 238:1 rw",
                                                "c 195:0 rw", "c 195:1 rw"}));
  for (const auto& n : e.device_nodes) EXPECT_EQ(n.host_path, n.container_path);
}

TEST(EditsBuilder, NoDevbindKeepsCgroupRulesButBindsNoNode) {
  BuildOptions o = opts(caps_of("compute"));
  o.no_devbind = true;
  Edits e = build_edits(host(), select({0}), o);
  EXPECT_TRUE(e.device_nodes.empty());
  EXPECT_EQ(rules(e).size(), 4u);
}

TEST(EditsBuilder, FlagsFollowMountSection5) {
  Edits e = build_edits(host(), select({}), opts(caps_of("compute,utility")));
  for (const auto& m : e.mounts) {
    if (m.kind == FileKind::kIpc) {
      EXPECT_EQ(m.flags,
                (MountFlags{.read_only = false, .nosuid = true, .nodev = true, .noexec = true}))
          << m.container_path;
    } else {
      EXPECT_EQ(m.flags,
                (MountFlags{.read_only = true, .nosuid = true, .nodev = true, .noexec = false}))
          << m.container_path;
    }
  }
}

TEST(EditsBuilder, MountOrderIsBinariesLibrariesLibs32FirmwareIpc) {
  Edits e = build_edits(host(), select({}), opts(caps_of("compute,utility,compat32")));
  std::vector<FileKind> kinds;
  for (const auto& m : e.mounts) kinds.push_back(m.kind);
  EXPECT_TRUE(std::is_sorted(kinds.begin(), kinds.end(), [](FileKind a, FileKind b) {
    auto rank = [](FileKind k) {
      return k == FileKind::kBinary     ? 0
             : k == FileKind::kLibrary  ? 1
             : k == FileKind::kFirmware ? 2
                                        : 3;
    };
    return rank(a) < rank(b);
  }));
  // 32-bit libraries come after the 64-bit ones.
  auto libs = targets(e, FileKind::kLibrary);
  EXPECT_EQ(libs.back(), "/usr/lib/i386-linux-gnu/libcuda.so.550.54.14");
}

TEST(EditsBuilder, SelectedMigDeviceGetsItsAccessCapNodesAndRules) {
  Edits e = build_edits(host(), select({0}, {{0, 0}}), opts(caps_of("utility")));
  auto n = nodes(e);
  EXPECT_TRUE(has(n, "/dev/nvidia-caps/nvidia-cap12"));
  EXPECT_TRUE(has(n, "/dev/nvidia-caps/nvidia-cap13"));
  EXPECT_TRUE(has(rules(e), "c 235:12 rw"));
  EXPECT_TRUE(has(rules(e), "c 235:13 rw"));
}

TEST(EditsBuilder, MigAccessFilesAreSpecialReadOnlyProcMounts) {
  auto m = build_special_mounts(host(), select({0}, {{0, 0}}), opts(caps_of("utility")));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].container_path, "/proc/driver/nvidia/capabilities/gpu0/mig/gi1/access");
  EXPECT_EQ(m[1].container_path, "/proc/driver/nvidia/capabilities/gpu0/mig/gi1/ci0/access");
  EXPECT_EQ(m[0].flags,
            (MountFlags{.read_only = true, .nosuid = true, .nodev = true, .noexec = true}));
}

TEST(EditsBuilder, MigConfigAllMountsCapabilitiesAndCapsDirInsteadOfAccessFiles) {
  BuildOptions o = opts(caps_of("utility"));
  o.mig_config = true;
  o.mig_config_minor = 1;
  o.mig_minors = {{driver::MigMinor::Kind::kGpuInstance, 0, 1, 0, 12, ""},
                  {driver::MigMinor::Kind::kComputeInstance, 0, 1, 0, 13, ""},
                  {driver::MigMinor::Kind::kGpuInstance, 1, 1, 0, 147, ""},
                  {driver::MigMinor::Kind::kConfig, 0, 0, 0, 1, ""}};
  auto sel = select({0, 1});
  auto m = build_special_mounts(host(), sel, o);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].container_path, "/proc/driver/nvidia/capabilities");
  EXPECT_EQ(m[0].kind, FileKind::kDirectory);
  EXPECT_EQ(m[1].container_path, "/dev/nvidia-caps");
  EXPECT_EQ(m[1].flags,
            (MountFlags{.read_only = false, .nosuid = true, .nodev = false, .noexec = true}));
  Edits e = build_edits(host(), sel, o);
  auto r = rules(e);
  EXPECT_TRUE(has(r, "c 235:1 rw"));
  EXPECT_TRUE(has(r, "c 235:12 rw"));
  EXPECT_TRUE(has(r, "c 235:13 rw"));
  // GPU 1 is not MIG-capable: its mig-minors lines give no rule.
  EXPECT_FALSE(has(r, "c 235:147 rw"));
  EXPECT_FALSE(has(nodes(e), "/dev/nvidia-caps/nvidia-cap12"));
}

TEST(EditsBuilder, MigConfigWithNoMigCapableGpuSelectedDoesNothing) {
  BuildOptions o = opts(caps_of("utility"));
  o.mig_monitor = true;
  o.mig_monitor_minor = 2;
  EXPECT_TRUE(build_special_mounts(host(), select({1}), o).empty());
  EXPECT_FALSE(has(rules(build_edits(host(), select({1}), o)), "c 235:2 rw"));
}

TEST(EditsBuilder, ImexChannelsGetNodesAndRules) {
  BuildOptions o = opts(caps_of("utility"));
  o.imex_channels = {0, 1};
  Edits e = build_edits(host(), select({}), o);
  EXPECT_TRUE(has(nodes(e), "/dev/nvidia-caps-imex-channels/channel0"));
  EXPECT_TRUE(has(nodes(e), "/dev/nvidia-caps-imex-channels/channel1"));
  EXPECT_TRUE(has(rules(e), "c 234:1 rw"));
}

TEST(EditsBuilder, LdcacheFoldersAreLibsThenLibs32) {
  Edits e = build_edits(host(), select({}), opts(caps_of("compute")));
  EXPECT_EQ(e.ldcache_folders,
            (std::vector<std::string>{"/usr/lib/x86_64-linux-gnu", "/usr/lib/i386-linux-gnu"}));
}

TEST(EditsBuilder, GraphicsOrDisplayGetsTheApplicationProfileOfTheSelectedGpuMinors) {
  driver::DriverInfo info = host();
  info.gpus[1].minor = 5;  // index != minor: the mask is of minors
  struct Row {
    const char* caps;
    std::vector<std::size_t> gpus;
    std::vector<std::pair<std::size_t, std::size_t>> migs;
    std::optional<std::vector<unsigned>> minors;
  } rows[] = {
      {"graphics", {1}, {}, std::vector<unsigned>{5}},
      {"display", {0, 1}, {}, std::vector<unsigned>{0, 5}},
      {"graphics display compute", {0, 1}, {}, std::vector<unsigned>{0, 5}},
      // No GPU selected: the tmpfs still comes with the driver mount, the file does not.
      {"graphics", {}, {}, std::vector<unsigned>{}},
      // A selected MIG device counts as its parent GPU (in the selection's gpus).
      {"graphics", {0}, {{0, 0}}, std::vector<unsigned>{0}},
      {"compute utility video ngx compat32", {0, 1}, {}, std::nullopt},
  };
  for (const auto& r : rows) {
    Edits e = build_edits(info, select(r.gpus, r.migs), opts(caps_of(r.caps)));
    ASSERT_EQ(e.application_profile.has_value(), r.minors.has_value()) << r.caps;
    if (r.minors) {
      EXPECT_EQ(e.application_profile->gpu_minors, *r.minors) << r.caps;
    }
  }
}

}  // namespace
}  // namespace nvct::edits
