// The driver root (`--root`, config nvidia-container-cli.root): every host lookup of the driver
// module is made relative to it and symlinks are followed without leaving it (driver.md §1).
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct::driver {

class DriverRoot {
 public:
  // Opens the root directory (O_PATH). "" means "/".
  static Result<DriverRoot> open(std::string path);

  // The root as given, without a trailing slash ("/" stays "/").
  const std::string& path() const { return path_; }
  int fd() const { return fd_->get(); }

  // Resolves an absolute root-relative path, following every symlink (absolute targets and ".."
  // are taken relative to the root, so the result never leaves it). Returns the root-relative
  // real path; ENOENT when a component is missing; ELOOP past 40 links.
  Result<std::string> resolve(std::string_view path) const;

  // The host path of a root-relative path (for dlopen and messages): "/r" + "/usr/lib" .
  std::string host_path(std::string_view rel) const;

  // Opens a root-relative path with symlinks resolved inside the root (openat2 RESOLVE_IN_ROOT,
  // or resolve() + O_NOFOLLOW where openat2 is unavailable). O_CLOEXEC is always added.
  Result<unique_fd> open_file(std::string_view path, int flags) const;
  // The same; for a plain read (O_RDONLY without O_PATH/O_DIRECTORY) *st receives the fstat of
  // the opened file, which open_file makes anyway to check that it is a regular file.
  Result<unique_fd> open_file(std::string_view path, int flags, struct stat* st) const;
  Result<std::string> read(std::string_view path, std::size_t max_size = 1u << 20) const;
  // stat() of the resolved path.
  Result<struct stat> stat(std::string_view path) const;
  bool exists(std::string_view path) const { return stat(path).has_value(); }
  // Sorted entry names of a directory (without "." and "..").
  Result<std::vector<std::string>> list_dir(std::string_view path) const;

  // Forces the fallback path of open_file (tests).
  void set_openat2_disabled(bool disabled) { openat2_disabled_ = disabled; }

 private:
  DriverRoot(std::string path, unique_fd fd)
      : path_(std::move(path)),
        fd_(std::make_shared<unique_fd>(std::move(fd))),
        known_dirs_(std::make_shared<std::unordered_set<std::string>>()) {}

  std::string path_;
  std::shared_ptr<unique_fd> fd_;  // shared so DriverRoot is copyable
  // Root-relative paths (resolve()'s at-form) known to be real directories.
  std::shared_ptr<std::unordered_set<std::string>> known_dirs_;
  bool openat2_disabled_ = false;
};

// Joins a root-relative path onto "/": normalises duplicate slashes and "." components.
std::string normalize_path(std::string_view path);

}  // namespace nvct::driver
