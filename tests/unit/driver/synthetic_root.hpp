// A small driver root built in a TempDir: fake ELF libraries, an ld.so.cache describing them,
// binaries, procfs files. For unit tests that do not need the full mock driver.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ldcache_writer.hpp"
#include "nvct/driver/ldcache.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::driver::testing {

inline const std::string kElf = std::string(
                                    "\x7f"
                                    "ELF\x02\x01\x01",
                                    7) +
                                std::string(57, '\0');

class SyntheticRoot {
 public:
  const std::string& path() const { return dir_.path(); }
  std::string operator/(std::string_view rel) const { return dir_ / rel; }

  // A library file at dir/file, plus a soname link when soname differs; registered in the cache
  // under `key` (the soname by default).
  void library(const std::string& dir, const std::string& file, const std::string& soname,
               std::int32_t flags = 0x0303) {
    dir_.write(dir.substr(1) + "/" + file, kElf);
    if (soname != file) {
      std::filesystem::create_symlink(file, dir_ / (dir.substr(1) + "/" + soname));
    }
    entries_.push_back({flags, soname, dir + "/" + soname});
  }
  void cache_entry(std::int32_t flags, const std::string& key, const std::string& value) {
    entries_.push_back({flags, key, value});
  }
  void write_cache(bool old_prefix = false) const {
    dir_.write("etc/ld.so.cache", build_ldcache(entries_, old_prefix));
  }
  void file(const std::string& rel, const std::string& content, mode_t mode = 0644) const {
    std::string p = dir_.write(rel.substr(1), content);
    ::chmod(p.c_str(), mode);
  }

 private:
  nvct::testing::TempDir dir_;
  std::vector<CacheEntrySpec> entries_;
};

}  // namespace nvct::driver::testing
