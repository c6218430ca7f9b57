// Test helpers: a temporary directory removed at scope exit, and a log sink that records.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nvct/base/log.hpp"

namespace nvct::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string operator/(std::string_view rel) const { return path_ + "/" + std::string(rel); }
  // Writes a file (creating parent directories) and returns its path.
  std::string write(std::string_view rel, std::string_view content) const;
  std::string read(std::string_view rel) const;

 private:
  std::string path_;
};

class MemorySink : public log::Sink {
 public:
  void write(log::Level level, std::string_view message) override {
    lines.emplace_back(level, std::string(message));
  }
  bool contains(std::string_view needle) const;
  std::vector<std::pair<log::Level, std::string>> lines;
};

}  // namespace nvct::testing
