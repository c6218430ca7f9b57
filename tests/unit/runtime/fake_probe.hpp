// An in-memory ExecutableProbe for lookup tests.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "nvct/runtime/executable_probe.hpp"

namespace nvct::runtime::testing {

class FakeProbe : public ExecutableProbe {
 public:
  // Adds a file; ino is assigned automatically unless given (same ino = same file, as a symlink).
  FakeProbe& file(const std::string& path, bool executable = true, ino_t ino = 0) {
    ExecutableInfo info;
    info.id = FileId{1, ino ? ino : next_ino_++};
    info.regular = true;
    info.executable = executable;
    files_[path] = info;
    return *this;
  }
  FakeProbe& dir(const std::string& path) {
    ExecutableInfo info;
    info.id = FileId{1, next_ino_++};
    files_[path] = info;
    return *this;
  }
  FakeProbe& self_ino(ino_t ino) {
    self_ = FileId{1, ino};
    return *this;
  }

  std::optional<ExecutableInfo> probe(const std::string& path) const override {
    auto it = files_.find(path);
    if (it == files_.end()) return std::nullopt;
    return it->second;
  }
  std::optional<FileId> self() const override { return self_; }

 private:
  std::map<std::string, ExecutableInfo> files_;
  std::optional<FileId> self_ = FileId{1, 999999};
  ino_t next_ino_ = 100;
};

}  // namespace nvct::runtime::testing
