#include "nvct/base/program_path.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "nvct/base/install_dirs.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct {
namespace {

namespace fs = std::filesystem;
using Dirs = std::vector<std::string>;

std::string executable(nvct::testing::TempDir& d, const std::string& rel) {
  std::string path = d.write(rel, "#!/bin/sh\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

TEST(ProgramSearchDirs, OwnDirectoryThenPathThenInstallBindirWithoutDuplicates) {
  EXPECT_EQ(
      program_search_dirs("/opt/nvct/bin", "/usr/local/bin:/usr/bin:/opt/nvct/bin/", "/usr/bin"),
      (Dirs{"/opt/nvct/bin", "/usr/local/bin", "/usr/bin"}));
}

TEST(ProgramSearchDirs, RelativeAndEmptyEntriesAreNeverSearched) {
  EXPECT_EQ(program_search_dirs("", "bin::./x:/sbin", "usr/bin"), (Dirs{"/sbin"}));
}

TEST(ProgramSearchDirs, DefaultsAreThisProcessAndTheCompiledInBindir) {
  std::string self = fs::read_symlink("/proc/self/exe").parent_path().string();
  EXPECT_EQ(self_exe_dir(), self);
  auto dirs = program_search_dirs("");
  ASSERT_EQ(dirs.size(), self == install_bindir() ? 1u : 2u);
  EXPECT_EQ(dirs.front(), self);
  EXPECT_EQ(dirs.back(), install_bindir());
}

TEST(ResolveProgram, BareNameTakesTheFirstExecutableInOrder) {
  nvct::testing::TempDir a, b;
  a.write("nvidia-cdi-hook", "not executable");
  std::string want = executable(b, "nvidia-cdi-hook");
  executable(a, "other");
  auto r = resolve_program("", "nvidia-cdi-hook", {a.path(), b.path()}, "--flag");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, want);
  // A relative value is looked up by its basename.
  r = resolve_program("some/dir/nvidia-cdi-hook", "x", {b.path()}, "--flag");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, want);
}

TEST(ResolveProgram, AbsolutePathMustBeAnExecutableFile) {
  nvct::testing::TempDir a;
  std::string exe = executable(a, "bin/tool");
  EXPECT_EQ(resolve_program(exe, "tool", {}, "--flag").value_or(""), exe);
  auto r = resolve_program(a.path() + "/bin", "tool", {}, "key.path in /etc/c.toml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "key.path in /etc/c.toml is set to " + a.path() +
                                     "/bin, which is not an executable file; install it there "
                                     "or change key.path in /etc/c.toml");
}

TEST(ResolveProgram, NotFoundNamesTheSettingAndEveryDirectorySearched) {
  auto r = resolve_program("", "nvidia-cdi-hook", {"/nonexistent/a", "/nonexistent/b"}, "--hook");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ENOENT);
  EXPECT_EQ(r.error().message(),
            "nvidia-cdi-hook not found (--hook is \"\"): looked in /nonexistent/a, "
            "/nonexistent/b; install it or set --hook to its absolute path");
}

}  // namespace
}  // namespace nvct
