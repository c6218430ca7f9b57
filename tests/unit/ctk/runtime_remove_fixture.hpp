// The fixture of the `runtime configure --remove` tests (runtime_remove_test.cpp,
// runtime_remove_containerd_test.cpp): configure-then-remove on temporary files, a command runner
// that counts calls, captured log lines.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <memory>
#include <string>
#include <utility>

#include "nvct/base/log.hpp"
#include "nvct/ctk/runtime_remove.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::ctk {

// No engine is installed here: every command fails, and the calls are counted (--remove runs
// none; configure asks `containerd --version` for version-3 files).
class CountingRunner : public CommandRunner {
 public:
  Result<CommandOutput> run(const std::vector<std::string>& argv) override {
    ++calls;
    return fail(ENOENT, "run " + argv.front() + ": not in this test");
  }
  int calls = 0;
};

// (inode, mtime) of a file: equal before and after means it was not rewritten.
inline std::pair<ino_t, long> identity(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return {st.st_ino, st.st_mtim.tv_sec * 1000000000L + st.st_mtim.tv_nsec};
}

class RuntimeRemove : public ::testing::Test {
 protected:
  using Level = log::Level;

  void SetUp() override {
    sink_ = std::make_shared<nvct::testing::MemorySink>();
    log::set_sink(sink_);
    log::set_level(log::Level::kDebug);
  }
  void TearDown() override { log::set_sink(nullptr); }

  Result<std::string> run(ConfigureOptions o) {
    NVCT_ASSIGN_OR_RETURN(auto normalized, normalize_options(std::move(o)));
    return configure_runtime(normalized, runner_);
  }
  Result<std::string> configure(ConfigureOptions o) {
    o.remove = false;
    return run(std::move(o));
  }
  Result<std::string> remove(ConfigureOptions o) {
    o.remove = true;
    o.set_as_default = false;
    o.enable_cdi = false;
    int calls = runner_.calls;
    auto r = run(std::move(o));
    EXPECT_EQ(runner_.calls, calls) << "--remove ran a command";
    return r;
  }
  // An executable stand-in for a binary under the temp dir (configure may check that an explicit
  // path exists; --remove never does).
  std::string executable(const std::string& rel) {
    auto path = dir_.write(rel, "#!/bin/sh\n");
    EXPECT_EQ(::chmod(path.c_str(), 0755), 0);
    return path;
  }
  // Configures nvidia, nvidia-cdi and nvidia-legacy as the reference installer does (C11), with
  // the runtimes in <temp>/bin.
  void configure_three(ConfigureOptions o) {
    for (auto [name, exe] : {std::pair{"nvidia", "nvidia-container-runtime"},
                             {"nvidia-cdi", "nvidia-container-runtime.cdi"},
                             {"nvidia-legacy", "nvidia-container-runtime.legacy"}}) {
      o.runtime_name = name;
      o.runtime_path = executable(std::string("bin/") + exe);
      auto r = configure(o);
      ASSERT_TRUE(r) << r.error().message();
    }
  }
  bool logged(Level level, std::string_view needle) const {
    for (const auto& [l, line] : sink_->lines)
      if (l == level && line.find(needle) != std::string::npos) return true;
    return false;
  }

  std::shared_ptr<nvct::testing::MemorySink> sink_;
  CountingRunner runner_;
  nvct::testing::TempDir dir_;
};

inline ConfigureOptions docker_options(const std::string& path) {
  ConfigureOptions o;
  o.runtime = "docker";
  o.config_path = path;
  return o;
}

inline ConfigureOptions containerd_options(const std::string& config, const std::string& drop_in) {
  ConfigureOptions o;
  o.runtime = "containerd";
  o.config_path = config;
  o.drop_in_path = drop_in;
  return o;
}

inline ConfigureOptions crio_options(const std::string& config, const std::string& drop_in) {
  ConfigureOptions o;
  o.runtime = "crio";
  o.config_path = config;
  o.drop_in_path = drop_in;
  return o;
}

}  // namespace nvct::ctk
