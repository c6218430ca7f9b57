#include "nvct/cdi_hooks/create_symlinks.hpp"

#include <filesystem>

#include "hook_fixture.hpp"

namespace nvct::cdi_hooks {
namespace {

using testing::HookTest;
using testing::is_symlink;
using testing::readlink_of;

struct SpecRow {
  const char* spec;
  bool ok;
  const char* link;
  const char* target;
};

TEST(CreateSymlinksSpec, ParsesExactlyOneSeparator) {
  const SpecRow rows[] = {
      {"libcuda.so.1::/lib/x86_64-linux-gnu/libcuda.so", true, "/lib/x86_64-linux-gnu/libcuda.so",
       "libcuda.so.1"},
      {"/abs/target::/link", true, "/link", "/abs/target"},
      {"no-separator", false, "", ""},
      {"a::b::c", false, "", ""},
      {"::/link", false, "", ""},
      {"target::", false, "", ""},
  };
  for (const auto& row : rows) {
    auto r = parse_link_spec(row.spec);
    EXPECT_EQ(static_cast<bool>(r), row.ok) << row.spec;
    if (r && row.ok) {
      EXPECT_EQ(r->container_path, row.link);
      EXPECT_EQ(r->target, row.target);
    }
  }
}

class CreateSymlinks : public HookTest {};
NVCT_HOOK_TEST_P(CreateSymlinks);

TEST_P(CreateSymlinks, CreatesTheLinkAndItsParents) {
  auto s = create_symlinks(root(), {"libcuda.so.1::/lib/x86_64-linux-gnu/libcuda.so"});
  ASSERT_TRUE(s) << s.error().message();
  std::string link = sb.path("rootfs/lib/x86_64-linux-gnu/libcuda.so");
  EXPECT_TRUE(is_symlink(link));
  EXPECT_EQ(readlink_of(link), "libcuda.so.1");
}

TEST_P(CreateSymlinks, ExistingLinkWithTheSameTargetIsLeftAlone) {
  sb.symlink("libcuda.so.1", "rootfs/lib/libcuda.so");
  struct stat before {};
  ::lstat(sb.path("rootfs/lib/libcuda.so").c_str(), &before);
  ASSERT_TRUE(create_symlinks(root(), {"libcuda.so.1::/lib/libcuda.so"}));
  struct stat after {};
  ::lstat(sb.path("rootfs/lib/libcuda.so").c_str(), &after);
  EXPECT_EQ(before.st_ino, after.st_ino);
}

TEST_P(CreateSymlinks, ExistingFileOrOtherLinkIsReplaced) {
  sb.symlink("libcuda.so.0", "rootfs/lib/libcuda.so");
  sb.write("rootfs/lib/libnvidia.so", "regular file");
  ASSERT_TRUE(create_symlinks(
      root(), {"libcuda.so.1::/lib/libcuda.so", "libnvidia.so.1::/lib/libnvidia.so"}));
  EXPECT_EQ(readlink_of(sb.path("rootfs/lib/libcuda.so")), "libcuda.so.1");
  EXPECT_EQ(readlink_of(sb.path("rootfs/lib/libnvidia.so")), "libnvidia.so.1");
}

TEST_P(CreateSymlinks, DuplicateSpecsAreCreatedOnce) {
  ASSERT_TRUE(create_symlinks(root(), {"a::/x/link", "a::/x/link"}));
  EXPECT_EQ(readlink_of(sb.path("rootfs/x/link")), "a");
}

TEST_P(CreateSymlinks, AParentLinkToSlashResolvesToTheContainerRoot) {
  sb.symlink("/", "rootfs/lib");
  ASSERT_TRUE(create_symlinks(root(), {"libfoo.so.1::/lib/libfoo.so"}));
  EXPECT_EQ(readlink_of(sb.path("rootfs/libfoo.so")), "libfoo.so.1");
}

TEST_P(CreateSymlinks, MalformedSpecChangesNothing) {
  auto s = create_symlinks(root(), {"a::/ok/link", "broken"});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("invalid symlink specification broken"), std::string::npos);
  EXPECT_FALSE(sb.exists("rootfs/ok"));
}

TEST_P(CreateSymlinks, ADirectoryInTheWayIsAnErrorAndEarlierLinksAreRolledBack) {
  sb.mkdir("rootfs/lib/libcuda.so");
  auto s = create_symlinks(root(), {"a::/new/first", "libcuda.so.1::/lib/libcuda.so"});
  ASSERT_FALSE(s);
  EXPECT_FALSE(sb.exists("rootfs/new/first"));
}

TEST_P(CreateSymlinks, LinksUnderProcAreRefused) {
  EXPECT_FALSE(create_symlinks(root(), {"x::/proc/evil"}));
}

TEST_P(CreateSymlinks, AnAbsoluteParentLinkToAHostDirNeverReachesTheHost) {
  // CVE-2024-0134: /usr/lib64 -> <host dir>. Dangling inside the rootfs: refused.
  sb.mkdir("host/lib");
  sb.symlink(sb.path("host/lib"), "rootfs/usr/lib64");
  EXPECT_FALSE(create_symlinks(root(), {"libcuda.so.1::/usr/lib64/libcuda.so"}));
  EXPECT_TRUE(std::filesystem::is_empty(sb.path("host/lib")));
  // Present inside the rootfs: the link is made there.
  sb.mkdir("rootfs" + sb.path("host/lib"));
  ASSERT_TRUE(create_symlinks(root(), {"libcuda.so.1::/usr/lib64/libcuda.so"}));
  EXPECT_EQ(readlink_of(sb.path("rootfs" + sb.path("host/lib") + "/libcuda.so")), "libcuda.so.1");
  EXPECT_TRUE(std::filesystem::is_empty(sb.path("host/lib")));
}

TEST_P(CreateSymlinks, ADotDotParentLinkIsClampedAtTheRoot) {
  sb.mkdir("host/lib");
  sb.symlink("../../../../../../../../../.." + sb.path("host/lib"), "rootfs/usr/libdots");
  sb.mkdir("rootfs" + sb.path("host/lib"));
  ASSERT_TRUE(create_symlinks(root(), {"x::/usr/libdots/sub/link"}));
  EXPECT_EQ(readlink_of(sb.path("rootfs" + sb.path("host/lib") + "/sub/link")), "x");
  EXPECT_TRUE(std::filesystem::is_empty(sb.path("host/lib")));
}

}  // namespace
}  // namespace nvct::cdi_hooks
