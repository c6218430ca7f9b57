#include "nvct/runtime/runtime_lookup.hpp"

#include <gtest/gtest.h>

#include "fake_probe.hpp"

namespace nvct::runtime {
namespace {

using testing::FakeProbe;

TEST(SearchDirs, PathEntriesThenDefaultDirsWithoutDuplicates) {
  auto dirs = search_dirs("/opt/bin:/usr/bin::/opt/bin");
  std::vector<std::string> want = {
      "/opt/bin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/sbin", "/bin"};
  EXPECT_EQ(dirs, want);
}

TEST(SearchDirs, EmptyPathGivesDefaultDirs) {
  std::vector<std::string> want = {"/usr/local/sbin", "/usr/local/bin", "/usr/sbin",
                                   "/usr/bin",        "/sbin",          "/bin"};
  EXPECT_EQ(search_dirs(""), want);
}

TEST(FindRuntime, EmptyCandidateListIsAnError) {
  FakeProbe probe;
  auto r = find_runtime({}, "/usr/bin", probe);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "at least one runtime candidate must be specified");
}

TEST(FindRuntime, DefaultCandidatesPreferRuncOverCrun) {
  FakeProbe probe;
  probe.file("/usr/bin/crun").file("/usr/sbin/runc");
  auto r = find_runtime({"runc", "crun"}, "", probe);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, "/usr/sbin/runc");
}

TEST(FindRuntime, FallsBackToSecondCandidate) {
  FakeProbe probe;
  probe.file("/usr/bin/crun");
  auto r = find_runtime({"runc", "crun"}, "", probe);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, "/usr/bin/crun");
}

TEST(FindRuntime, PathIsSearchedBeforeDefaultDirs) {
  FakeProbe probe;
  probe.file("/opt/rt/runc").file("/usr/bin/runc");
  auto r = find_runtime({"runc"}, "/opt/rt", probe);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "/opt/rt/runc");
}

TEST(FindRuntime, AbsoluteCandidateIsUsedAsIs) {
  FakeProbe probe;
  probe.file("/opt/custom/my-runc").file("/usr/bin/runc");
  auto r = find_runtime({"/opt/custom/my-runc", "runc"}, "/usr/bin", probe);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "/opt/custom/my-runc");
}

TEST(FindRuntime, MissingAbsoluteCandidateFallsThroughToNext) {
  FakeProbe probe;
  probe.file("/usr/bin/runc");
  auto r = find_runtime({"/opt/missing/runc", "runc"}, "", probe);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "/usr/bin/runc");
}

TEST(FindRuntime, NonExecutableFileIsSkipped) {
  FakeProbe probe;
  probe.file("/usr/local/bin/runc", /*executable=*/false).file("/usr/bin/runc");
  auto r = find_runtime({"runc"}, "", probe);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "/usr/bin/runc");
}

TEST(FindRuntime, DirectoryNamedLikeTheRuntimeIsSkipped) {
  FakeProbe probe;
  probe.dir("/usr/local/bin/runc").file("/usr/bin/runc");
  auto r = find_runtime({"runc"}, "", probe);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "/usr/bin/runc");
}

TEST(FindRuntime, NothingFoundNamesTheCandidateList) {
  FakeProbe probe;
  auto r = find_runtime({"runc", "crun"}, "/usr/bin", probe);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "no runtime binary found from candidate list: [runc crun]");
}

TEST(FindRuntime, RefusedCandidatesAreExplained) {
  FakeProbe probe;
  probe.file("/usr/bin/runc", /*executable=*/false);
  auto r = find_runtime({"runc"}, "", probe);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("/usr/bin/runc: not executable"), std::string::npos)
      << r.error().message();
}

TEST(FindRuntime, CandidateThatIsTheShimItselfIsRefused) {
  FakeProbe probe;
  probe.file("/usr/local/bin/runc", true, 42).self_ino(42).file("/usr/bin/runc");
  auto r = find_runtime({"runc"}, "", probe);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "/usr/bin/runc");
}

TEST(FindRuntime, OnlyCandidateBeingTheShimIsAClearError) {
  FakeProbe probe;
  probe.file("/usr/bin/nvidia-container-runtime", true, 7).self_ino(7);
  auto r = find_runtime({"/usr/bin/nvidia-container-runtime"}, "", probe);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("is this shim itself"), std::string::npos)
      << r.error().message();
}

TEST(FindRuntime, RelativePathWithSlashIsNotSearched) {
  FakeProbe probe;
  probe.file("/usr/bin/bin/runc");
  auto r = find_runtime({"bin/runc"}, "", probe);
  ASSERT_FALSE(r);
}

}  // namespace
}  // namespace nvct::runtime
