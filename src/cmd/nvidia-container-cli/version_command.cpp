// `nvidia-container-cli --version` (cli.md §7).
#include <fmt/format.h>

#include <cstdio>

#include "commands.hpp"
#include "nvct/base/version_info.hpp"

namespace nvct::cli {

void print_version() {
  std::string s;
  s += fmt::format("cli-version: {}\n", kVersion);
  s += fmt::format("lib-version: {}\n", kVersion);
  s += fmt::format("build date: {} {}\n", __DATE__, __TIME__);
  s += fmt::format("build revision: {}\n", kGitCommit);
  s += fmt::format("build compiler: {}\n", NVCT_BUILD_COMPILER);
  s += fmt::format("build platform: {}\n", NVCT_BUILD_PLATFORM);
  s += fmt::format("build flags: {}\n", NVCT_BUILD_FLAGS);
  std::fwrite(s.data(), 1, s.size(), stdout);
}

}  // namespace nvct::cli
