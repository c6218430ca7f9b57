#include "nvct/runtime/executable_probe.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "nvct/runtime/runtime_lookup.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::runtime {
namespace {

TEST(SystemExecutableProbe, ReportsRegularExecutableAndSelf) {
  nvct::testing::TempDir dir;
  auto exe = dir.write("tool", "#!/bin/sh\n");
  auto plain = dir.write("data", "x");
  ASSERT_EQ(::chmod(exe.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(plain.c_str(), 0644), 0);
  SystemExecutableProbe probe;
  auto info = probe.probe(exe);
  ASSERT_TRUE(info);
  EXPECT_TRUE(info->regular);
  EXPECT_TRUE(info->executable);
  auto data = probe.probe(plain);
  ASSERT_TRUE(data);
  // Root may execute any file with an x bit; none is set here.
  EXPECT_FALSE(data->executable);
  EXPECT_FALSE(probe.probe(dir / "absent"));
  auto dir_info = probe.probe(dir.path());
  ASSERT_TRUE(dir_info);
  EXPECT_FALSE(dir_info->regular);
  EXPECT_TRUE(probe.self());
}

TEST(SystemExecutableProbe, SymlinkToSelfHasSelfIdentity) {
  nvct::testing::TempDir dir;
  auto link = dir / "runc";
  ASSERT_EQ(::symlink("/proc/self/exe", link.c_str()), 0);
  SystemExecutableProbe probe;
  auto info = probe.probe(link);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->id, *probe.self());
  auto r = find_runtime({link}, "", probe);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("is this shim itself"), std::string::npos);
}

}  // namespace
}  // namespace nvct::runtime
