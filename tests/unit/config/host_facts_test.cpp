#include "nvct/config/host_facts.hpp"

#include <gtest/gtest.h>

#include "fake_host.hpp"

namespace nvct::config {
namespace {

using testing::FakeHost;

TEST(HostFacts, SuseIdLikeIsSuse) {
  EXPECT_TRUE(is_suse(FakeHost({}, "NAME=\"SLES\"\nID=\"sles\"\nID_LIKE=\"suse\"\n")));
}

TEST(HostFacts, OpenSuseInIdLikeListIsSuse) {
  EXPECT_TRUE(is_suse(FakeHost({}, "ID=opensuse-leap\nID_LIKE=\"suse opensuse\"\n")));
}

TEST(HostFacts, DebianIsNotSuse) {
  EXPECT_FALSE(is_suse(FakeHost({}, "ID=debian\nVERSION_ID=\"12\"\n")));
  EXPECT_FALSE(is_suse(FakeHost({}, "ID=ubuntu\nID_LIKE=debian\n")));
}

TEST(HostFacts, MissingOsReleaseIsNotSuse) { EXPECT_FALSE(is_suse(FakeHost({}, ""))); }

TEST(HostFacts, RealHostSeesExistingFiles) {
  EXPECT_TRUE(real_host_facts().file_exists("/"));
  EXPECT_FALSE(real_host_facts().file_exists("/nonexistent/nvct/file"));
}

}  // namespace
}  // namespace nvct::config
