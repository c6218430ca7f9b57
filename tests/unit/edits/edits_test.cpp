#include "nvct/edits/edits.hpp"

#include <gtest/gtest.h>
#include <sys/sysmacros.h>

namespace nvct::edits {
namespace {

TEST(EditsFlags, DriverFilesAreReadOnlyNosuidNodev) {
  for (auto kind : {FileKind::kLibrary, FileKind::kBinary, FileKind::kFirmware}) {
    MountFlags f = default_flags(kind);
    EXPECT_TRUE(f.read_only && f.nosuid && f.nodev) << to_string(kind);
    EXPECT_FALSE(f.noexec) << to_string(kind);
  }
}

TEST(EditsFlags, IpcIsWritableNosuidNodevNoexec) {
  MountFlags f = default_flags(FileKind::kIpc);
  EXPECT_FALSE(f.read_only);
  EXPECT_TRUE(f.nosuid && f.nodev && f.noexec);
}

TEST(EditsFlags, DeviceNodesAreReadOnlyNosuidNoexec) {
  MountFlags f = device_flags();
  EXPECT_TRUE(f.read_only && f.nosuid && f.noexec);
  EXPECT_FALSE(f.nodev);
}

TEST(EditsDeviceNode, ExpectedRdevIsMajorMinor) {
  DeviceNode n{.container_path = "/dev/nvidiactl",
               .host_path = "/dev/nvidiactl",
               .major = 195,
               .minor = 255};
  EXPECT_EQ(major(n.expected_rdev()), 195u);
  EXPECT_EQ(minor(n.expected_rdev()), 255u);
}

TEST(EditsCgroupRule, RendersWildcardsAsStars) {
  EXPECT_EQ((CgroupRule{'c', 195, 0, "rw", true}).to_string(), "c 195:0 rw");
  EXPECT_EQ((CgroupRule{'a', std::nullopt, std::nullopt, "rwm", true}).to_string(), "a *:* rwm");
  EXPECT_EQ((CgroupRule{'c', 508, std::nullopt, "rw", true}).to_string(), "c 508:* rw");
}

TEST(EditsModel, DefaultIsEmpty) {
  Edits e;
  EXPECT_TRUE(e.empty());
  e.ldcache_folders.push_back("/usr/lib/x86_64-linux-gnu");
  EXPECT_FALSE(e.empty());
}

TEST(EditsModel, MergeAppendsWithoutDuplicates) {
  Edits a;
  a.mounts.push_back({"/usr/lib/libcuda.so.1", "/usr/lib/libcuda.so.1", FileKind::kLibrary,
                      default_flags(FileKind::kLibrary)});
  a.procfs = ProcfsEdit{.gpu_bus_ids = {"00000000:17:00.0"}};
  Edits b = a;
  b.symlinks.push_back({"/usr/lib/libcuda.so", "libcuda.so.1"});
  b.procfs->gpu_bus_ids.push_back("00000000:65:00.0");
  a.merge(b);
  EXPECT_EQ(a.mounts.size(), 1u);
  EXPECT_EQ(a.symlinks.size(), 1u);
  ASSERT_TRUE(a.procfs);
  EXPECT_EQ(a.procfs->gpu_bus_ids,
            (std::vector<std::string>{"00000000:17:00.0", "00000000:65:00.0"}));
}

TEST(EditsModel, MergeIntoEmptyCopiesProcfs) {
  Edits a, b;
  b.procfs = ProcfsEdit{};
  a.merge(b);
  EXPECT_TRUE(a.procfs.has_value());
  EXPECT_EQ(a, b);
}

TEST(EditsModel, MergeUnitesApplicationProfileMinors) {
  Edits a, b;
  b.application_profile = ApplicationProfileEdit{.gpu_minors = {0, 1}};
  EXPECT_FALSE(b.empty());
  a.merge(b);
  EXPECT_EQ(a, b);
  Edits c;
  c.application_profile = ApplicationProfileEdit{.gpu_minors = {1, 3}};
  a.merge(c);
  EXPECT_EQ(a.application_profile->gpu_minors, (std::vector<unsigned>{0, 1, 3}));
}

}  // namespace
}  // namespace nvct::edits
