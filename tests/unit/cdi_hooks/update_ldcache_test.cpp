#include "nvct/cdi_hooks/update_ldcache.hpp"

#include <sys/utsname.h>

#include <filesystem>

#include "hook_fixture.hpp"

namespace nvct::cdi_hooks {
namespace {

using testing::HookTest;
using testing::mode_of;
namespace fs = std::filesystem;

std::vector<std::string> drop_ins(const std::string& dir) {
  std::vector<std::string> out;
  if (!fs::exists(dir)) return out;
  for (auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

class UpdateLdcache : public HookTest {};
NVCT_HOOK_TEST_P(UpdateLdcache);

TEST_P(UpdateLdcache, UserFoldersGoToA00DropInAndSystemFoldersToAzzDropIn) {
  sb.make_glibc_rootfs();
  sb.copy("/lib/x86_64-linux-gnu/libc.so.6", "rootfs/usr/lib/nvidia/libc.so.6");
  UpdateLdcacheOptions o;
  o.folders = {"/usr/lib/nvidia", "/usr/lib/x86_64-linux-gnu", "/usr/lib/nvidia/"};
  auto r = update_ldcache(root(), o);
  ASSERT_TRUE(r) << r.error().message();
  auto files = drop_ins(sb.path("rootfs/etc/ld.so.conf.d"));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].rfind("00-nvcr-", 0), 0u);
  EXPECT_EQ(files[1].rfind("zz-nvcr-", 0), 0u);
  EXPECT_EQ(mount::testing::read_text(sb.path("rootfs/etc/ld.so.conf.d/" + files[0])),
            "/usr/lib/nvidia\n");
  EXPECT_EQ(mount::testing::read_text(sb.path("rootfs/etc/ld.so.conf.d/" + files[1])),
            "/usr/lib/x86_64-linux-gnu\n");
  EXPECT_EQ(mode_of(sb.path("rootfs/etc/ld.so.conf.d/" + files[0])), 0644u);
  EXPECT_TRUE(r->ran_ldconfig);
}

TEST_P(UpdateLdcache, CreatesLdSoConfAndACacheListingTheFolder) {
  sb.make_glibc_rootfs();
  sb.copy("/lib/x86_64-linux-gnu/libc.so.6", "rootfs/opt/nv/libc.so.6");
  UpdateLdcacheOptions o;
  o.folders = {"/opt/nv"};
  auto r = update_ldcache(root(), o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(mount::testing::read_text(sb.path("rootfs/etc/ld.so.conf")),
            "include /etc/ld.so.conf.d/*.conf\n");
  std::string cache = mount::testing::read_text(sb.path("rootfs/etc/ld.so.cache"));
  EXPECT_NE(cache.find("/opt/nv/libc.so.6"), std::string::npos);
}

TEST_P(UpdateLdcache, ExistingLdSoConfIsKept) {
  sb.make_glibc_rootfs();
  sb.write("rootfs/etc/ld.so.conf", "# image's own\ninclude /etc/ld.so.conf.d/*.conf\n");
  UpdateLdcacheOptions o;
  o.folders = {"/opt/nv"};
  ASSERT_TRUE(update_ldcache(root(), o));
  EXPECT_EQ(mount::testing::read_text(sb.path("rootfs/etc/ld.so.conf")),
            "# image's own\ninclude /etc/ld.so.conf.d/*.conf\n");
}

TEST_P(UpdateLdcache, EmptyLdconfigPathIsAnErrorAndChangesNothing) {
  sb.make_glibc_rootfs();
  UpdateLdcacheOptions o;
  o.folders = {"/opt/nv"};
  o.ldconfig_path = "";
  auto r = update_ldcache(root(), o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("ldconfig path must be specified"), std::string::npos);
  EXPECT_FALSE(sb.exists("rootfs/etc/ld.so.conf.d"));
}

TEST_P(UpdateLdcache, RelativeFolderIsRefused) {
  sb.make_glibc_rootfs();
  UpdateLdcacheOptions o;
  o.folders = {"opt/nv"};
  EXPECT_FALSE(update_ldcache(root(), o));
  EXPECT_FALSE(sb.exists("rootfs/etc/ld.so.conf.d"));
}

TEST_P(UpdateLdcache, MuslImageGetsItsLoaderPathFileInsteadOfLdconfig) {
  struct utsname u {};
  ASSERT_EQ(::uname(&u), 0);
  std::string arch = u.machine;
  sb.write("rootfs/lib/ld-musl-" + arch + ".so.1", "not really musl");
  sb.write("rootfs/etc/ld-musl-" + arch + ".path", "/lib\n/usr/lib\n");
  UpdateLdcacheOptions o;
  o.folders = {"/usr/lib/nvidia", "/usr/lib"};
  auto r = update_ldcache(root(), o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FALSE(r->ran_ldconfig);
  EXPECT_EQ(mount::testing::read_text(sb.path("rootfs/etc/ld-musl-" + arch + ".path")),
            "/lib\n/usr/lib\n/usr/lib/nvidia\n");
}

TEST_P(UpdateLdcache, EmptyImageIsLeftAlone) {
  UpdateLdcacheOptions o;
  o.folders = {"/usr/lib/nvidia"};
  auto r = update_ldcache(root(), o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(r->written.empty());
  EXPECT_FALSE(sb.exists("rootfs/etc"));
}

TEST(UpdateLdcacheFolders, SystemFoldersAreTheLoaderDefaults) {
  EXPECT_TRUE(is_system_folder("/lib64"));
  EXPECT_TRUE(is_system_folder("/usr/lib/x86_64-linux-gnu"));
  EXPECT_TRUE(is_system_folder("/lib/x86_64-linux-gnu"));
  EXPECT_FALSE(is_system_folder("/usr/lib/x86_64-linux-gnu/vdpau"));
  EXPECT_FALSE(is_system_folder("/usr/local/cuda/compat"));
}

TEST(UpdateLdcacheLdconfig, AtPrefixIsStrippedAndDotRealPreferred) {
  nvct::testing::TempDir t;
  std::string plain = t.write("sbin/ldconfig", "#!/bin/sh\n");
  auto r = resolve_host_ldconfig("@" + plain);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, plain);
  t.write("sbin/ldconfig.real", "ELF");
  r = resolve_host_ldconfig(plain);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, plain + ".real");
  EXPECT_FALSE(resolve_host_ldconfig(""));
  EXPECT_FALSE(resolve_host_ldconfig("@"));
  EXPECT_FALSE(resolve_host_ldconfig("sbin/ldconfig"));
}

TEST_P(UpdateLdcache, ASymlinkedDropInDirNeverReachesTheHost) {
  // CVE-2025-23267: /etc/ld.so.conf.d -> <host dir>.
  sb.make_glibc_rootfs();
  sb.mkdir("host/ld");
  sb.symlink(sb.path("host/ld"), "rootfs/etc/ld.so.conf.d");
  UpdateLdcacheOptions o;
  o.folders = {"/opt/nv"};
  EXPECT_FALSE(update_ldcache(root(), o));  // dangling inside the rootfs: fail closed
  EXPECT_TRUE(fs::is_empty(sb.path("host/ld")));
  sb.mkdir("rootfs" + sb.path("host/ld"));
  auto r = update_ldcache(root(), o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(drop_ins(sb.path("rootfs" + sb.path("host/ld"))).size(), 1u);
  EXPECT_TRUE(fs::is_empty(sb.path("host/ld")));
}

}  // namespace
}  // namespace nvct::cdi_hooks
