#include "nvct/mount/app_profile.hpp"

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>

#include <filesystem>

#include "mount_sandbox.hpp"
#include "nvct/mount/bind.hpp"

namespace nvct::mount {
namespace {

using testing::Sandbox;

// mount.md §7.2 / §15: the reference's line for minors 0 and 1, byte for byte.
constexpr const char* kProfileMinors01 =
    "{ \"profiles\": [{\"name\": \"_container_\", \"settings\": [\"EGLVisibleDGPUDevices\", "
    "0x3]}], \"rules\": [{\"pattern\": [], \"profile\": \"_container_\"}]}\n";
constexpr const char* kDir = "rootfs/etc/nvidia/nvidia-application-profiles-rc.d";
constexpr const char* kFile =
    "rootfs/etc/nvidia/nvidia-application-profiles-rc.d/10-container.conf";

TEST(AppProfileMask, OrOfOneBitPerSelectedGpuMinor) {
  struct Row {
    std::vector<unsigned> minors;
    std::uint64_t mask;
  } rows[] = {
      {{}, 0}, {{0, 1}, 0x3}, {{3, 1}, 0xa}, {{1, 1}, 0x2}, {{63}, std::uint64_t{1} << 63},
  };
  for (const auto& r : rows) {
    auto m = profile_mask(r.minors);
    ASSERT_TRUE(m);
    EXPECT_EQ(*m, r.mask);
  }
  auto too_big = profile_mask({0, 64});
  ASSERT_FALSE(too_big);
  EXPECT_EQ(too_big.error().code(), ERANGE);
}

TEST(AppProfileText, RendersTheReferenceLineAndParsesItBack) {
  EXPECT_EQ(render_profile(0x3), kProfileMinors01);
  EXPECT_EQ(parse_profile_mask(kProfileMinors01), std::optional<std::uint64_t>(0x3));
  EXPECT_EQ(parse_profile_mask(render_profile(0xdeadbeef00ull)),
            std::optional<std::uint64_t>(0xdeadbeef00ull));
  EXPECT_EQ(parse_profile_mask("EGLVisibleDGPUDevices\", 0XFF"), std::nullopt);
  EXPECT_EQ(parse_profile_mask("EGLVisibleDGPUDevices\", 0xAb]"),
            std::optional<std::uint64_t>(0xab));
  EXPECT_EQ(parse_profile_mask("nothing here"), std::nullopt);
  EXPECT_EQ(parse_profile_mask("EGLVisibleDGPUDevices\", 0xzz"), std::nullopt);
}

// (openat2 fallback walker, classic mount API) forced or not.
class AppProfileTmpfs : public ::testing::TestWithParam<std::pair<bool, bool>> {
 protected:
  void SetUp() override {
    force_openat2_fallback(GetParam().first);
    force_classic_mount_api(GetParam().second);
    box.mkdir("rootfs/etc");
    box.mkdir("sentinel");
    rootfs.emplace(*Root::open(box.rootfs()));
  }
  void TearDown() override {
    force_openat2_fallback(false);
    force_classic_mount_api(false);
  }
  mode_t mode_of(const std::string& rel) const {
    struct stat st {};
    if (::stat(box.path(rel).c_str(), &st) != 0) return 0;
    return st.st_mode & 07777;
  }
  void expect_sentinel_untouched() const {
    EXPECT_TRUE(std::filesystem::is_empty(box.path("sentinel")));
    EXPECT_TRUE(testing::mounts_under(box.path("sentinel")).empty());
  }
  Sandbox box;
  std::optional<Root> rootfs;
};

TEST_P(AppProfileTmpfs, Tmpfs0555NosuidNodevNoexecWithTheSelectedGpusMask) {
  Journal j;
  auto tmpfs = mount_profile_tmpfs(*rootfs, j);
  ASSERT_TRUE(tmpfs) << tmpfs.error().message();
  EXPECT_EQ(tmpfs->path, "/etc/nvidia/nvidia-application-profiles-rc.d");
  auto mask = write_container_profile(*tmpfs, {1, 0});
  ASSERT_TRUE(mask) << mask.error().message();
  EXPECT_EQ(*mask, std::optional<std::uint64_t>(0x3));

  EXPECT_EQ(testing::read_text(box.path(kFile)), kProfileMinors01);
  EXPECT_EQ(mode_of(kFile), 0555u);
  EXPECT_EQ(mode_of(kDir), 0555u);
  struct statfs fs {};
  ASSERT_EQ(::statfs(box.path(kDir).c_str(), &fs), 0);
  EXPECT_EQ(fs.f_type, TMPFS_MAGIC);
  struct statvfs vfs {};
  ASSERT_EQ(::statvfs(box.path(kDir).c_str(), &vfs), 0);
  EXPECT_EQ(vfs.f_flag & (ST_NOSUID | ST_NODEV | ST_NOEXEC), ST_NOSUID | ST_NODEV | ST_NOEXEC);
  EXPECT_EQ(testing::mounts_under(box.rootfs()), std::vector<std::string>{box.path(kDir)});
  // Only the tmpfs holds the file: nothing was written to the rootfs's own directory.
  ASSERT_TRUE(j.rollback());
  EXPECT_TRUE(testing::mounts_under(box.rootfs()).empty());
}

TEST_P(AppProfileTmpfs, NoSelectedGpuMeansAnEmptyTmpfs) {
  Journal j;
  auto tmpfs = mount_profile_tmpfs(*rootfs, j);
  ASSERT_TRUE(tmpfs) << tmpfs.error().message();
  auto mask = write_container_profile(*tmpfs, {});
  ASSERT_TRUE(mask) << mask.error().message();
  EXPECT_FALSE(mask->has_value());
  EXPECT_TRUE(std::filesystem::is_empty(box.path(kDir)));
  EXPECT_EQ(testing::mounts_under(box.rootfs()).size(), 1u);
  ASSERT_TRUE(j.rollback());
}

TEST_P(AppProfileTmpfs, RollbackUnmountsAndRemovesOnlyWhatItCreated) {
  Journal j;
  auto tmpfs = mount_profile_tmpfs(*rootfs, j);
  ASSERT_TRUE(tmpfs) << tmpfs.error().message();
  ASSERT_TRUE(write_container_profile(*tmpfs, {0}));
  EXPECT_TRUE(box.exists(kFile));
  ASSERT_TRUE(j.rollback());
  EXPECT_TRUE(testing::mounts_under(box.rootfs()).empty());
  EXPECT_FALSE(box.exists("rootfs/etc/nvidia"));  // created by this run
  EXPECT_TRUE(box.exists("rootfs/etc"));          // the image's, kept
  EXPECT_EQ(j.size(), 0u);
}

TEST_P(AppProfileTmpfs, TheImagesProfileIsHiddenAndSurvivesRollback) {
  box.write(std::string(kFile), render_profile(0xff));
  Journal j;
  auto tmpfs = mount_profile_tmpfs(*rootfs, j);
  ASSERT_TRUE(tmpfs) << tmpfs.error().message();
  ASSERT_TRUE(write_container_profile(*tmpfs, {1}));
  // The image's mask is not accumulated: the container sees only its own GPUs.
  EXPECT_EQ(testing::read_text(box.path(kFile)), render_profile(0x2));
  ASSERT_TRUE(j.rollback());
  EXPECT_EQ(testing::read_text(box.path(kFile)), render_profile(0xff));
}

TEST_P(AppProfileTmpfs, MinorPastTheMaskFailsAndRollsBack) {
  Journal j;
  auto tmpfs = mount_profile_tmpfs(*rootfs, j);
  ASSERT_TRUE(tmpfs) << tmpfs.error().message();
  auto mask = write_container_profile(*tmpfs, {64});
  ASSERT_FALSE(mask);
  EXPECT_NE(mask.error().message().find("GPU minor 64"), std::string::npos)
      << mask.error().message();
  EXPECT_FALSE(box.exists(kFile));
  ASSERT_TRUE(j.rollback());
  EXPECT_TRUE(testing::mounts_under(box.rootfs()).empty());
}

// security.md: a symlinked /etc/nvidia pointing at a host directory. The absolute target is
// resolved inside the rootfs, where it does not exist: refused, and the host is untouched.
TEST_P(AppProfileTmpfs, AbsoluteSymlinkedEtcNvidiaToTheHostIsRefused) {
  box.symlink(box.path("sentinel"), "rootfs/etc/nvidia");
  Journal j;
  auto tmpfs = mount_profile_tmpfs(*rootfs, j);
  EXPECT_FALSE(tmpfs);
  expect_sentinel_untouched();
  ASSERT_TRUE(j.rollback());
  EXPECT_TRUE(testing::mounts_under(box.rootfs()).empty());
}

// Same with the host path present inside the rootfs too: the link is followed in-root, so the
// tmpfs and the file land in the rootfs's copy, never in the host directory.
TEST_P(AppProfileTmpfs, SymlinkedEtcNvidiaIsResolvedInsideTheRootfs) {
  box.symlink(box.path("sentinel"), "rootfs/etc/nvidia");
  box.mkdir("rootfs" + box.path("sentinel"));
  Journal j;
  auto tmpfs = mount_profile_tmpfs(*rootfs, j);
  ASSERT_TRUE(tmpfs) << tmpfs.error().message();
  EXPECT_EQ(tmpfs->path, box.path("sentinel") + "/nvidia-application-profiles-rc.d");
  ASSERT_TRUE(write_container_profile(*tmpfs, {0, 1}));
  // box.path(kFile) would follow the absolute link on the host: read the rootfs's copy.
  EXPECT_EQ(testing::read_text(box.path("rootfs" + box.path("sentinel") +
                                        "/nvidia-application-profiles-rc.d/10-container.conf")),
            kProfileMinors01);
  expect_sentinel_untouched();
  ASSERT_TRUE(j.rollback());
  EXPECT_TRUE(testing::mounts_under(box.rootfs()).empty());
  expect_sentinel_untouched();
}

TEST_P(AppProfileTmpfs, DotDotSymlinkCannotClimbOutOfTheRootfs) {
  box.symlink("../../../../../../../../../" + box.path("sentinel"), "rootfs/etc/nvidia");
  Journal j;
  auto tmpfs = mount_profile_tmpfs(*rootfs, j);
  EXPECT_FALSE(tmpfs);
  expect_sentinel_untouched();
  ASSERT_TRUE(j.rollback());
}

TEST_P(AppProfileTmpfs, SymlinkedProfileDirectoryToTheHostIsRefused) {
  box.symlink(box.path("sentinel"), "rootfs/etc/nvidia/nvidia-application-profiles-rc.d");
  Journal j;
  auto tmpfs = mount_profile_tmpfs(*rootfs, j);
  EXPECT_FALSE(tmpfs);
  expect_sentinel_untouched();
  ASSERT_TRUE(j.rollback());
  EXPECT_TRUE(testing::mounts_under(box.rootfs()).empty());
}

TEST_P(AppProfileTmpfs, AFileWhereTheDirectoryGoesIsRefused) {
  box.write("rootfs/etc/nvidia/nvidia-application-profiles-rc.d", "not a directory");
  Journal j;
  auto tmpfs = mount_profile_tmpfs(*rootfs, j);
  ASSERT_FALSE(tmpfs);
  EXPECT_NE(tmpfs.error().message().find("nvidia-application-profiles-rc.d"), std::string::npos)
      << tmpfs.error().message();
  ASSERT_TRUE(j.rollback());
  EXPECT_TRUE(testing::mounts_under(box.rootfs()).empty());
}

INSTANTIATE_TEST_SUITE_P(Modes, AppProfileTmpfs,
                         ::testing::Values(std::pair{false, false}, std::pair{true, true}),
                         [](const auto& p) {
                           return p.param.first ? "WalkerClassic" : "Openat2New";
                         });

}  // namespace
}  // namespace nvct::mount
