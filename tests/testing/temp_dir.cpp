#include "nvct/testing/temp_dir.hpp"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nvct::testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "nvct-test-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::write(std::string_view rel, std::string_view content) const {
  std::filesystem::path p = std::filesystem::path(path_) / rel;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
  return p.string();
}

std::string TempDir::read(std::string_view rel) const {
  std::ifstream in(std::filesystem::path(path_) / rel, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool MemorySink::contains(std::string_view needle) const {
  for (const auto& [lvl, msg] : lines)
    if (msg.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace nvct::testing
