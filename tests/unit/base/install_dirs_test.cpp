#include "nvct/base/install_dirs.hpp"

#include <gtest/gtest.h>

#include <string>

namespace nvct {
namespace {

// The build's install directories come from CMake (cmake/NvctInstallPaths.cmake): absolute, and
// the helper's is libexecdir/nvct, next to (not in) the bindir.
TEST(InstallDirs, AreAbsoluteAndTheHelperDirIsLibexecNvct) {
  const std::string bindir = install_bindir();
  const std::string helper = install_helper_dir();
  ASSERT_FALSE(bindir.empty());
  EXPECT_EQ(bindir.front(), '/');
  ASSERT_GT(helper.size(), 5u);
  EXPECT_EQ(helper.front(), '/');
  EXPECT_EQ(helper.substr(helper.size() - 5), "/nvct");
  EXPECT_NE(helper, bindir);
}

// The generated source file holds the same strings (the e2e tests read it to find the helper).
TEST(InstallDirs, MatchTheGeneratedSource) {
  const std::string generated = NVCT_BINARY_DIR "/generated/install_dirs.cpp";
  FILE* f = std::fopen(generated.c_str(), "r");
  ASSERT_NE(f, nullptr) << generated;
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  EXPECT_NE(text.find(std::string("install_bindir() { return \"") + install_bindir() + "\"; }"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find(std::string("install_helper_dir() { return \"") + install_helper_dir() + "\"; }"),
      std::string::npos)
      << text;
}

}  // namespace
}  // namespace nvct
