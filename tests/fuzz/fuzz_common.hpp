// Helpers shared by the libFuzzer harnesses of tests/fuzz (issue 18). Each harness defines
// LLVMFuzzerTestOneInput; the fuzz preset links it with libFuzzer, every other build with
// replay_main.cpp, which runs it on each file of the corpus and regression directories.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nvct/config/host_facts.hpp"

// The replay build compiles every harness into one program: the build renames the entry point
// per harness (NVCT_FUZZ_ENTRY), so that the harness files stay plain libFuzzer targets.
#ifndef NVCT_FUZZ_ENTRY
#define NVCT_FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif
#define NVCT_FUZZ_TARGET extern "C" int NVCT_FUZZ_ENTRY(const std::uint8_t* data, std::size_t size)

namespace nvct::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Splits at the first '\n': the head configures the harness (facts, options), the tail is the
// input under test. No '\n': empty head.
inline std::pair<std::string_view, std::string_view> split_head(std::string_view text) {
  auto nl = text.find('\n');
  if (nl == std::string_view::npos) return {{}, text};
  return {text.substr(0, nl), text.substr(nl + 1)};
}

inline std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    auto nl = text.find('\n');
    out.emplace_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

// A host with no files and a Debian os-release: config defaults without touching the machine.
class FakeHost : public config::HostFacts {
 public:
  bool file_exists(const std::string&) const override { return false; }
  std::string os_release() const override { return "ID=debian\n"; }
};

inline const FakeHost& fake_host() {
  static const FakeHost host;
  return host;
}

}  // namespace nvct::fuzz
