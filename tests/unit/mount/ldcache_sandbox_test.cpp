// The sandboxed native writer: same cache as the in-process writer, run in a child (the
// caller's process parses nothing), ENOTSUP trees and the config switch go to ldconfig.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "nvct/mount/ldcache_writer.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::mount {
namespace {

namespace fs = std::filesystem;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A rootfs with the host's libz in the Debian multiarch dir and one copied under /opt/x.
std::string make_tree(const nvct::testing::TempDir& tmp, const std::string& name) {
  std::string root = tmp / name;
  fs::create_directories(root + "/etc/ld.so.conf.d");
  fs::create_directories(root + "/usr/lib/x86_64-linux-gnu");
  fs::create_directories(root + "/opt/x");
  fs::create_symlink("usr/lib", root + "/lib");
  std::ofstream(root + "/etc/ld.so.conf") << "include /etc/ld.so.conf.d/*.conf\n";
  std::ofstream(root + "/etc/ld.so.conf.d/x86_64-linux-gnu.conf")
      << "/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n";
  std::string z = fs::canonical("/lib/x86_64-linux-gnu/libz.so.1").string();
  fs::copy_file(z, root + "/usr/lib/x86_64-linux-gnu/" + fs::path(z).filename().string());
  fs::copy_file(z, root + "/opt/x/" + fs::path(z).filename().string());
  return root;
}

LdconfigOptions options(std::vector<std::string> folders) {
  LdconfigOptions o;
  o.folders = std::move(folders);
  return o;
}

TEST(LdcacheSandbox, WritesWhatTheInProcessWriterWrites) {
  nvct::testing::TempDir tmp;
  std::string a = make_tree(tmp, "a"), b = make_tree(tmp, "b");
  auto ra = Root::open(a), rb = Root::open(b);
  ASSERT_TRUE(ra && rb);
  ASSERT_TRUE(write_ldcache_native(*ra, options({"/opt/x"})));
  LdcacheScanOptions so;
  so.folders = {"/opt/x"};
  ASSERT_TRUE(update_ldcache_in_process(*rb, so));
  std::string got = read_all(a + "/etc/ld.so.cache"), want = read_all(b + "/etc/ld.so.cache");
  EXPECT_EQ(got, want);
  auto recs = parse_ldcache(got);
  ASSERT_TRUE(recs) << recs.error().message();
  ASSERT_EQ(recs->size(), 2u);
  EXPECT_EQ((*recs)[0].path, "/opt/x/libz.so.1");  // the command-line folder first
  EXPECT_EQ((*recs)[1].path, "/lib/x86_64-linux-gnu/libz.so.1");
  // The soname link ldconfig would make was made in both folders.
  EXPECT_TRUE(fs::is_symlink(a + "/opt/x/libz.so.1"));
}

TEST(LdcacheSandbox, ChildErrorsComeBackWithTheirMessage) {
  nvct::testing::TempDir tmp;
  std::string a = make_tree(tmp, "a");
  std::ofstream(a + "/etc/ld.so.conf") << "include /etc/ld.so.conf\n";
  auto ra = Root::open(a);
  ASSERT_TRUE(ra);
  auto r = write_ldcache_native(*ra, options({}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ELOOP);
  EXPECT_NE(r.error().message().find("ld.so.conf"), std::string::npos) << r.error().message();
}

TEST(LdcacheSandbox, ContainerPidThatIsGoneFails) {
  nvct::testing::TempDir tmp;
  std::string a = make_tree(tmp, "a");
  auto ra = Root::open(a);
  ASSERT_TRUE(ra);
  LdconfigOptions o = options({});
  o.container_pid = 0x3ffffff0;
  EXPECT_FALSE(write_ldcache_native(*ra, o));
}

TEST(LdcacheDispatch, LegacyHwcapTreeFallsBackToLdconfig) {
  nvct::testing::TempDir tmp;
  std::string a = make_tree(tmp, "a");
  fs::create_directories(a + "/opt/x/tls");
  auto ra = Root::open(a);
  ASSERT_TRUE(ra);
  EXPECT_EQ(write_ldcache_native(*ra, options({"/opt/x"})).error().code(), ENOTSUP);
  auto r = write_ldcache(*ra, options({"/opt/x"}), false);
  ASSERT_TRUE(r) << r.error().message();
  auto recs = parse_ldcache(read_all(a + "/etc/ld.so.cache"));
  ASSERT_TRUE(recs);
  EXPECT_EQ(recs->size(), 2u);
}

TEST(LdcacheDispatch, ConfigSwitchRunsLdconfig) {
  nvct::testing::TempDir tmp;
  std::string a = make_tree(tmp, "a");
  auto ra = Root::open(a);
  ASSERT_TRUE(ra);
  ASSERT_TRUE(write_ldcache(*ra, options({"/opt/x"}), true));
  // ldconfig's own generator string names the host's glibc build, not nvct.
  std::string cache = read_all(a + "/etc/ld.so.cache");
  EXPECT_EQ(cache.find(std::string(kLdcacheGenerator)), std::string::npos);
  ASSERT_TRUE(write_ldcache(*ra, options({"/opt/x"}), false));
  EXPECT_NE(read_all(a + "/etc/ld.so.cache").find(std::string(kLdcacheGenerator)),
            std::string::npos);
}

}  // namespace
}  // namespace nvct::mount
