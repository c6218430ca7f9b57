// Spec dirs, priority and conflicts (cdi.md §3), bad files not fatal.
#include "nvct/cdi/registry.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::cdi {
namespace {

std::string spec_yaml(const std::string& kind, const std::string& dev, const std::string& env) {
  return fmt::format(
      "cdiVersion: 0.5.0\nkind: {}\ndevices:\n- name: {}\n  containerEdits:\n    env: [{}]\n",
      kind, dev, env);
}

TEST(Registry, DefaultSpecDirsAreEtcThenVarRun) {
  EXPECT_EQ(kDefaultSpecDirs, (std::vector<std::string>{"/etc/cdi", "/var/run/cdi"}));
}

TEST(Registry, ListsFullyQualifiedNamesSorted) {
  nvct::testing::TempDir d;
  d.write("etc/b.yaml", spec_yaml("vendor.com/gpu", "1", "A=1"));
  d.write("etc/a.json",
          R"({"cdiVersion":"0.3.0","kind":"vendor.com/gpu","devices":[{"name":"all","containerEdits":{"env":["B=1"]}}]})");
  auto r = Registry::load({d / "etc"});
  EXPECT_EQ(r.device_names(), (std::vector<std::string>{"vendor.com/gpu=1", "vendor.com/gpu=all"}));
  EXPECT_TRUE(r.errors().empty());
}

TEST(Registry, LaterDirWins) {
  nvct::testing::TempDir d;
  d.write("etc/x.yaml", spec_yaml("v.com/c", "dev", "FROM=etc"));
  d.write("run/x.yaml", spec_yaml("v.com/c", "dev", "FROM=run"));
  auto r = Registry::load({d / "etc", d / "run"});
  const Device* dev = r.find_device("v.com/c=dev");
  ASSERT_NE(dev, nullptr);
  EXPECT_EQ(dev->container_edits.env[0], "FROM=run");
  EXPECT_EQ(r.spec_of("v.com/c=dev")->priority, 1);
  auto reversed = Registry::load({d / "run", d / "etc"});
  EXPECT_EQ(reversed.find_device("v.com/c=dev")->container_edits.env[0], "FROM=etc");
}

TEST(Registry, SameDeviceTwiceInOneDirIsAConflictAndRemoved) {
  nvct::testing::TempDir d;
  d.write("etc/a.yaml", spec_yaml("v.com/c", "dev", "A=1"));
  d.write("etc/b.yaml", spec_yaml("v.com/c", "dev", "B=1"));
  d.write("etc/c.yaml", spec_yaml("v.com/c", "other", "C=1"));
  auto r = Registry::load({d / "etc"});
  EXPECT_EQ(r.find_device("v.com/c=dev"), nullptr);
  EXPECT_EQ(r.device_names(), std::vector<std::string>{"v.com/c=other"});
  ASSERT_EQ(r.errors().count(d / "etc/b.yaml"), 1u);
  EXPECT_NE(r.errors().at(d / "etc/b.yaml")[0].find("conflicting device"), std::string::npos);
}

TEST(Registry, BadFilesAreRecordedAndOthersStillLoad) {
  nvct::testing::TempDir d;
  d.write("etc/bad.yaml", "cdiVersion: [\n");
  d.write("etc/invalid.yaml", spec_yaml("v.com/c", "-bad", "A=1"));
  d.write("etc/good.yaml", spec_yaml("v.com/c", "good", "A=1"));
  d.write("etc/ignored.txt", "not a spec");
  d.write("etc/ignored.yml", "not read: .yml is not a spec extension");
  d.write("etc/sub/nested.yaml", spec_yaml("v.com/c", "nested", "A=1"));
  auto r = Registry::load({d / "etc"});
  EXPECT_EQ(r.device_names(), std::vector<std::string>{"v.com/c=good"});
  EXPECT_EQ(r.errors().size(), 2u);
  EXPECT_EQ(r.errors().count(d / "etc/bad.yaml"), 1u);
  EXPECT_EQ(r.errors().count(d / "etc/invalid.yaml"), 1u);
}

TEST(Registry, MissingDirIsNotAnError) {
  nvct::testing::TempDir d;
  auto r = Registry::load({d / "nope", d / "also-nope"});
  EXPECT_TRUE(r.device_names().empty());
  EXPECT_TRUE(r.errors().empty());
}

TEST(Registry, SymlinkedSpecIsFollowedAndOversizedFileRejected) {
  nvct::testing::TempDir d;
  auto target = d.write("elsewhere/spec.yaml", spec_yaml("v.com/c", "linked", "A=1"));
  d.write("etc/keep.yaml", spec_yaml("v.com/c", "keep", "A=1"));
  ASSERT_EQ(::symlink(target.c_str(), (d / "etc/link.yaml").c_str()), 0);
  d.write("etc/huge.yaml", std::string(5u << 20, '#'));
  auto r = Registry::load({d / "etc"});
  EXPECT_EQ(r.device_names(), (std::vector<std::string>{"v.com/c=keep", "v.com/c=linked"}));
  EXPECT_EQ(r.errors().count(d / "etc/huge.yaml"), 1u);
}

TEST(Registry, CollectEditsAddsSpecEditsOncePerSpec) {
  Registry r;
  Spec s;
  s.cdi_version = "0.3.0";
  s.kind = "v.com/c";
  s.container_edits.env = {"COMMON=1"};
  Device a;
  a.name = "a";
  a.container_edits.env = {"A=1"};
  Device b;
  b.name = "b";
  b.container_edits.env = {"B=1"};
  s.devices = {a, b};
  r.add_spec(s, "mem", 0);
  r.finish();
  auto edits = r.collect_edits({"v.com/c=a", "v.com/c=b"});
  ASSERT_TRUE(edits) << edits.error().message();
  EXPECT_EQ(edits->env, (std::vector<std::string>{"COMMON=1", "A=1", "B=1"}));
}

TEST(Registry, UnresolvableNamesAreAllListed) {
  Registry r;
  auto edits = r.collect_edits({"v.com/c=x", "v.com/c=y"});
  ASSERT_FALSE(edits);
  EXPECT_EQ(edits.error().message(), "unresolvable CDI devices v.com/c=x, v.com/c=y");
}

// Issue 18: a hostile object named like a spec is named in an error (the callers warn with it),
// never opened and never skipped silently; the valid spec beside it still loads.
TEST(Registry, NonRegularSpecsAreNamedAndTheValidOneStillLoads) {
  nvct::testing::TempDir d;
  d.write("etc/good.yaml", spec_yaml("v.com/c", "dev", "A=1"));
  ASSERT_EQ(::mkfifo((d / "etc/fifo.yaml").c_str(), 0644), 0);
  ASSERT_EQ(::mkdir((d / "etc/dir.yaml").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("loop2.json", (d / "etc/loop1.json").c_str()), 0);
  ASSERT_EQ(::symlink("loop1.json", (d / "etc/loop2.json").c_str()), 0);
  d.write("etc/bad.yaml", "cdiVersion: [\n");
  auto r = Registry::load({d / "etc"});
  EXPECT_EQ(r.device_names(), (std::vector<std::string>{"v.com/c=dev"}));
  auto first_error = [&](const std::string& name) -> std::string {
    auto it = r.errors().find(d / ("etc/" + name));
    return it == r.errors().end() || it->second.empty() ? "" : it->second.front();
  };
  EXPECT_NE(first_error("fifo.yaml").find("fifo.yaml is a FIFO, not a regular file"),
            std::string::npos);
  EXPECT_NE(first_error("dir.yaml").find("dir.yaml is a directory, not a regular file"),
            std::string::npos);
  EXPECT_NE(first_error("loop1.json").find("oo many levels of symbolic links"), std::string::npos)
      << first_error("loop1.json");
  EXPECT_NE(first_error("bad.yaml").find("failed to parse CDI spec"), std::string::npos)
      << first_error("bad.yaml");
  EXPECT_EQ(r.errors().size(), 5u);
}

}  // namespace
}  // namespace nvct::cdi
