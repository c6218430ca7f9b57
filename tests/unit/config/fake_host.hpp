// A HostFacts with a chosen set of existing files and os-release text.
#pragma once

#include <set>
#include <string>
#include <utility>

#include "nvct/config/host_facts.hpp"

namespace nvct::testing {

class FakeHost final : public config::HostFacts {
 public:
  FakeHost() = default;
  explicit FakeHost(std::set<std::string> files, std::string os_release = "ID=debian\n")
      : files_(std::move(files)), os_release_(std::move(os_release)) {}

  bool file_exists(const std::string& path) const override { return files_.count(path) > 0; }
  std::string os_release() const override { return os_release_; }

 private:
  std::set<std::string> files_;
  std::string os_release_ = "ID=debian\n";
};

}  // namespace nvct::testing
