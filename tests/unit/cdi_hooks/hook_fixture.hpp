// Shared set-up of the cdi_hooks tests: the process is in a private mount namespace (see
// mount_sandbox.hpp), each test gets a Sandbox with a "host" dir and a "rootfs", and helpers
// write bundles and states.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "../mount/mount_sandbox.hpp"
#include "nvct/mount/bind.hpp"
#include "nvct/mount/in_root.hpp"

namespace nvct::cdi_hooks::testing {

using nvct::mount::testing::Sandbox;

// Runs a test body once per resolver: openat2 and the forced userspace walker.
class HookTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    mount::force_openat2_fallback(GetParam());
    mount::force_classic_mount_api(GetParam());
  }
  void TearDown() override {
    mount::force_openat2_fallback(false);
    mount::force_classic_mount_api(false);
  }
  mount::Root root() const {
    auto r = mount::Root::open(sb.rootfs());
    EXPECT_TRUE(r) << r.error().message();
    return std::move(*r);
  }
  Sandbox sb;
};

inline std::string resolver_name(const ::testing::TestParamInfo<bool>& info) {
  return info.param ? "Walker" : "Openat2";
}

#define NVCT_HOOK_TEST_P(Suite)                                              \
  INSTANTIATE_TEST_SUITE_P(Resolvers, Suite, ::testing::Values(false, true), \
                           ::nvct::cdi_hooks::testing::resolver_name)

inline bool is_symlink(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

inline std::string readlink_of(const std::string& p) {
  char buf[4096];
  ssize_t n = ::readlink(p.c_str(), buf, sizeof buf);
  return n < 0 ? std::string() : std::string(buf, static_cast<std::size_t>(n));
}

inline mode_t mode_of(const std::string& p) {
  struct stat st {};
  ::lstat(p.c_str(), &st);
  return st.st_mode & 07777;
}

}  // namespace nvct::cdi_hooks::testing
