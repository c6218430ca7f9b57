#include "nvct/cdi_hooks/hook_target.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::cdi_hooks {
namespace {

using nvct::testing::TempDir;

std::string state_json(const std::string& bundle, const std::string& extra = "") {
  return R"({"ociVersion":"1.0.2","id":"c1","status":"creating","pid":1,"bundle":")" + bundle +
         "\"" + extra + "}";
}

TEST(HookTarget, RootComesFromBundleConfigRelativePath) {
  TempDir t;
  t.write("bundle/config.json", R"({"ociVersion":"1.0.2","root":{"path":"rootfs"}})");
  std::string state = t.write("state.json", state_json(t / "bundle"));
  auto target = load_hook_target(state);
  ASSERT_TRUE(target) << target.error().message();
  EXPECT_EQ(target->container_root, t / "bundle/rootfs");
  EXPECT_EQ(target->state.id, "c1");
}

TEST(HookTarget, RootExtensionOfTheStateWins) {
  TempDir t;
  t.write("bundle/config.json", R"({"ociVersion":"1.0.2","root":{"path":"rootfs"}})");
  std::string state = t.write("state.json", state_json(t / "bundle", R"(,"root":"/run/crun/x")"));
  auto target = load_hook_target(state);
  ASSERT_TRUE(target) << target.error().message();
  EXPECT_EQ(target->container_root, "/run/crun/x");
}

TEST(HookTarget, RelativeRootExtensionIsJoinedToTheBundle) {
  oci::State s;
  s.bundle = "/b";
  s.root = "rootfs";
  auto r = container_root_of(s);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "/b/rootfs");
}

TEST(HookTarget, StateIsReadFromStdinWhenNoFileIsGiven) {
  TempDir t;
  t.write("bundle/config.json", R"({"ociVersion":"1.0.2","root":{"path":"/abs/root"}})");
  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
  std::string s = state_json(t / "bundle");
  ASSERT_EQ(::write(p[1], s.data(), s.size()), static_cast<ssize_t>(s.size()));
  ::close(p[1]);
  auto target = load_hook_target("-", p[0]);
  ::close(p[0]);
  ASSERT_TRUE(target) << target.error().message();
  EXPECT_EQ(target->container_root, "/abs/root");
}

TEST(HookTarget, OversizedStateIsRefused) {
  TempDir t;
  std::string big(oci::kMaxStateSize + 10, ' ');
  std::string state = t.write("state.json", state_json("/b") + big);
  auto target = load_hook_target(state);
  ASSERT_FALSE(target);
  EXPECT_NE(target.error().message().find("load container state"), std::string::npos);
}

TEST(HookTarget, MissingBundleConfigIsAnError) {
  TempDir t;
  std::string state = t.write("state.json", state_json(t / "nobundle"));
  EXPECT_FALSE(load_hook_target(state));
}

TEST(HookTarget, EmptyAndHostRootAreRefused) {
  EXPECT_FALSE(open_container_root(""));
  EXPECT_FALSE(open_container_root("/"));
  // A path that resolves to "/" is refused too.
  EXPECT_FALSE(open_container_root("/usr/.."));
  TempDir t;
  EXPECT_TRUE(open_container_root(t.path()));
}

}  // namespace
}  // namespace nvct::cdi_hooks
