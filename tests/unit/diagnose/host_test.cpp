#include "nvct/diagnose/host.hpp"

#include <sys/stat.h>

#include <gtest/gtest.h>
#include <filesystem>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::diagnose {
namespace {

TEST(Host, RootThatIsNotADirectoryIsAnError) {
  nvct::testing::TempDir dir;
  Options options;
  options.root = dir.write("file", "x");
  auto host = Host::open(options);
  ASSERT_FALSE(host.has_value());
  EXPECT_NE(host.error().message().find("not a directory"), std::string::npos);
  options.root = dir / "absent";
  EXPECT_FALSE(Host::open(options).has_value());
}

TEST(Host, AbsoluteSymlinksStayInsideTheRoot) {
  nvct::testing::TempDir dir;
  dir.write("etc/secret", "inside");
  std::filesystem::create_symlink("/etc/secret", dir / "link");
  Options options;
  options.root = dir.path();
  auto host = Host::open(options);
  ASSERT_TRUE(host.has_value());
  auto text = host->read("/link");
  ASSERT_TRUE(text.has_value()) << text.error().message();
  EXPECT_EQ(*text, "inside");
}

TEST(Host, LstatDoesNotFollowTheLastLink) {
  nvct::testing::TempDir dir;
  dir.write("dev/target", "");
  std::filesystem::create_symlink("target", dir / "dev/link");
  Options options;
  options.root = dir.path();
  auto host = Host::open(options);
  ASSERT_TRUE(host.has_value());
  auto st = host->lstat("/dev/link");
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(S_ISLNK(st->st_mode));
  EXPECT_TRUE(S_ISREG(host->stat("/dev/link")->st_mode));
  EXPECT_FALSE(host->lstat("/dev/absent").has_value());
}

TEST(Host, FlagFilesAreReadAsGivenDefaultsBelowTheRoot) {
  nvct::testing::TempDir dir, elsewhere;
  dir.write("etc/docker/daemon.json", "root");
  Options options;
  options.root = dir.path();
  auto host = Host::open(options);
  ASSERT_TRUE(host.has_value());
  EXPECT_EQ(host->docker_config().path, "/etc/docker/daemon.json");
  EXPECT_EQ(*host->read(host->docker_config()), "root");

  options.docker_config = elsewhere.write("daemon.json", "flag");
  auto flagged = Host::open(options);
  ASSERT_TRUE(flagged.has_value());
  EXPECT_EQ(*flagged->read(flagged->docker_config()), "flag");
}

TEST(Host, FindOnPathLooksBelowTheRoot) {
  nvct::testing::TempDir dir;
  dir.write("usr/bin/dockerd", "");
  Options options;
  options.root = dir.path();
  auto host = Host::open(options);
  ASSERT_TRUE(host.has_value());
  EXPECT_EQ(find_on_path(*host, "dockerd"), "/usr/bin/dockerd");
  EXPECT_EQ(find_on_path(*host, "containerd"), "");
}

}  // namespace
}  // namespace nvct::diagnose
